#pragma once
// The one scheduler of a study, whatever carries the runs out (the thread pool of
// StudyRunner, or MPI ranks asking rank 0 for work): it adopts the study into the results
// database, plans its runs (plannedRunsOf), skips the finished ones, orders the rest (seed by
// seed, each seed's costliest backend first) and hands them out one at a time, each claimed
// atomically in the database before it is handed out.

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/study/run/study_shard.h"
#include "core/study/spec/study_spec.h"
#include "core/study/store/results_store.h"

namespace paritylab::study {

struct PlannedRun {
  std::size_t backendIndex = 0;  // into spec.backends
  std::uint64_t seed = 0;
};

// Every run of a study, seed-major (partial results stay balanced across backends): the order the
// runner adds them to the store and the ui lists them before they start.
std::vector<PlannedRun> plannedRunsOf(const StudySpec& spec);
// The runs a study trains before it first looks at them: a sequential study's first round (the
// seeds of its first look), every run of any other study.
std::vector<PlannedRun> firstRoundRunsOf(const StudySpec& spec);
// The same runs in the order workers take them: seed by seed as planned, each seed's costliest
// backend first (a long run left for last would keep one worker busy while the others idle).
std::vector<PlannedRun> costliestFirstRunsOf(const StudySpec& spec);
// The runs of one shard, in plannedRunsOf's order (every run for the whole study):
// the runs of costliestFirstRunsOf are dealt one by one, each to the shard with the least relative
// cost so far (the first such shard on a tie), so the shards take about as long as each other.
// Depends on the spec only: the same on every resume and machine; more seeds keep the earlier
// runs' shards.
std::vector<PlannedRun> shardRunsOf(const StudySpec& spec, const StudyShard& shard);

// One run to train: what to train and its id in the results database.
struct RunJob {
  PlannedRun planned;
  std::int64_t runId = 0;
};

// A backend or seed listed twice would train and store the same run twice. Throws
// SpecError naming it.
void requireDistinctRuns(const StudySpec& spec);

class RunScheduler {
 public:
  // The store must stay open while the scheduler is used; `owner` claims the runs (processOwnerId).
  // shard: plan only that share of the study (default: the whole study).
  RunScheduler(const StudySpec& spec, ResultsStore& store, std::string owner,
               StudyShard shard = {});

  // Saves the spec into a new database, or (resume) checks it against the stored one: the same
  // study, or the same with more seeds or backends (the stored spec is then replaced). Throws
  // StoreError (a study is stored and resume is false) or SpecError (a different study).
  // Records the shard in a new database, or checks a resumed one holds the same (StoreError).
  // Throws SpecError, before anything is stored, when the spec would not read back.
  void adoptSpec(bool resume);
  // Lists the runs to do: resume releases the unfinished runs of earlier processes first (with
  // reclaim, also those claimed on other hosts: ResultsStore::releaseUnfinishedRuns); every
  // planned run not completed or diverged is added to the store as pending (when absent) and
  // queued, seed by seed, each seed's costliest backend first.
  void planRuns(bool resume, bool reclaim = false);
  // Plan only the runs of the study's first `seeds` seeds (a sequential study's rounds); by
  // default every seed.
  void setSeedLimit(std::size_t seeds) { seedLimit_ = seeds; }

  const std::vector<RunJob>& todo() const { return todo_; }
  int planned() const { return planned_; }
  int skipped() const { return skipped_; }  // already completed/diverged in the store
  int elsewhere() const;                    // claimed by another process meanwhile

  // The next run, claimed in the store for this owner; none once every run was handed out or
  // when cancel is set. Thread-safe. Throws StoreError when the claim cannot be written.
  std::optional<RunJob> next(const std::atomic<bool>& cancel);
  // The runs never handed out (after a cancel): they stay pending in the store.
  std::vector<RunJob> remaining() const;
  // Every planned run was handed out (or found claimed elsewhere). Thread-safe.
  bool handedOutAll() const;

 private:
  const StudySpec& spec_;
  ResultsStore& store_;
  void checkStoredSpec(bool resume, const std::string& specJson);

  std::string owner_;
  StudyShard shard_;
  std::vector<RunJob> todo_;
  int planned_ = 0, skipped_ = 0, elsewhere_ = 0;
  std::size_t nextIndex_ = 0;
  std::size_t seedLimit_ = SIZE_MAX;
  mutable std::mutex mutex_;
};

}  // namespace paritylab::study
