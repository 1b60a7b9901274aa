#include "ui/session/run_data.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace paritylab::ui {

QString ShownRun::label() const {
  if (!seedGiven && !runName.isEmpty()) return QStringLiteral("%1 %2").arg(backend, runName);
  return QStringLiteral("%1 seed %2").arg(backend).arg(seed);
}

double ShownRun::progress() const {
  if (state == study::RunState::Completed) return 1.0;
  if (totalEpochs <= 0) return 0.0;
  if (state == study::RunState::Running && stepsPerEpoch > 0 && currentStep > 0)
    return std::min(1.0, double(currentStep) / double(stepsPerEpoch * totalEpochs));
  return std::min(1.0, double(epoch) / totalEpochs);
}

RunData::RunData(QObject* parent) : QObject(parent) {
  timer_.setSingleShot(true);
  timer_.setInterval(150);
  connect(&timer_, &QTimer::timeout, this, &RunData::flush);
}

int RunData::rowOf(std::int64_t runId) const {
  for (std::size_t i = 0; i < runs_.size(); ++i)
    if (runs_[i].runId == runId) return static_cast<int>(i);
  return -1;
}

QStringList RunData::backends() const {
  QStringList names;
  for (const ShownRun& run : runs_)
    if (!names.contains(run.backend)) names << run.backend;
  return names;
}

std::vector<double> RunData::finalValues(const QString& backend,
                                         study::ComparedMetric metric) const {
  std::vector<double> values;
  for (const ShownRun& run : runs_) {
    if (run.backend != backend || run.state != study::RunState::Completed) continue;
    const double v = study::metricValue(metric, run.finalAccuracy, run.finalTestLoss);
    if (std::isfinite(v)) values.push_back(v);
  }
  return values;
}

std::vector<study::RunRecord> RunData::records() const {
  std::vector<study::RunRecord> out;
  out.reserve(runs_.size());
  for (const ShownRun& r : runs_) {
    study::RunRecord record;
    record.id = r.runId;
    record.backend = r.backend.toStdString();
    record.seed = r.seed;
    record.status = r.state;
    record.finalAccuracy = r.finalAccuracy;
    record.finalTestLoss = r.finalTestLoss;
    out.push_back(record);
  }
  return out;
}

int RunData::completedCount() const {
  int n = 0;
  for (const ShownRun& run : runs_) n += run.state == study::RunState::Completed ? 1 : 0;
  return n;
}

void RunData::setRuns(std::vector<ShownRun> runs, const QString& title) {
  timer_.stop();
  runs_ = std::move(runs);
  title_ = title;
  firstNewRow_ = -1;
  dirty_ = finishedDirty_ = false;
  emit reset();
  emit updated();
  emit runFinished();
}

void RunData::clear(const QString& title) {
  setRuns({}, title);
}

ShownRun& RunData::ensureRun(const study::RunKey& key) {
  const int row = rowOf(key.runId);
  if (row >= 0) return runs_[static_cast<std::size_t>(row)];
  // A planned run listed before the study started takes the database's id.
  for (ShownRun& planned : runs_)
    if (planned.runId < 0 && planned.seed == key.seed &&
        planned.backend == QString::fromStdString(key.backend)) {
      planned.runId = key.runId;
      return planned;
    }
  ShownRun run;
  run.runId = key.runId;
  run.backend = QString::fromStdString(key.backend);
  run.seed = key.seed;
  run.currentLoss = std::numeric_limits<double>::quiet_NaN();
  if (firstNewRow_ < 0) firstNewRow_ = static_cast<int>(runs_.size());
  runs_.push_back(std::move(run));
  return runs_.back();
}

void RunData::upsertRun(const ShownRun& run) {
  const int row = rowOf(run.runId);
  if (row >= 0) {
    runs_[static_cast<std::size_t>(row)] = run;
  } else {
    if (firstNewRow_ < 0) firstNewRow_ = static_cast<int>(runs_.size());
    runs_.push_back(run);
  }
  if (run.finished()) finishedDirty_ = true;
  scheduleFlush();
}

void RunData::applyStep(const study::StepEvent& event) {
  ShownRun& run = ensureRun(event.run);
  run.steps.push_back({event.step, event.loss, event.lr, event.epoch});
  run.currentLoss = event.loss;
  run.currentEpoch = event.epoch;
  run.currentStep = event.step;
  if (event.stepsPerEpoch > 0) run.stepsPerEpoch = event.stepsPerEpoch;
  if (event.totalEpochs > 0) run.totalEpochs = event.totalEpochs;
  if (run.state == study::RunState::Pending) run.state = study::RunState::Running;
  scheduleFlush();
}

void RunData::applyEpoch(const study::EpochEvent& event) {
  ShownRun& run = ensureRun(event.run);
  // An epoch event for an epoch already recorded replaces it (a resumed run repeats its epoch).
  while (!run.epochs.empty() && run.epochs.back().epoch >= event.epoch) run.epochs.pop_back();
  run.epochs.push_back(
      {event.epoch, event.trainLoss, event.testLoss, event.testAccuracy, event.skippedSteps});
  run.epoch = event.epoch;
  run.totalEpochs = event.totalEpochs;
  if (run.stepsPerEpoch > 0)
    run.currentStep = std::max(run.currentStep, event.epoch * run.stepsPerEpoch);
  if (run.state == study::RunState::Pending) run.state = study::RunState::Running;
  scheduleFlush();
}

void RunData::applySignals(const study::SignalsEvent& event) {
  ShownRun& run = ensureRun(event.run);
  if (!event.points.empty())  // steps stored again (a resumed run) replace what was there
    while (!run.warnings.empty() && run.warnings.back().step >= event.points.front().step)
      run.warnings.pop_back();
  run.warnings.insert(run.warnings.end(), event.points.begin(), event.points.end());
  scheduleFlush();
}

void RunData::applyState(const study::RunStateEvent& event) {
  ShownRun& run = ensureRun(event.run);
  const bool restarts =
      (event.state == study::RunState::Running || event.state == study::RunState::Pending) &&
      run.state != study::RunState::Running;
  if (restarts) {
    // (Re)started or queued again: a resumed run redoes everything from scratch (the runner
    // deleted its epochs and steps from the database).
    run.epochs.clear();
    run.steps.clear();
    run.warnings.clear();
    run.epoch = run.currentEpoch = 0;
    run.currentStep = 0;
    run.currentLoss = std::numeric_limits<double>::quiet_NaN();
    run.wallSeconds = 0.0;  // this attempt's own time, not the cancelled attempt's
  }
  run.state = event.state;
  if (run.finished()) run.currentEpoch = 0;
  run.message = QString::fromStdString(event.message);
  if (event.state == study::RunState::Diverged) run.epoch = event.epoch;
  if (event.state == study::RunState::Completed) {
    run.finalAccuracy = event.finalAccuracy;
    run.finalTestLoss = event.finalTestLoss;
  }
  if (event.wallSeconds > 0.0) run.wallSeconds = event.wallSeconds;
  if (run.finished()) finishedDirty_ = true;
  scheduleFlush();
}

void RunData::scheduleFlush() {
  dirty_ = true;
  if (!timer_.isActive()) timer_.start();
}

void RunData::flush() {
  timer_.stop();
  if (firstNewRow_ >= 0) {
    const int first = firstNewRow_;
    firstNewRow_ = -1;
    emit rowsAppended(first, static_cast<int>(runs_.size()) - 1);
  }
  if (dirty_) {
    dirty_ = false;
    emit updated();
  }
  if (finishedDirty_) {
    finishedDirty_ = false;
    emit runFinished();
  }
}

}  // namespace paritylab::ui
