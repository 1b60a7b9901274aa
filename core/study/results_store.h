#pragma once
// SQLite results database (WAL). Tables: study (spec JSON, software version, created), runs,
// epochs, steps (sampled training loss and learning rate). Every write is its own transaction, so a
// killed process loses at most the epochs in progress. All methods are thread-safe (one connection,
// serialized by a mutex).

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
};

// One sampled training step (table `steps`): a run keeps every k-th step, k = ceil(T / 2000) for
// T planned steps, so at most 2,000 points (docs/study-spec.md).
struct StepRecord {
  std::int64_t step = 0;   // global step since the run started, 1-based
  int epoch = 0;           // 1-based
  double trainLoss = 0.0;  // that batch's training loss
  double lr = 0.0;         // the learning rate of that step
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
  void deleteEpochs(std::int64_t runId);  // and the run's steps: it starts again from scratch
  void addSteps(std::int64_t runId, const std::vector<StepRecord>& steps);  // one transaction
  // Several runs with their epochs in one transaction (import).
  void addRunsWithEpochs(std::vector<RunRecord>& runs,
                         const std::vector<std::vector<EpochRecord>>& epochs);

  std::vector<RunRecord> loadRuns() const;  // by id
  std::vector<EpochRecord> loadEpochs(std::int64_t runId) const;
  std::map<std::int64_t, std::vector<EpochRecord>> loadAllEpochs() const;
  // Every run's sampled steps, by run id and step (empty for databases from before the table).
  std::map<std::int64_t, std::vector<StepRecord>> loadAllSteps() const;
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
