#pragma once
// SQLite results database (WAL). Tables: study (spec JSON, software version, created), runs,
// epochs, steps (sampled training loss and learning rate), xray, test_set, predictions,
// weights, samples, signals, signal_layers, serving and lockstep (schema and its versions:
// results_schema.h).
// Every write is its own transaction, so a killed process loses at most the epochs in progress. A
// run is unique in the database: an emulated one by (backend, seed), an imported one by (backend,
// source run name). Several processes may work on one database: runs are claimed atomically
// (claimRun). Readers open it read-only and never change the file. All methods are thread-safe (one
// connection, serialized by a mutex).

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/nn/lockstep.h"
#include "core/nn/test_predictions.h"
#include "core/nn/text_generation.h"
#include "core/stats/weight_divergence.h"
#include "core/study/spec/study_spec.h"
#include "core/study/store/process_owner.h"
#include "core/study/store/run_state.h"
#include "core/study/store/store_error.h"

struct sqlite3;

namespace paritylab::study {

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
  std::string message;              // failed: why; imported: the source run's identity
  std::string source = "emulated";  // "emulated" | "imported"
  std::string runName;              // imported: the run's name in the source (e.g. "prod_42")
  bool seedGiven = true;            // imported: false when the source has no seed (then 0..n-1)
};

struct EpochRecord {
  int epoch = 0;                                               // 1-based
  double trainLoss = 0.0, testLoss = 0.0, testAccuracy = 0.0;  // accuracy: fraction; NaN unknown
  double seconds = 0.0;
  int skippedSteps = 0;  // loss scaling: optimizer steps skipped on inf/NaN in this epoch
};

// One sampled training step (table `steps`): a run keeps every k-th step, k = ceil(T / 2000) for
// T planned steps, so at most 2,000 points (docs/study-spec.md).
struct StepRecord {
  std::int64_t step = 0;   // global step since the run started, 1-based
  int epoch = 0;           // 1-based
  double trainLoss = 0.0;  // that batch's training loss
  double lr = 0.0;         // the learning rate of that step
};

// One X-ray record of a run: one operand of one product site at one sampled step.
struct XrayRow {
  std::int64_t runId = 0;
  std::int64_t step = 0;  // global training step (0-based, as the X-ray samples it)
  int epoch = 0;          // 1-based
  std::string site, operand, format;
  numerics::TensorXray xray;
};

// The early warnings of one sampled training step (table `signals`, schema version 8), as
// nn::StepSignals measured them; NaN where a signal does not apply (no attention) or is unknown.
struct SignalRecord {
  std::int64_t step = 0;  // 1-based, the step numbers of StepRecord
  int epoch = 0;          // 1-based
  double gradNorm = std::numeric_limits<double>::quiet_NaN();
  double attentionLogitMax = std::numeric_limits<double>::quiet_NaN();
  double outputLogitNorm = std::numeric_limits<double>::quiet_NaN();
  std::vector<float> updateRatios;  // [layers]: one per name of the run's RunSignals::layers
};

// A run's early warnings: the layers its update ratios are of, and its sampled steps in order.
struct RunSignals {
  std::vector<std::string> layers;
  std::vector<SignalRecord> steps;
};

// A finished run's model served otherwise (table `serving`, schema version 9): its test answers
// as trained against the same parameters served by backend `servedBy` in batches of `batchSize`
// (nn/serving_comparison.h). Served by its own backend in batches of 1: batch invariance.
struct ServingRecord {
  std::string servedBy;  // a backend entry of the study
  int batchSize = 0;
  std::int64_t predictions = 0, flips = 0;
  double meanAbsLogProbChange = 0.0, meanKl = 0.0;  // nats
  double accuracy = 0.0;                            // the served answers', fraction
};

// A lockstep comparison kept with the study (table `lockstep`, schema version 10; the spec's
// "lockstep"): one per mode, the backend and the reference side by side from `seed`'s start.
struct LockstepRecord {
  std::string mode;  // "resync" | "free" (nn::parseLockstepMode)
  std::string backend, reference;
  std::uint64_t seed = 0;
  double tolerance = 0.01;
  nn::LockstepResult result;
};

class ResultsStore {
 public:
  // Opens for writing, or creates (create = true); an older schema is migrated. create = false:
  // the file must exist. Throws StoreError naming the file when it is not a ParityLab database or
  // is damaged (a missing table is reported, never recreated).
  // `path` must name a plain file (requireDatabaseFilePath): SQLite's in-memory and temporary
  // databases would take the results with them when closed.
  static std::unique_ptr<ResultsStore> open(const std::string& path, bool create = false);
  // Opens for reading only (report, stats, viewing): never changes the file, works on a read-only
  // file or in a read-only directory, reads databases of every schema version.
  static std::unique_ptr<ResultsStore> openReadOnly(const std::string& path);
  ~ResultsStore();
  ResultsStore(const ResultsStore&) = delete;
  ResultsStore& operator=(const ResultsStore&) = delete;

  const std::string& path() const { return path_; }
  bool hasStudy() const;
  void saveStudySpec(const std::string& specJson);  // replaces; records PARITYLAB_VERSION
  // Saves the spec unless the database holds a study already (atomic); true when it saved.
  bool saveStudySpecIfNone(const std::string& specJson);
  std::string loadStudySpecJson() const;  // "" when none
  StudySpec loadStudySpec() const;        // throws StoreError when none
  std::string softwareVersion() const;

  // Caps the file's size for this connection (SQLite max_page_count, pages of 4 KiB): writes
  // beyond it fail with "database or disk is full", as on a full disk. Tests use it.
  void setMaxPageCount(std::int64_t pages);

  // What opening changed that a user should know (a schema migration's notes); usually empty.
  const std::vector<std::string>& openNotes() const { return openNotes_; }

  std::int64_t addRun(const RunRecord& run);  // returns the id; StoreError if already present
  // The id of the emulated run (backend, seed), inserting it as pending when absent (atomic).
  std::int64_t ensureRun(const RunRecord& run);
  // Claims a pending run for `owner` (see processOwnerId): sets it running and clears what an
  // earlier attempt left. True when this caller got it; false when another process has it or it
  // is finished. Atomic across processes.
  // Clears epochs, steps, xray, predictions and weights.
  bool claimRun(std::int64_t runId, const std::string& owner);
  // Sets unfinished emulated runs back to pending so that they run again: failed and cancelled
  // ones, and running ones whose owner is gone (same host, process no longer alive, or no owner
  // recorded). Runs of a live process are left alone. Returns how many were released.
  // otherHostsGone: the caller knows that no process on another host works on the database any
  // more (a killed cluster job's rank 0 ran there): their running runs are released too.
  int releaseUnfinishedRuns(bool otherHostsGone = false);
  void updateRun(const RunRecord& run);  // by run.id
  void setRunStatus(std::int64_t runId, RunState state);
  void addEpoch(std::int64_t runId, const EpochRecord& epoch);
  // And the run's steps, X-ray samples, predictions and weights: it starts again from scratch.
  void deleteEpochs(std::int64_t runId);
  void addSteps(std::int64_t runId, const std::vector<StepRecord>& steps);  // one transaction
  // Several runs with their epochs in one transaction (import). A run whose identity is already
  // stored (the same file imported again) is skipped and keeps id 0; returns how many were added.
  int addRunsWithEpochs(std::vector<RunRecord>& runs,
                        const std::vector<std::vector<EpochRecord>>& epochs);

  // X-ray samples (table xray, schema version 5: per run, site, operand and step; counts as
  // measured, so the fractions are recomputed exactly). One transaction per sample. runId 0:
  // every run; rows by run, then as recorded. A database of an older schema opened read-only has
  // no xray table: no rows.
  void addXraySample(std::int64_t runId, const nn::XraySample& sample);
  std::vector<XrayRow> loadXray(std::int64_t runId = 0) const;

  // Schema version 6: what the divergence analysis reads, so that nothing must be
  // retrained or reloaded to analyse a study. A database of an older schema opened read-only has
  // none of these tables: nothing stored (nullopt, empty maps).
  //
  // The study's test set, once: the true class of each example and the dataset's class names.
  // Saving the same test set again changes nothing; a different one throws StoreError naming the
  // file (the dataset changed under the study, and the stored predictions would not match it).
  void saveTestSet(const std::vector<std::int32_t>& labels,
                   const std::vector<std::string>& classNames);
  struct TestSet {
    std::vector<std::int32_t> labels;     // [test examples]
    std::vector<std::string> classNames;  // [classes]
  };
  std::optional<TestSet> loadTestSet() const;
  // A finished run's test predictions (replaces). Stored compactly (results_blobs.h): classes as
  // uint16 and the true-class probability quantized to uint16, so loaded probabilities are within
  // 7.7e-6 of the computed ones; predicted classes are exact.
  void addPredictions(std::int64_t runId, const nn::TestPredictions& predictions);
  std::map<std::int64_t, nn::TestPredictions> loadPredictions() const;  // by run id
  // One epoch's weights of a run (1-based epoch, replaces): each layer's float32 values, exact.
  void addWeightSnapshot(std::int64_t runId, int epoch,
                         const std::vector<stats::LayerWeights>& layers);
  // A language-model run's sample (replaces); all of them by run id (empty: none, or a database
  // from before samples were kept).
  void addSample(std::int64_t runId, const nn::TextSample& sample);
  std::map<std::int64_t, nn::TextSample> loadSamples() const;
  // Early warnings of sampled steps (one transaction; a step stored again replaces). `layers`
  // names the update ratios of every record (each must have one per layer, else
  // std::invalid_argument) and replaces the run's names when they differ. All runs' by run id;
  // empty for a database from before schema version 8.
  void addSignals(std::int64_t runId, const std::vector<std::string>& layers,
                  const std::vector<SignalRecord>& steps);
  std::map<std::int64_t, RunSignals> loadAllSignals() const;
  // A run's model served by other backends (replaces rows of the same backend and batch size);
  // all runs' by run id, empty for a database from before schema version 9.
  void addServing(std::int64_t runId, const std::vector<ServingRecord>& rows);
  std::map<std::int64_t, std::vector<ServingRecord>> loadAllServing() const;
  // Replaces the record of its mode. Loaded in mode order ("resync" before "free"); a record
  // that does not read back is damage (StoreError naming the mode).
  void saveLockstep(const LockstepRecord& record);
  std::vector<LockstepRecord> loadLockstep() const;
  // True when any run has stored predictions or weight snapshots (what the divergence analysis
  // reads); one query, whatever the number of runs.
  bool holdsPredictionsOrWeights() const;
  // A run's snapshots by epoch, layers in the order added (empty: none kept).
  std::map<int, std::vector<stats::LayerWeights>> loadWeightSnapshots(std::int64_t runId) const;

  // Values of the paritylab_meta table ("" when absent), e.g. "shard" (study_shard.h). Setting ""
  // removes the key.
  std::string metaValue(const std::string& key) const;
  void setMetaValue(const std::string& key, const std::string& value);
  // SQLite's quick_check of the file: "" when sound, else its first finding (a truncated or
  // damaged file).
  std::string damage() const;
  // The owner (claimed_by, "host:pid") of every run with status running, by run id; empty for a
  // database from before claims were recorded (schema version 1).
  std::map<std::int64_t, std::string> runningOwners() const;

  // Copies the runs `sourceRunIds` of `source` into this database with every row of theirs (every
  // table with a run_id column: epochs, steps, xray and any later table), in one transaction; the
  // copies get new ids and no owner. `replaceRunIds` (runs of this database) are deleted first,
  // with their rows. Throws StoreError when `source` has a table or column this database cannot
  // store (written by a newer ParityLab) or a copy collides with a run already here.
  void copyRunsFrom(const ResultsStore& source, const std::vector<std::int64_t>& sourceRunIds,
                    const std::vector<std::int64_t>& replaceRunIds);

  // Writes a consistent copy of the whole database (committed rows, including those still in its
  // -wal file) to a new file `path`, or an empty one made for it (DatabaseBuild's); a `path` that
  // holds anything is refused, never replaced. Throws StoreError naming both.
  void copyDatabaseTo(const std::string& path) const;

  std::vector<RunRecord> loadRuns() const;  // by id
  std::vector<EpochRecord> loadEpochs(std::int64_t runId) const;
  std::map<std::int64_t, std::vector<EpochRecord>> loadAllEpochs() const;
  // Every run's sampled steps, by run id and step (empty for databases from before the table).
  std::map<std::int64_t, std::vector<StepRecord>> loadAllSteps() const;

 private:
  explicit ResultsStore(std::string path);
  void exec(const char* sql) const;
  void checkIsParityLab(bool create);            // throws unless ParityLab's (or empty and create)
  std::int64_t insertRun(const RunRecord& run);  // mutex held
  bool hasTable(const char* name) const;         // mutex held
  // On opening: references and uniqueness (checkStoredReferences), emulated runs' backends listed
  // by the stored study. Throws StoreError "FILE: damaged database: ...".
  void checkConsistency() const;
  template <typename Body>
  auto transaction(Body&& body);  // BEGIN IMMEDIATE ... COMMIT, rolled back on any exception
  std::string path_;
  sqlite3* db_ = nullptr;
  int schemaVersion_ = 0;
  std::vector<std::string> openNotes_;
  mutable std::mutex mutex_;
};

// Throws StoreError unless `path` names a plain file a results database can be written to: not ""
// (SQLite's private temporary database), ":memory:" or an SQLite URI ("file:x.db?mode=memory"),
// all of which SQLite accepts and throws away with the results when closed, and not an existing
// directory, device or pipe. `what` names the path in the message ("--db" on the command line):
//   "--db: ':memory:' is not a plain file path (...)".
void requireDatabaseFilePath(const std::string& path, const std::string& what = "results database");

// Deletes the database `path` (and its -wal and -shm files) when it holds no results: only
// planned emulated runs (none claimed, imported or with a recorded epoch) and no epochs. What a
// command that created the database leaves when it fails before recording anything (a refused
// study, a failed import) is not left behind as an empty database; a run claimed meanwhile by
// another process keeps it. True when it deleted. No connection to it may be open.
bool removeDatabaseWithoutResults(const std::string& path);

}  // namespace paritylab::study
