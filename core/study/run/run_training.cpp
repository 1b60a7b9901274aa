#include "core/study/run/run_training.h"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <vector>

#include "core/study/run/run_serving.h"

namespace paritylab::study {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
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

std::int64_t stepSamplingInterval(std::int64_t plannedSteps) {
  return std::max<std::int64_t>(1, (plannedSteps + kMaxStoredSteps - 1) / kMaxStoredSteps);
}

std::string pretrainBackbone(const StudySpec& spec, const std::string& databasePath,
                             const TrainFunction& train, const std::atomic<bool>& cancel) {
  const PretrainStage& p = *spec.pretrain;
  std::string checkpoint = databasePath + ".backbone.ckpt";
  if (std::filesystem::exists(checkpoint)) return checkpoint;  // made by an earlier (resumed) run
  data::DatasetSpec d = spec.dataset;
  d.classes = p.classes;
  data::DataSplit pretrainData = data::loadDataset(d);
  nn::TrainConfig c = spec.train;
  c.epochs = p.epochs;
  c.freezeEpochs = 0;
  c.seed = p.seed;
  c.initCheckpoint.clear();
  std::string tmp = checkpoint + ".part";
  c.saveCheckpoint = tmp;
  nn::TrainCallbacks cb;
  cb.shouldCancel = [&cancel] { return cancel.load(); };
  nn::TrainResult r = train(c, backends::presetPolicy(p.policy), pretrainData, cb);
  if (r.status != nn::RunStatus::Completed) {
    std::filesystem::remove(tmp);
    if (r.status == nn::RunStatus::Cancelled) return "";
    throw std::runtime_error("pretraining stage diverged in epoch " +
                             std::to_string(r.divergedEpoch));
  }
  std::filesystem::rename(tmp, checkpoint);
  return checkpoint;
}

void trainRun(const RunContext& context, const RunJob& job, RunRecorder& recorder) {
  const StudySpec& spec = context.spec;
  const BackendEntry& entry = spec.backends[job.planned.backendIndex];
  const std::int64_t runId = job.runId;
  const RunKey key{runId, entry.name, job.planned.seed};
  RunRecord rec;
  rec.id = runId;
  rec.backend = entry.name;
  rec.seed = job.planned.seed;
  rec.finalTrainLoss = rec.finalTestLoss = rec.finalAccuracy =
      std::numeric_limits<double>::quiet_NaN();
  nn::TrainConfig config = trainConfigFor(spec, entry);
  config.seed = job.planned.seed;
  if (spec.pretrain) config.initCheckpoint = context.backboneCheckpoint;

  const auto start = Clock::now();
  auto lastStep = Clock::time_point{};
  const std::int64_t stepsPerEpoch = nn::stepsPerEpoch(config, context.data);
  const int epochs = nn::plannedEpochs(config, context.data);
  const std::int64_t keepEvery = stepSamplingInterval(nn::plannedSteps(config, context.data));
  std::vector<StepRecord> sampled;  // written with each epoch (and when the run ends)
  nn::TrainCallbacks cb;
  cb.shouldCancel = [&context] { return context.cancel.load(); };
  cb.onStep = [&](int epoch, std::int64_t step, double loss, double lr) {
    if (step % keepEvery == 0) sampled.push_back({step, epoch, loss, lr});
    if (!context.onStep) return;
    auto now = Clock::now();
    if (std::chrono::duration<double>(now - lastStep).count() < context.stepInterval) return;
    lastStep = now;
    context.onStep({key, epoch, step, loss, lr, stepsPerEpoch, epochs});
  };
  // Early warnings, on the steps whose losses are kept (their cost: docs/performance.md).
  config.signalsEverySteps = keepEvery;
  std::vector<std::string> signalLayers;  // the layers of the update ratios
  std::vector<SignalRecord> signals;      // written with the steps
  cb.onSignals = [&](int epoch, std::int64_t step, const nn::StepSignals& s,
                     const std::vector<std::string>& layers) {
    if (signalLayers.empty()) signalLayers = layers;
    signals.push_back(
        {step, epoch, s.gradNorm, s.attentionLogitMax, s.outputLogitNorm, s.updateRatios});
  };
  const auto writeSteps = [&] {
    recorder.addSteps(runId, sampled);
    sampled.clear();
    if (!signals.empty()) recorder.addSignals(runId, signalLayers, signals);
    signals.clear();
  };
  cb.onEpoch = [&](const nn::EpochMetrics& m) {
    writeSteps();
    recorder.addEpoch(
        runId, {m.epoch, m.trainLoss, m.testLoss, m.testAccuracy, m.seconds, m.skippedSteps});
    rec.epochsDone = m.epoch;
  };
  if (config.xrayEverySteps != 0)
    cb.onXray = [&](const nn::XraySample& sample) { recorder.addXraySample(runId, sample); };
  // For the divergence analysis: the final test predictions, and the weights as keep_weights says.
  cb.onPredictions = [&](const nn::TestPredictions& p) { recorder.addPredictions(runId, p); };
  cb.onSample = [&](const nn::TextSample& s) { recorder.addSample(runId, s); };
  if (spec.serve && entry.perturbation == Perturbation::None)
    cb.onFinalModel = [&](nn::TrainingSession& session) {
      recorder.addServing(runId,
                          servingRows(spec, entry, context.data, config.evalBatchSize, session));
    };
  if (spec.keepWeights != "none")
    cb.onEpochWeights = [&](int epoch, const nn::ParamStore& params) {
      if (spec.keepWeights == "final" && epoch != epochs) return;
      recorder.addWeightSnapshot(runId, epoch, trainedWeights(params));
    };
  try {
    nn::TrainResult r = context.train(config, entry.policy, context.data, cb);
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
        break;
      case nn::RunStatus::Diverged:
        rec.status = RunState::Diverged;
        rec.divergedEpoch = r.divergedEpoch;
        rec.message = (r.divergedReason.empty() ? "loss became NaN/inf" : r.divergedReason) +
                      " in epoch " + std::to_string(r.divergedEpoch) + " (step " +
                      std::to_string(r.divergedStep) + ")";
        break;
      case nn::RunStatus::Cancelled:
        rec.status = RunState::Cancelled;
        break;
    }
  } catch (const StoreError&) {
    throw;  // the results cannot be recorded: not this run's failure but the study's
  } catch (const std::exception& ex) {
    try {
      writeSteps();  // keep what was measured before the failure
    } catch (const std::exception&) {
    }
    rec.wallSeconds = secondsSince(start);
    rec.status = RunState::Failed;
    rec.message = ex.what();
  }
  recorder.finishRun(rec);
}

}  // namespace paritylab::study
