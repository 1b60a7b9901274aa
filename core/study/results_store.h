#pragma once
// SQLite results database (WAL). Tables: study (spec JSON, software version, created), runs,
// epochs, xray. Every write is its own transaction, so a killed process loses at most the epochs in
// progress. All methods are thread-safe (one connection, serialized by a mutex).

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/study/run_events.h"
#include "core/study/study_spec.h"

struct sqlite3;

namespace paritylab::study {

class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RunRecord {
  std::int64_t id = 0;
  std::string backend;     // display name
  std::string policyJson;  // the policy as JSON text ("" for imported runs)
  std::uint64_t seed = 0;
  RunState status = RunState::Pending;
  int epochsDone = 0;
  double finalTrainLoss = 0.0, finalTestLoss = 0.0, finalAccuracy = 0.0;  // NaN when unknown
  double wallSeconds = 0.0;
  int divergedEpoch = 0;            // 0 = did not diverge
  std::string message;              // failed: why; imported: the source run name
  std::string source = "emulated";  // "emulated" | "imported"
};

struct EpochRecord {
  int epoch = 0;                                               // 1-based
  double trainLoss = 0.0, testLoss = 0.0, testAccuracy = 0.0;  // accuracy: fraction; NaN unknown
  double seconds = 0.0;
  int skippedSteps = 0;  // loss scaling: optimizer steps skipped on inf/NaN in this epoch
};

// One X-ray record of a run (issue 14): one operand of one product site at one sampled step.
struct XrayRow {
  std::int64_t runId = 0;
  std::int64_t step = 0;  // global training step
  int epoch = 0;          // 1-based
  std::string site, operand, format;
  numerics::TensorXray xray;
};

class ResultsStore {
 public:
  // Opens or creates. create = false: the file must exist. Throws StoreError naming the file
  // when it is not a ParityLab database.
  static std::unique_ptr<ResultsStore> open(const std::string& path, bool create = false);
  ~ResultsStore();
  ResultsStore(const ResultsStore&) = delete;
  ResultsStore& operator=(const ResultsStore&) = delete;

  const std::string& path() const { return path_; }
  bool hasStudy() const;
  void saveStudySpec(const std::string& specJson);  // replaces; records PARITYLAB_VERSION
  std::string loadStudySpecJson() const;            // "" when none
  StudySpec loadStudySpec() const;                  // throws StoreError when none
  std::string softwareVersion() const;

  std::int64_t addRun(const RunRecord& run);  // returns the id
  void updateRun(const RunRecord& run);       // by run.id
  void setRunStatus(std::int64_t runId, RunState state);
  void addEpoch(std::int64_t runId, const EpochRecord& epoch);
  void deleteEpochs(std::int64_t runId);
  // Several runs with their epochs in one transaction (import).
  void addRunsWithEpochs(std::vector<RunRecord>& runs,
                         const std::vector<std::vector<EpochRecord>>& epochs);

  // X-ray samples (table xray: per run, site, operand and step; counts as measured, so the
  // fractions are recomputed exactly). runId 0: every run; rows by run, then as recorded.
  void addXraySample(std::int64_t runId, const nn::XraySample& sample);
  void deleteXray(std::int64_t runId);
  std::vector<XrayRow> loadXray(std::int64_t runId = 0) const;

  std::vector<RunRecord> loadRuns() const;  // by id
  std::vector<EpochRecord> loadEpochs(std::int64_t runId) const;
  std::map<std::int64_t, std::vector<EpochRecord>> loadAllEpochs() const;
  // Completed runs' final accuracies per backend, backends in first-appearance order.
  std::vector<std::pair<std::string, std::vector<double>>> finalAccuraciesByBackend() const;

 private:
  explicit ResultsStore(std::string path);
  void exec(const char* sql) const;
  std::string path_;
  sqlite3* db_ = nullptr;
  mutable std::mutex mutex_;
};

RunState runStateFromString(const std::string& text);  // inverse of toString; throws

}  // namespace paritylab::study
