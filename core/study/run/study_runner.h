#pragma once
// Runs a study: backends x seeds, each run via nn::train, results committed to a ResultsStore as
// they happen, progress reported through RunnerCallbacks. One scheduler (RunScheduler) hands the
// runs out to this process's thread pool and, with MPI (mpi_study.h), to the workers of other
// ranks (RemoteWorkers); every record goes through one StudyCommitter.

#include <atomic>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "core/nn/trainer.h"
#include "core/study/run/run_events.h"
#include "core/study/run/run_scheduler.h"
#include "core/study/run/run_training.h"
#include "core/study/run/study_committer.h"
#include "core/study/spec/study_spec.h"
#include "core/study/store/results_store.h"

namespace paritylab::study {

struct RunnerSummary {
  int planned = 0;  // backend x seed
  int skipped = 0;  // already completed/diverged in the store (resume)
  int completed = 0, diverged = 0, failed = 0, cancelled = 0;
  int elsewhere = 0;  // run by another process working on the same database (claimed there)
  bool wasCancelled = false;
};

// Workers in other processes that train runs of this study (the MPI ranks other than 0). The
// runner calls start() once the study is planned, then serve() on its own thread for each round
// of runs while its pool trains (a sequential study has several rounds, any other study one), and
// finish() after the last round.
class RemoteWorkers {
 public:
  virtual ~RemoteWorkers() = default;
  // What every worker needs before its first run: the study as adopted, the backbone checkpoint.
  virtual void start(const StudySpec& spec, const std::string& backboneCheckpoint) = 0;
  // Hands the round's runs out from the scheduler and commits what the workers record through
  // the committer; returns once every run was handed out (or the study was cancelled) and every
  // run handed to a worker has ended. Workers that ask for a run meanwhile wait for the next
  // round. reportStoreError: a record could not be committed (StoreError); the runner then
  // cancels.
  virtual void serve(RunScheduler& scheduler, StudyCommitter& committer,
                     const std::atomic<bool>& cancel,
                     const std::function<void(std::exception_ptr)>& reportStoreError) = 0;
  // No round follows: tells every worker there is nothing more to train and returns once every
  // worker has stopped.
  virtual void finish() = 0;
};

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
  // the study then stops; what was committed before stays. remote: workers of other processes
  // sharing the runs (MPI), or null.
  RunnerSummary run(bool resume = false, RemoteWorkers* remote = nullptr);
  void cancel() { cancel_ = true; }  // thread-safe; runs stop within one training step
  bool cancelled() const { return cancel_; }

  std::vector<PlannedRun> plannedRuns() const;
  // Train only this shard's runs (study_shard.h); the database records the shard, and a resumed
  // one must hold the same shard (StoreError otherwise). Default: the whole study.
  void setShard(const StudyShard& shard) { shard_ = shard; }
  // Minimum interval between step events of one run (default 250 ms = 4/s).
  void setStepInterval(double seconds) { stepInterval_ = seconds; }
  // Worker threads of this process, instead of the spec's `threads` (0: the spec's). The spec
  // stored in the database keeps its own value.
  void setThreads(int threads) { threads_ = threads; }
  // With resume: also redo the runs claimed by processes on other hosts, which the runner cannot
  // check are gone (a cluster job killed with its rank 0 on another node). Only when none of them
  // still works on the database.
  void setReclaimOtherHosts(bool reclaim) { reclaimOtherHosts_ = reclaim; }

 private:
  void recordStoreFailure(std::exception_ptr error);  // keeps the first, cancels the study

  StudySpec spec_;
  ResultsStore& store_;
  RunnerCallbacks callbacks_;
  TrainFunction train_;
  std::atomic<bool> cancel_{false};
  double stepInterval_ = 0.25;
  int threads_ = 0;
  bool reclaimOtherHosts_ = false;
  std::string owner_ = processOwnerId();
  StudyShard shard_;
  std::mutex storeErrorMutex_;
  std::exception_ptr storeError_;  // the first failure to record results
};

}  // namespace paritylab::study
