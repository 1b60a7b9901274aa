#pragma once
// Runs a study: backends x seeds on a thread pool, each run via nn::train, results committed to a
// ResultsStore as they happen, progress reported through RunnerCallbacks.

#include <atomic>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "core/nn/trainer.h"
#include "core/study/results_store.h"
#include "core/study/run_events.h"
#include "core/study/study_shard.h"
#include "core/study/study_spec.h"

namespace paritylab::study {

using TrainFunction =
    std::function<nn::TrainResult(const nn::TrainConfig&, const backends::PrecisionPolicy&,
                                  const data::DataSplit&, const nn::TrainCallbacks&)>;

struct PlannedRun {
  std::size_t backendIndex = 0;  // into spec.backends
  std::uint64_t seed = 0;
};

struct RunnerSummary {
  int planned = 0;  // backend x seed
  int skipped = 0;  // already completed/diverged in the store (resume)
  int completed = 0, diverged = 0, failed = 0, cancelled = 0;
  int elsewhere = 0;  // run by another process working on the same database (claimed there)
  bool wasCancelled = false;
};

// Step-level training loss and learning rate kept per run in the results database: every k-th
// step (steps k, 2k, 3k, ...), k = ceil(plannedSteps / kMaxStoredSteps), so at most 2,000 points
// whatever the run's length; plannedSteps = epochs x ceil(train examples / batch size).
constexpr std::int64_t kMaxStoredSteps = 2000;
std::int64_t stepSamplingInterval(std::int64_t plannedSteps);

// Every run of a study, seed-major (partial results stay balanced across backends): the order the
// runner adds them to the store and the ui lists them before they start.
std::vector<PlannedRun> plannedRunsOf(const StudySpec& spec);
// The same runs in the order workers take them: seed by seed as planned, each seed's costliest
// backend first (a long run left for last would keep one worker busy while the others idle).
std::vector<PlannedRun> costliestFirstRunsOf(const StudySpec& spec);
// The runs of one shard, in plannedRunsOf's order (every run for the whole study): the runs of
// costliestFirstRunsOf are dealt one by one, each to the shard with the least relative cost so far
// (the first such shard on a tie), so the shards take about as long as each other. Depends on the
// spec only: the same on every resume and machine; more seeds keep the earlier runs' shards.
std::vector<PlannedRun> shardRunsOf(const StudySpec& spec, const StudyShard& shard);

class StudyRunner {
 public:
  // The store must stay open while run() works. trainFn defaults to nn::train.
  StudyRunner(StudySpec spec, ResultsStore& store, RunnerCallbacks callbacks = {},
              TrainFunction trainFn = {});

  // Blocks until every run finished or was cancelled. resume = true: keep finished runs
  // (completed/diverged) of the stored study and redo unfinished ones from scratch; the stored
  // spec must then describe the same study, or this spec extend it with more seeds or backends
  // (extendsStudy; the new runs are added and the stored spec replaced), else SpecError. resume =
  // false: the store must hold no study yet (else StoreError: use --resume or another database).
  // Several processes may resume one database at once: each run is claimed atomically, so they
  // split the work (RunnerSummary::elsewhere counts the runs another process did).
  // Throws data::DataError / SpecError before any run starts (also for a backend or seed listed
  // twice). Throws StoreError when the database cannot record the results (e.g. a full disk):
  // the study then stops; what was committed before stays.
  RunnerSummary run(bool resume = false);
  void cancel() { cancel_ = true; }  // thread-safe; runs stop within one training step
  bool cancelled() const { return cancel_; }

  std::vector<PlannedRun> plannedRuns() const;
  // Train only this shard's runs (study_shard.h); the database records the shard, and a resumed
  // one must hold the same shard (StoreError otherwise). Default: the whole study.
  void setShard(const StudyShard& shard) { shard_ = shard; }
  // Minimum interval between step events of one run (default 250 ms = 4/s).
  void setStepInterval(double seconds) { stepInterval_ = seconds; }

 private:
  void pretrainBackbone(const data::DataSplit& shared);
  void runOne(const PlannedRun& planned, std::int64_t runId, const data::DataSplit& data,
              RunnerSummary& summary, std::mutex& summaryMutex);
  void recordStoreFailure(std::exception_ptr error);  // keeps the first, cancels the study

  StudySpec spec_;
  ResultsStore& store_;
  RunnerCallbacks callbacks_;
  TrainFunction train_;
  std::atomic<bool> cancel_{false};
  double stepInterval_ = 0.25;
  std::string backboneCheckpoint_;
  std::string owner_ = processOwnerId();
  StudyShard shard_;
  std::mutex storeErrorMutex_;
  std::exception_ptr storeError_;  // the first failure to record results
};

}  // namespace paritylab::study
