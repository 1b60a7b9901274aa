#include "core/study/study_runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <mutex>

#include "core/study/thread_pool.h"

namespace paritylab::study {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

}  // namespace

StudyRunner::StudyRunner(StudySpec spec, ResultsStore& store, RunnerCallbacks callbacks,
                         TrainFunction trainFn)
    : spec_(std::move(spec)),
      store_(store),
      callbacks_(std::move(callbacks)),
      train_(trainFn ? std::move(trainFn) : TrainFunction(&nn::train)) {}

namespace {

// A rough relative cost of one run, only to order the runs of one seed (results never depend on
// the order): epochs, times the products' passes (XLA bf16x3/x6 multiply each product), times the
// replicas' smaller per-shard products, times a little for operand rounding.
double relativeRunCost(const StudySpec& spec, const BackendEntry& entry) {
  const backends::PrecisionPolicy& p = entry.policy;
  const auto passes = [](const backends::GemmPolicy& g) {
    return g.passes == backends::MultiPass::Bf16x6   ? 6.0
           : g.passes == backends::MultiPass::Bf16x3 ? 3.0
                                                     : 1.0;
  };
  const double products = std::max(passes(p.linear.forward), passes(p.conv.forward));
  const bool rounds = p.linear.forward.operands || p.conv.forward.operands;
  return double(trainConfigFor(spec, entry).epochs) * products *
         (1.0 + 0.15 * double(std::max(p.topology.replicas, 1) - 1)) * (rounds ? 1.1 : 1.0);
}

}  // namespace

std::vector<PlannedRun> StudyRunner::plannedRuns() const {
  // Seed-major: partial results stay balanced across backends.
  std::vector<PlannedRun> out;
  for (std::uint64_t seed : spec_.seeds)
    for (std::size_t b = 0; b < spec_.backends.size(); ++b) out.push_back({b, seed});
  return out;
}

void StudyRunner::pretrainBackbone(const data::DataSplit&) {
  const PretrainStage& p = *spec_.pretrain;
  backboneCheckpoint_ = store_.path() + ".backbone.ckpt";
  if (std::filesystem::exists(backboneCheckpoint_)) return;  // made by an earlier (resumed) run
  data::DatasetSpec d = spec_.dataset;
  d.classes = p.classes;
  data::DataSplit pretrainData = data::loadDataset(d);
  nn::TrainConfig c = spec_.train;
  c.epochs = p.epochs;
  c.freezeEpochs = 0;
  c.seed = p.seed;
  c.initCheckpoint.clear();
  std::string tmp = backboneCheckpoint_ + ".part";
  c.saveCheckpoint = tmp;
  nn::TrainCallbacks cb;
  cb.shouldCancel = [this] { return cancel_.load(); };
  nn::TrainResult r = train_(c, backends::presetPolicy(p.policy), pretrainData, cb);
  if (r.status != nn::RunStatus::Completed) {
    std::filesystem::remove(tmp);
    if (r.status == nn::RunStatus::Cancelled) return;
    throw std::runtime_error("pretraining stage diverged in epoch " +
                             std::to_string(r.divergedEpoch));
  }
  std::filesystem::rename(tmp, backboneCheckpoint_);
}

RunnerSummary StudyRunner::run(bool resume) {
  RunnerSummary summary;
  const std::string specJson = studySpecToJson(spec_).dump();
  std::map<std::pair<std::string, std::uint64_t>, RunRecord> existing;
  if (store_.hasStudy()) {
    if (!resume)
      throw StoreError(store_.path() +
                       ": already holds a study; pass --resume to continue it, or use a new "
                       "database");
    StudySpec stored = store_.loadStudySpec();
    nlohmann::json a = studySpecToJson(stored), b = studySpecToJson(spec_);
    a.erase("threads");
    b.erase("threads");
    if (a != b)
      throw SpecError(store_.path() +
                      ": the stored study differs from this one (same database needs the same "
                      "study to resume)");
    for (const RunRecord& r : store_.loadRuns()) existing[{r.backend, r.seed}] = r;
  } else {
    store_.saveStudySpec(specJson);
  }

  // Everything that can fail on bad input happens before the first run.
  data::DataSplit data = data::loadDataset(spec_.dataset);

  std::vector<std::pair<PlannedRun, std::int64_t>> todo;
  for (const PlannedRun& p : plannedRuns()) {
    ++summary.planned;
    const BackendEntry& entry = spec_.backends[p.backendIndex];
    auto it = existing.find({entry.name, p.seed});
    if (it != existing.end()) {
      RunRecord r = it->second;
      if (r.status == RunState::Completed || r.status == RunState::Diverged) {
        ++summary.skipped;
        continue;
      }
      store_.deleteEpochs(r.id);  // an unfinished run starts again from scratch
      store_.deleteXray(r.id);
      RunRecord fresh;
      fresh.id = r.id;
      fresh.backend = r.backend;
      fresh.seed = r.seed;
      fresh.status = RunState::Pending;
      fresh.finalTrainLoss = fresh.finalTestLoss = fresh.finalAccuracy =
          std::numeric_limits<double>::quiet_NaN();
      store_.updateRun(fresh);
      todo.push_back({p, r.id});
      continue;
    }
    RunRecord r;
    r.backend = entry.name;
    r.policyJson = backends::policyToJson(entry.policy).dump();
    r.seed = p.seed;
    r.finalTrainLoss = r.finalTestLoss = r.finalAccuracy = std::numeric_limits<double>::quiet_NaN();
    todo.push_back({p, store_.addRun(r)});
  }

  if (spec_.pretrain && !todo.empty()) pretrainBackbone(data);

  // Seed by seed as planned, but each seed's costliest backend first: a long run left for last
  // would keep one worker busy while the others idle (the quick study's 8-replica tpu-bf16 runs
  // take twice as long as the others).
  std::stable_sort(todo.begin(), todo.end(), [this](const auto& a, const auto& b) {
    const auto rank = [this](const PlannedRun& p) {
      const auto seedAt = std::find(spec_.seeds.begin(), spec_.seeds.end(), p.seed);
      return std::make_pair(seedAt - spec_.seeds.begin(),
                            -relativeRunCost(spec_, spec_.backends[p.backendIndex]));
    };
    return rank(a.first) < rank(b.first);
  });
  std::mutex summaryMutex;
  {
    ThreadPool pool(
        std::min<int>(spec_.threads > 0 ? spec_.threads : int(std::thread::hardware_concurrency()),
                      std::max<int>(1, int(todo.size()))));
    for (const auto& [planned, id] : todo)
      pool.submit(
          [&, planned = planned, id = id] { runOne(planned, id, data, summary, summaryMutex); });
    pool.wait();
  }
  summary.wasCancelled = cancel_;
  if (callbacks_.onStudyFinished) callbacks_.onStudyFinished();
  return summary;
}

void StudyRunner::runOne(const PlannedRun& planned, std::int64_t runId, const data::DataSplit& data,
                         RunnerSummary& summary, std::mutex& summaryMutex) {
  const BackendEntry& entry = spec_.backends[planned.backendIndex];
  RunKey key{runId, entry.name, planned.seed};
  RunRecord rec;
  rec.id = runId;
  rec.backend = entry.name;
  rec.seed = planned.seed;
  rec.finalTrainLoss = rec.finalTestLoss = rec.finalAccuracy =
      std::numeric_limits<double>::quiet_NaN();
  auto emitState = [&](RunState s) {
    if (callbacks_.onRunState)
      callbacks_.onRunState({key, s, rec.divergedEpoch, rec.message,
                             std::isnan(rec.finalAccuracy) ? 0.0 : rec.finalAccuracy,
                             rec.wallSeconds});
  };
  auto count = [&](int RunnerSummary::*field) {
    std::lock_guard lock(summaryMutex);
    ++(summary.*field);
  };
  if (cancel_) {
    rec.status = RunState::Cancelled;
    store_.updateRun(rec);
    emitState(rec.status);
    count(&RunnerSummary::cancelled);
    return;
  }
  nn::TrainConfig config = trainConfigFor(spec_, entry);
  config.seed = planned.seed;
  if (spec_.pretrain) config.initCheckpoint = backboneCheckpoint_;
  rec.status = RunState::Running;
  store_.updateRun(rec);
  emitState(rec.status);

  const auto start = Clock::now();
  auto lastStep = Clock::time_point{};
  nn::TrainCallbacks cb;
  cb.shouldCancel = [this] { return cancel_.load(); };
  cb.onStep = [&](int epoch, std::int64_t step, double loss) {
    if (!callbacks_.onStep) return;
    auto now = Clock::now();
    if (std::chrono::duration<double>(now - lastStep).count() < stepInterval_) return;
    lastStep = now;
    callbacks_.onStep({key, epoch, step, loss});
  };
  cb.onEpoch = [&](const nn::EpochMetrics& m) {
    store_.addEpoch(runId,
                    {m.epoch, m.trainLoss, m.testLoss, m.testAccuracy, m.seconds, m.skippedSteps});
    rec.epochsDone = m.epoch;
    if (callbacks_.onEpoch)
      callbacks_.onEpoch({key, m.epoch, config.epochs, m.trainLoss, m.testLoss, m.testAccuracy,
                          m.seconds, m.skippedSteps});
  };
  if (config.xrayEverySteps != 0)
    cb.onXray = [&](const nn::XraySample& sample) { store_.addXraySample(runId, sample); };
  try {
    nn::TrainResult r = train_(config, entry.policy, data, cb);
    rec.wallSeconds = secondsSince(start);
    rec.epochsDone = int(r.epochs.size());
    if (!r.epochs.empty()) {
      rec.finalTrainLoss = r.epochs.back().trainLoss;
      rec.finalTestLoss = r.epochs.back().testLoss;
      rec.finalAccuracy = r.epochs.back().testAccuracy;
    }
    switch (r.status) {
      case nn::RunStatus::Completed:
        rec.status = RunState::Completed;
        count(&RunnerSummary::completed);
        break;
      case nn::RunStatus::Diverged:
        rec.status = RunState::Diverged;
        rec.divergedEpoch = r.divergedEpoch;
        rec.message = (r.divergedReason.empty() ? "loss became NaN/inf" : r.divergedReason) +
                      " in epoch " + std::to_string(r.divergedEpoch) + " (step " +
                      std::to_string(r.divergedStep) + ")";
        count(&RunnerSummary::diverged);
        break;
      case nn::RunStatus::Cancelled:
        rec.status = RunState::Cancelled;
        count(&RunnerSummary::cancelled);
        break;
    }
  } catch (const std::exception& ex) {
    rec.wallSeconds = secondsSince(start);
    rec.status = RunState::Failed;
    rec.message = ex.what();
    count(&RunnerSummary::failed);
  }
  store_.updateRun(rec);
  emitState(rec.status);
}

}  // namespace paritylab::study
