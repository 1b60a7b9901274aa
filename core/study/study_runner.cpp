#include "core/study/study_runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <mutex>
#include <set>

#include "core/study/thread_pool.h"

namespace paritylab::study {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// The dataset's class names, or "0", "1", ... when it has none (issue 13: per-class tables).
std::vector<std::string> classNamesOf(const data::Dataset& set) {
  if (set.classNames.size() == std::size_t(set.numClasses)) return set.classNames;
  std::vector<std::string> names;
  for (int c = 0; c < set.numClasses; ++c) names.push_back(std::to_string(c));
  return names;
}

// The trained parameters (not the batch-norm buffers) as named layers, for a weight snapshot.
std::vector<stats::LayerWeights> trainedWeights(const nn::ParamStore& params) {
  std::vector<stats::LayerWeights> layers;
  for (std::size_t id = 0; id < params.infos().size(); ++id) {
    const nn::ParamInfo& info = params.infos()[id];
    if (info.kind != nn::ParamKind::Weight) continue;
    const float* values = params.master(int(id));
    layers.push_back({info.name, std::vector<float>(values, values + info.size)});
  }
  return layers;
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

// Sorting key of the order workers take runs in: the seed's place, then the costliest first.
std::pair<std::ptrdiff_t, double> runOrderRank(const StudySpec& spec, const PlannedRun& p) {
  const auto seedAt = std::find(spec.seeds.begin(), spec.seeds.end(), p.seed);
  return {seedAt - spec.seeds.begin(), -relativeRunCost(spec, spec.backends[p.backendIndex])};
}

}  // namespace

std::int64_t stepSamplingInterval(std::int64_t plannedSteps) {
  return std::max<std::int64_t>(1, (plannedSteps + kMaxStoredSteps - 1) / kMaxStoredSteps);
}

std::vector<PlannedRun> plannedRunsOf(const StudySpec& spec) {
  std::vector<PlannedRun> out;
  for (std::uint64_t seed : spec.seeds)
    for (std::size_t b = 0; b < spec.backends.size(); ++b) out.push_back({b, seed});
  return out;
}

std::vector<PlannedRun> costliestFirstRunsOf(const StudySpec& spec) {
  std::vector<PlannedRun> runs = plannedRunsOf(spec);
  std::stable_sort(runs.begin(), runs.end(), [&](const PlannedRun& a, const PlannedRun& b) {
    return runOrderRank(spec, a) < runOrderRank(spec, b);
  });
  return runs;
}

std::vector<PlannedRun> shardRunsOf(const StudySpec& spec, const StudyShard& shard) {
  if (shard.whole()) return plannedRunsOf(spec);
  std::set<std::pair<std::size_t, std::uint64_t>> owned;
  std::vector<double> load(std::size_t(shard.count), 0.0);  // relative cost dealt to each shard
  for (const PlannedRun& p : costliestFirstRunsOf(spec)) {
    const auto least = std::min_element(load.begin(), load.end());  // the first on a tie
    *least -= runOrderRank(spec, p).second;                         // += the run's cost
    if (least - load.begin() + 1 == shard.index) owned.insert({p.backendIndex, p.seed});
  }
  std::vector<PlannedRun> out;
  for (const PlannedRun& p : plannedRunsOf(spec))
    if (owned.count({p.backendIndex, p.seed}) != 0) out.push_back(p);
  return out;
}

std::vector<PlannedRun> StudyRunner::plannedRuns() const {
  return plannedRunsOf(spec_);
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

namespace {

// Issue 12.5: a backend or seed listed twice would train and store the same run twice.
void requireDistinctRuns(const StudySpec& spec) {
  std::set<std::string> names;
  for (const BackendEntry& b : spec.backends)
    if (!names.insert(b.name).second)
      throw SpecError("backends: '" + b.name +
                      "' is listed twice (each backend once; give a custom one another \"name\")");
  std::set<std::uint64_t> seeds;
  for (std::uint64_t seed : spec.seeds)
    if (!seeds.insert(seed).second)
      throw SpecError("seeds: " + std::to_string(seed) + " is listed twice");
}

std::string messageOf(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown error";
  }
}

}  // namespace

void StudyRunner::recordStoreFailure(std::exception_ptr error) {
  {
    std::lock_guard lock(storeErrorMutex_);
    if (!storeError_) storeError_ = std::move(error);
  }
  cancel_ = true;  // nothing more can be recorded: stop the other runs
}

RunnerSummary StudyRunner::run(bool resume) {
  RunnerSummary summary;
  requireDistinctRuns(spec_);
  const std::string specJson = studySpecToJson(spec_).dump();
  const bool studySaved = store_.saveStudySpecIfNone(specJson);  // atomic across processes
  if (!studySaved) {
    if (!resume)
      throw StoreError(store_.path() +
                       ": already holds a study; pass --resume to continue it, or use a new "
                       "database");
    StudySpec stored = store_.loadStudySpec();
    nlohmann::json a = studySpecToJson(stored), b = studySpecToJson(spec_);
    a.erase("threads");
    b.erase("threads");
    if (a != b) {
      if (!extendsStudy(stored, spec_))
        throw SpecError(store_.path() +
                        ": the stored study differs from this one (resuming a database needs its "
                        "study, or the same study with more seeds or backends)");
      store_.saveStudySpec(specJson);  // extended: the same study with more seeds/backends
    }
  }

  recordOrCheckShard(store_, shard_, studySaved);

  // Everything that can fail on bad input happens before the first run.
  data::DataSplit data = data::loadDataset(spec_.dataset);
  // Once per study, so that the divergence analysis needs no dataset files (issue 13).
  store_.saveTestSet(data.test.labels, classNamesOf(data.test));

  // Unfinished runs of earlier processes run again (not those another live process works on).
  if (resume) store_.releaseUnfinishedRuns();
  std::map<std::pair<std::string, std::uint64_t>, RunRecord> existing;
  for (const RunRecord& r : store_.loadRuns())
    if (r.source == "emulated") existing[{r.backend, r.seed}] = r;

  std::vector<std::pair<PlannedRun, std::int64_t>> todo;
  for (const PlannedRun& p : shardRunsOf(spec_, shard_)) {
    ++summary.planned;
    const BackendEntry& entry = spec_.backends[p.backendIndex];
    auto it = existing.find({entry.name, p.seed});
    if (it != existing.end() &&
        (it->second.status == RunState::Completed || it->second.status == RunState::Diverged)) {
      ++summary.skipped;
      continue;
    }
    RunRecord r;
    r.backend = entry.name;
    r.policyJson = backends::policyToJson(entry.policy).dump();
    r.seed = p.seed;
    // Pending in the database until a worker claims it (claimRun), here or in another process.
    todo.push_back({p, it != existing.end() ? it->second.id : store_.ensureRun(r)});
  }

  // Every run about to be (re)done is pending from now on (a resumed run starts from scratch).
  if (callbacks_.onRunState)
    for (const auto& [planned, id] : todo)
      callbacks_.onRunState(
          {RunKey{id, spec_.backends[planned.backendIndex].name, planned.seed}, RunState::Pending});

  if (spec_.pretrain && !todo.empty()) pretrainBackbone(data);

  // Seed by seed as planned, but each seed's costliest backend first: a long run left for last
  // would keep one worker busy while the others idle (the quick study's 8-replica tpu-bf16 runs
  // take twice as long as the others).
  std::stable_sort(todo.begin(), todo.end(), [this](const auto& a, const auto& b) {
    return runOrderRank(spec_, a.first) < runOrderRank(spec_, b.first);
  });
  std::mutex summaryMutex;
  {
    ThreadPool pool(
        std::min<int>(spec_.threads > 0 ? spec_.threads : int(std::thread::hardware_concurrency()),
                      std::max<int>(1, int(todo.size()))));
    for (const auto& [planned, id] : todo)
      pool.submit([&, planned = planned, id = id] {
        try {
          runOne(planned, id, data, summary, summaryMutex);
        } catch (const StoreError&) {
          recordStoreFailure(std::current_exception());
        }
      });
    pool.wait();
  }
  if (storeError_)
    throw StoreError(messageOf(storeError_) +
                     " (the study stopped: its results cannot be recorded; runs finished before "
                     "are kept, continue with --resume once the cause is fixed)");
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
  if (cancel_) {  // never started: stays pending in the database (another process may run it)
    {
      std::lock_guard lock(storeErrorMutex_);
      if (storeError_) return;  // not cancelled by anyone: the study stops with the store's error
    }
    rec.status = RunState::Cancelled;
    emitState(rec.status);
    count(&RunnerSummary::cancelled);
    return;
  }
  if (!store_.claimRun(runId, owner_)) {  // another process has it, or finished it meanwhile
    count(&RunnerSummary::elsewhere);
    return;
  }
  nn::TrainConfig config = trainConfigFor(spec_, entry);
  config.seed = planned.seed;
  if (spec_.pretrain) config.initCheckpoint = backboneCheckpoint_;
  rec.status = RunState::Running;
  emitState(rec.status);

  const auto start = Clock::now();
  auto lastStep = Clock::time_point{};
  const std::int64_t trainSize = std::int64_t(data.train.size());
  const std::int64_t stepsPerEpoch = (trainSize + config.batchSize - 1) / config.batchSize;
  const std::int64_t keepEvery = stepSamplingInterval(stepsPerEpoch * config.epochs);
  std::vector<StepRecord> sampled;  // written with each epoch (and when the run ends)
  nn::TrainCallbacks cb;
  cb.shouldCancel = [this] { return cancel_.load(); };
  cb.onStep = [&](int epoch, std::int64_t step, double loss, double lr) {
    if (step % keepEvery == 0) sampled.push_back({step, epoch, loss, lr});
    if (!callbacks_.onStep) return;
    auto now = Clock::now();
    if (std::chrono::duration<double>(now - lastStep).count() < stepInterval_) return;
    lastStep = now;
    callbacks_.onStep({key, epoch, step, loss, lr, stepsPerEpoch, config.epochs});
  };
  const auto writeSteps = [&] {
    store_.addSteps(runId, sampled);
    sampled.clear();
  };
  cb.onEpoch = [&](const nn::EpochMetrics& m) {
    writeSteps();
    store_.addEpoch(runId,
                    {m.epoch, m.trainLoss, m.testLoss, m.testAccuracy, m.seconds, m.skippedSteps});
    rec.epochsDone = m.epoch;
    if (callbacks_.onEpoch)
      callbacks_.onEpoch({key, m.epoch, config.epochs, m.trainLoss, m.testLoss, m.testAccuracy,
                          m.seconds, m.skippedSteps});
  };
  if (config.xrayEverySteps != 0)
    cb.onXray = [&](const nn::XraySample& sample) { store_.addXraySample(runId, sample); };
  // Issue 13: the final test predictions, and the weights as keep_weights says.
  cb.onPredictions = [&](const nn::TestPredictions& p) { store_.addPredictions(runId, p); };
  if (spec_.keepWeights != "none")
    cb.onEpochWeights = [&](int epoch, const nn::ParamStore& params) {
      if (spec_.keepWeights == "final" && epoch != config.epochs) return;
      store_.addWeightSnapshot(runId, epoch, trainedWeights(params));
    };
  try {
    nn::TrainResult r = train_(config, entry.policy, data, cb);
    writeSteps();  // the steps of an epoch cut short (cancelled, diverged)
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
  } catch (const StoreError&) {
    throw;  // the results cannot be recorded: not this run's failure but the study's (run())
  } catch (const std::exception& ex) {
    try {
      writeSteps();  // keep what was measured before the failure
    } catch (const std::exception&) {
    }
    rec.wallSeconds = secondsSince(start);
    rec.status = RunState::Failed;
    rec.message = ex.what();
    count(&RunnerSummary::failed);
  }
  store_.updateRun(rec);
  emitState(rec.status);
}

}  // namespace paritylab::study
