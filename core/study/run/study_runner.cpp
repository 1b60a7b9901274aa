#include "core/study/run/study_runner.h"

#include <algorithm>
#include <thread>

#include "core/data/text_corpus.h"
#include "core/data/text_split.h"
#include "core/study/analysis/sequential_analysis.h"
#include "core/study/run/run_lockstep.h"
#include "core/study/run/thread_pool.h"

namespace paritylab::study {
namespace {

std::string messageOf(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown error";
  }
}

// The dataset's class names, or "0", "1", ... when it has none (for the per-class tables).
std::vector<std::string> classNamesOf(const data::Dataset& set) {
  if (set.classNames.size() == std::size_t(set.numClasses)) return set.classNames;
  std::vector<std::string> names;
  for (int c = 0; c < set.numClasses; ++c) names.push_back(std::to_string(c));
  return names;
}

}  // namespace

StudyRunner::StudyRunner(StudySpec spec, ResultsStore& store, RunnerCallbacks callbacks,
                         TrainFunction trainFn)
    : spec_(std::move(spec)),
      store_(store),
      callbacks_(std::move(callbacks)),
      train_(trainFn ? std::move(trainFn) : TrainFunction(&nn::train)) {}

std::vector<PlannedRun> StudyRunner::plannedRuns() const {
  return plannedRunsOf(spec_);
}

void StudyRunner::recordStoreFailure(std::exception_ptr error) {
  {
    std::lock_guard lock(storeErrorMutex_);
    if (!storeError_) storeError_ = std::move(error);
  }
  cancel_ = true;  // nothing more can be recorded: stop the other runs
}

RunnerSummary StudyRunner::run(bool resume, RemoteWorkers* remote) {
  requireDistinctRuns(spec_);
  if (spec_.sequential && !shard_.whole())
    throw SpecError(
        "sequential: a study that looks at its runs between rounds cannot be split into shards "
        "(a shard cannot see the other shards' runs to know when to stop); train it in one "
        "process or on MPI ranks",
        "sequential");
  RunScheduler scheduler(spec_, store_, owner_, shard_);
  scheduler.adoptSpec(resume);
  // Everything that can fail on bad input happens before the first run.
  data::DataSplit data = data::loadDataset(spec_.dataset);
  // A prompt the text cannot spell is refused now, not after the first run trained.
  if (data.text && spec_.train.sampling.length > 0)
    data::encodeText(data.text->corpus, spec_.train.sampling.prompt, "samples.prompt");
  // Once per study, so that the divergence analysis needs no dataset files.
  store_.saveTestSet(data.test.labels, classNamesOf(data.test));
  // A sequential study trains the seeds its next look needs, round by round, until a look
  // decides; any other study is one round of every seed.
  const auto nextRound = [this]() -> std::optional<std::size_t> {
    if (!spec_.sequential) return SIZE_MAX;
    return seedsForNextLook(analyseSequential(spec_, store_.loadRuns()));
  };
  std::optional<std::size_t> seeds = nextRound();
  scheduler.setSeedLimit(seeds.value_or(0));
  scheduler.planRuns(resume, reclaimOtherHosts_);
  const int skipped = scheduler.skipped();

  StudyCommitter committer(spec_, store_, callbacks_, &data);
  RunContext context{spec_, data, train_, cancel_, {}, callbacks_.onStep, stepInterval_};
  if (spec_.pretrain && !scheduler.todo().empty())
    context.backboneCheckpoint = pretrainBackbone(spec_, store_.path(), train_, cancel_);
  // The lockstep comparisons first: when and where the backends part is known before the runs
  // end. The first shard (or the whole study) runs them.
  if (spec_.lockstep && shard_.index == 1) {
    runStudyLockstep(spec_, data, store_, cancel_, [this](const LockstepRecord& r) {
      if (callbacks_.onLockstepStored) callbacks_.onLockstepStored(r.mode);
    });
  }
  if (remote) remote->start(spec_, context.backboneCheckpoint);

  // Every worker thread asks the scheduler for the next run until none is left.
  const auto work = [&] {
    try {
      while (std::optional<RunJob> job = scheduler.next(cancel_)) {
        committer.runStarted(*job);
        trainRun(context, *job, committer);
      }
    } catch (const StoreError&) {
      recordStoreFailure(std::current_exception());
    }
  };
  while (seeds) {
    committer.announcePending(scheduler.todo());
    const int wanted = threads_ > 0        ? threads_
                       : spec_.threads > 0 ? spec_.threads
                                           : int(std::thread::hardware_concurrency());
    const int threads = std::min<int>(wanted, std::max<int>(1, int(scheduler.todo().size())));
    ThreadPool pool(threads);
    for (int i = 0; i < threads; ++i) pool.submit(work);
    if (remote)
      remote->serve(scheduler, committer, cancel_,
                    [this](std::exception_ptr e) { recordStoreFailure(std::move(e)); });
    pool.wait();
    if (storeError_ || cancel_ || !spec_.sequential) break;
    const std::optional<std::size_t> more = nextRound();
    if (!more || *more <= *seeds) break;  // decided, or the runs of this round did not end
    seeds = more;
    scheduler.setSeedLimit(*seeds);
    scheduler.planRuns(true, false);
  }
  if (remote) remote->finish();
  if (storeError_) {
    throw StoreError(messageOf(storeError_) +
                     " (the study stopped: its results cannot be recorded; runs finished before "
                     "are kept, continue with --resume once the cause is fixed)");
  }
  // Never started: they stay pending in the database (another process may run them).
  committer.cancelledBeforeStart(scheduler.remaining());

  RunnerSummary summary;
  summary.planned = scheduler.planned();
  summary.skipped = skipped;
  summary.elsewhere = scheduler.elsewhere();
  const RunOutcomes outcomes = committer.outcomes();
  summary.completed = outcomes.completed;
  summary.diverged = outcomes.diverged;
  summary.failed = outcomes.failed;
  summary.cancelled = outcomes.cancelled;
  summary.wasCancelled = cancel_;
  if (callbacks_.onStudyFinished) callbacks_.onStudyFinished();
  return summary;
}

}  // namespace paritylab::study
