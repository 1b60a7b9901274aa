#include "core/study/run/study_committer.h"

#include <cmath>

namespace paritylab::study {
namespace {

RunStateEvent stateEvent(const RunKey& run, RunState state) {
  RunStateEvent e;
  e.run = run;
  e.state = state;
  return e;
}

}  // namespace

StudyCommitter::StudyCommitter(const StudySpec& spec, ResultsStore& store,
                               const RunnerCallbacks& callbacks, const data::DataSplit* data)
    : spec_(spec), store_(store), callbacks_(callbacks), data_(data) {}

RunKey StudyCommitter::keyOf(const RunJob& job) const {
  return {job.runId, spec_.backends[job.planned.backendIndex].name, job.planned.seed};
}

StudyCommitter::StartedRun StudyCommitter::startedRun(std::int64_t runId) const {
  std::lock_guard lock(mutex_);
  const auto it = started_.find(runId);
  return it != started_.end() ? it->second : StartedRun{{runId, "", 0}, 0};
}

void StudyCommitter::announcePending(const std::vector<RunJob>& jobs) {
  if (!callbacks_.onRunState) return;
  for (const RunJob& job : jobs) callbacks_.onRunState(stateEvent(keyOf(job), RunState::Pending));
}

void StudyCommitter::runStarted(const RunJob& job) {
  const BackendEntry& entry = spec_.backends[job.planned.backendIndex];
  const nn::TrainConfig config = trainConfigFor(spec_, entry);
  const StartedRun run{keyOf(job), data_ ? nn::plannedEpochs(config, *data_) : config.epochs};
  {
    std::lock_guard lock(mutex_);
    started_[job.runId] = run;
  }
  if (callbacks_.onRunState) callbacks_.onRunState(stateEvent(run.key, RunState::Running));
}

void StudyCommitter::cancelledBeforeStart(const std::vector<RunJob>& jobs) {
  for (const RunJob& job : jobs) {
    {
      std::lock_guard lock(mutex_);
      ++outcomes_.cancelled;
    }
    if (callbacks_.onRunState) callbacks_.onRunState(stateEvent(keyOf(job), RunState::Cancelled));
  }
}

void StudyCommitter::addSteps(std::int64_t runId, const std::vector<StepRecord>& steps) {
  store_.addSteps(runId, steps);
}

void StudyCommitter::addEpoch(std::int64_t runId, const EpochRecord& e) {
  store_.addEpoch(runId, e);
  if (!callbacks_.onEpoch) return;
  const StartedRun run = startedRun(runId);
  callbacks_.onEpoch({run.key, e.epoch, run.totalEpochs, e.trainLoss, e.testLoss, e.testAccuracy,
                      e.seconds, e.skippedSteps});
}

void StudyCommitter::addXraySample(std::int64_t runId, const nn::XraySample& sample) {
  store_.addXraySample(runId, sample);
}

void StudyCommitter::addPredictions(std::int64_t runId, const nn::TestPredictions& predictions) {
  store_.addPredictions(runId, predictions);
}

void StudyCommitter::addSample(std::int64_t runId, const nn::TextSample& sample) {
  store_.addSample(runId, sample);
}

void StudyCommitter::addSignals(std::int64_t runId, const std::vector<std::string>& layers,
                                const std::vector<SignalRecord>& steps) {
  store_.addSignals(runId, layers, steps);
  if (!callbacks_.onSignals || steps.empty()) return;
  SignalsEvent event{startedRun(runId).key, {}};
  event.points.reserve(steps.size());
  for (const SignalRecord& r : steps) event.points.push_back(signalPointOf(r));
  callbacks_.onSignals(event);
}

void StudyCommitter::addServing(std::int64_t runId, const std::vector<ServingRecord>& rows) {
  store_.addServing(runId, rows);
}

void StudyCommitter::addWeightSnapshot(std::int64_t runId, int epoch,
                                       const std::vector<stats::LayerWeights>& layers) {
  store_.addWeightSnapshot(runId, epoch, layers);
}

void StudyCommitter::finishRun(const RunRecord& rec) {
  store_.updateRun(rec);
  const StartedRun run = startedRun(rec.id);
  {
    std::lock_guard lock(mutex_);
    switch (rec.status) {
      case RunState::Completed:
        ++outcomes_.completed;
        break;
      case RunState::Diverged:
        ++outcomes_.diverged;
        break;
      case RunState::Failed:
        ++outcomes_.failed;
        break;
      case RunState::Cancelled:
        ++outcomes_.cancelled;
        break;
      case RunState::Pending:
      case RunState::Running:
        break;
    }
    started_.erase(rec.id);
  }
  if (callbacks_.onRunState) {
    callbacks_.onRunState({run.key, rec.status, rec.divergedEpoch, rec.message,
                           std::isnan(rec.finalAccuracy) ? 0.0 : rec.finalAccuracy, rec.wallSeconds,
                           rec.finalTestLoss});
  }
}

RunOutcomes StudyCommitter::outcomes() const {
  std::lock_guard lock(mutex_);
  return outcomes_;
}

}  // namespace paritylab::study
