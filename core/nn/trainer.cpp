#include "core/nn/trainer.h"

#include <chrono>
#include <cmath>
#include <stdexcept>

#include "core/data/text_split.h"
#include "core/data/text_windows.h"
#include "core/nn/checkpoint.h"
#include "core/nn/lr_schedule.h"
#include "core/nn/run_start.h"
#include "core/nn/text_generation.h"
#include "core/nn/training_batches.h"
#include "core/nn/training_choices.h"
#include "core/nn/training_session.h"

namespace paritylab::nn {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

EvalOutcome evaluate(TrainingSession& session, const data::DataSplit& data, int batchSize,
                     TestPredictions* predictions) {
  if (!data.text) return session.evaluate(data.test, batchSize, predictions);
  const data::TextSplit& text = *data.text;
  return session.evaluate(text.validationInputs.data(), text.validationTargets.data(),
                          text.validationWindows(), batchSize, predictions);
}

}  // namespace

void validateTrainConfig(const TrainConfig& c, const data::DataSplit& data) {
  if (c.epochs < 0)
    throw std::invalid_argument("epochs must be >= 0, got " + std::to_string(c.epochs));
  if (c.steps < 0)
    throw std::invalid_argument("steps must be >= 0, got " + std::to_string(c.steps));
  if (c.batchSize < 1)
    throw std::invalid_argument("batchSize must be >= 1, got " + std::to_string(c.batchSize));
  if (c.evalBatchSize < 1)
    throw std::invalid_argument("evalBatchSize must be >= 1, got " +
                                std::to_string(c.evalBatchSize));
  if (c.gradClipNorm < 0)
    throw std::invalid_argument("gradClipNorm must be >= 0, got " + std::to_string(c.gradClipNorm));
  if (c.freezeEpochs < 0)
    throw std::invalid_argument("freezeEpochs must be >= 0, got " + std::to_string(c.freezeEpochs));
  if (isLanguageModel(c.model) != bool(data.text))
    throw std::invalid_argument("model '" + c.model + "' " +
                                (data.text ? "is an image classifier, the data is text"
                                           : "is a language model, the data is images (its "
                                             "dataset must be \"text:FILE\")"));
  if (data.text) {
    if (data.text->blockSize != c.gpt.blockSize)
      throw std::invalid_argument("the text's windows are " + std::to_string(data.text->blockSize) +
                                  " tokens, the model's block size " +
                                  std::to_string(c.gpt.blockSize));
    if (c.freezeEpochs > 0)
      throw std::invalid_argument("freezeEpochs applies to image classifiers, not to 'gpt'");
    return;
  }
  if (data.train.size() == 0) throw std::invalid_argument("the training split is empty");
  if (data.train.images.size() != data.train.size() * data.train.imageSize())
    throw std::invalid_argument("the training split's images do not match its labels");
  if (data.test.size() > 0 &&
      (data.test.channels != data.train.channels || data.test.height != data.train.height ||
       data.test.width != data.train.width))
    throw std::invalid_argument("the test split's image shape differs from the training split's");
}

std::int64_t stepsPerEpoch(const TrainConfig& config, const data::DataSplit& data) {
  const std::int64_t examples =
      data.text ? std::int64_t(data::windowsPerEpoch(data.text->corpus, data.text->blockSize))
                : std::int64_t(data.train.size());
  return std::max<std::int64_t>(1, (examples + config.batchSize - 1) / config.batchSize);
}

std::int64_t plannedSteps(const TrainConfig& config, const data::DataSplit& data) {
  return config.steps > 0 ? config.steps : stepsPerEpoch(config, data) * config.epochs;
}

int plannedEpochs(const TrainConfig& config, const data::DataSplit& data) {
  if (config.steps <= 0) return config.epochs;
  const std::int64_t perEpoch = stepsPerEpoch(config, data);
  return int((config.steps + perEpoch - 1) / perEpoch);
}

TrainResult train(const TrainConfig& config, const backends::PrecisionPolicy& policy,
                  const data::DataSplit& data, const TrainCallbacks& callbacks) {
  validateTrainConfig(config, data);
  const auto runStart = Clock::now();
  const ModelSpec spec = modelSpecFor(config, data.train);
  makeOptimizer(config.optimizer);  // validates the optimizer before any work
  const std::int64_t perEpoch = stepsPerEpoch(config, data);
  const std::int64_t totalSteps = plannedSteps(config, data);
  const int epochs = plannedEpochs(config, data);
  LrSchedule(config.schedule, config.optimizer.lr, perEpoch, epochs, totalSteps);  // validates

  TrainingSession session(spec, policy, config.seed);
  if (config.xrayEverySteps != 0)
    session.enableXray(config.xrayEverySteps > 0
                           ? config.xrayEverySteps
                           : int(std::max<std::int64_t>(kXrayMinAutoSteps, totalSteps / 50)));
  ParamStore& params = session.model().params;
  applyStartingWeights(config, session);
  TrainingBatches batches(config, data, session.model());

  const int frozen = std::min(config.freezeEpochs, epochs);
  std::unique_ptr<Optimizer> optimizer;
  std::unique_ptr<LrSchedule> schedule;
  std::vector<ParamStore::Range> ranges;
  std::int64_t phaseStep = 0;

  TrainResult result;
  std::uint64_t step = 0;
  StepSignals signals;  // the early warnings of the step being measured
  const std::vector<std::string> ratioLayers = updateRatioNames(params);
  for (int epoch = 1; epoch <= epochs; ++epoch) {
    const auto epochStart = Clock::now();
    if (epoch == 1 || epoch == frozen + 1) {
      // Head only while frozen; then everything with a fresh optimizer and schedule.
      const bool headOnly = epoch <= frozen;
      const int phaseEpochs = headOnly ? frozen : epochs - frozen;
      const std::int64_t frozenSteps = std::min(totalSteps, perEpoch * frozen);
      const std::int64_t phaseSteps = headOnly ? frozenSteps : totalSteps - frozenSteps;
      optimizer = makeOptimizer(config.optimizer);
      schedule = std::make_unique<LrSchedule>(config.schedule, config.optimizer.lr, perEpoch,
                                              phaseEpochs, phaseSteps);
      ranges = params.weightRanges(headOnly);
      phaseStep = 0;
    }
    batches.startEpoch(epoch);
    const std::int64_t stepsThisEpoch =
        std::min(perEpoch, totalSteps - std::int64_t(epoch - 1) * perEpoch);
    double lossSum = 0.0;
    std::int64_t seen = 0;
    int skippedSteps = 0;
    for (std::int64_t inEpoch = 0; inEpoch < stepsThisEpoch; ++inEpoch) {
      if (callbacks.shouldCancel && callbacks.shouldCancel()) {
        result.status = RunStatus::Cancelled;
        break;
      }
      const int count = batches.fill(epoch, inEpoch, step);
      if (callbacks.onBatch)
        callbacks.onBatch(std::int64_t(step), batches.items(), batches.labels(), count);
      const double lr = schedule->at(phaseStep);
      const bool measured = config.signalsEverySteps > 0 && callbacks.onSignals &&
                            std::int64_t(step + 1) % config.signalsEverySteps == 0;
      if (measured) signals = StepSignals{};
      const StepOutcome outcome =
          session.step(batches.items(), batches.labels(), count, step, *optimizer, lr, ranges,
                       config.gradClipNorm, measured ? &signals : nullptr);
      if (callbacks.onXray) {
        std::vector<XrayRecord> records = session.takeXray();
        if (!records.empty()) callbacks.onXray({std::int64_t(step), epoch, std::move(records)});
      }
      ++step;
      ++phaseStep;
      result.steps = std::int64_t(step);
      skippedSteps += outcome.skipped ? 1 : 0;
      if (outcome.diverged) {
        result.status = RunStatus::Diverged;
        result.divergedEpoch = epoch;
        result.divergedStep = std::int64_t(step);
        result.divergedReason = session.lossScaler().gaveUp() ? session.lossScaler().gaveUpReason()
                                                              : "loss became NaN/inf";
        break;
      }
      if (!outcome.finite) continue;  // a step skipped by loss scaling: no loss to average
      // Summed as the backend holds its running sums (exact by default).
      lossSum = heldSum(lossSum, outcome.loss * count, session.policy().reduction.runningSums);
      seen += count;
      if (callbacks.onStep) callbacks.onStep(epoch, std::int64_t(step), outcome.loss, lr);
      if (measured && !outcome.skipped)
        callbacks.onSignals(epoch, std::int64_t(step), signals, ratioLayers);
    }
    if (result.status != RunStatus::Completed) break;
    EpochMetrics metrics;
    metrics.epoch = epoch;
    // NaN when loss scaling skipped every step of the epoch on a non-finite loss.
    metrics.trainLoss = seen > 0 ? lossSum / double(seen) : std::nan("");
    TestPredictions predictions;
    const bool lastEpoch = epoch == epochs;
    const EvalOutcome eval =
        evaluate(session, data, config.evalBatchSize,
                 lastEpoch && callbacks.onPredictions ? &predictions : nullptr);
    metrics.testLoss = eval.loss;
    metrics.testAccuracy = eval.accuracy;
    metrics.seconds = secondsSince(epochStart);
    metrics.skippedSteps = skippedSteps;
    result.epochs.push_back(metrics);
    if (callbacks.onEpochWeights) callbacks.onEpochWeights(epoch, params);
    if (callbacks.onEpoch) callbacks.onEpoch(metrics);
    if (lastEpoch && callbacks.onPredictions) callbacks.onPredictions(predictions);
  }
  if (result.status == RunStatus::Completed && data.text && callbacks.onSample &&
      config.sampling.length > 0) {
    const data::TextCorpus& corpus = data.text->corpus;
    const std::vector<std::int32_t> prompt =
        data::encodeText(corpus, config.sampling.prompt, "samples.prompt");
    const std::vector<std::int32_t> generated = generateTokens(
        session, prompt, config.sampling.length, config.sampling.temperature, config.sampling.seed);
    callbacks.onSample({config.sampling.prompt, data::decodeTokens(corpus, generated),
                        config.sampling.temperature});
  }
  // Last: evaluating the model further moves what evaluation keeps (fp8 delayed scaling's amax
  // history), which must change nothing the run itself reports.
  if (result.status == RunStatus::Completed && callbacks.onFinalModel)
    callbacks.onFinalModel(session);
  if (result.status == RunStatus::Completed && !config.saveCheckpoint.empty())
    saveCheckpoint(config.saveCheckpoint, params);
  result.seconds = secondsSince(runStart);
  return result;
}

}  // namespace paritylab::nn
