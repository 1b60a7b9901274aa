#include "core/nn/trainer.h"

#include <chrono>
#include <cmath>
#include <stdexcept>

#include "core/data/augmentation.h"
#include "core/nn/checkpoint.h"
#include "core/nn/lr_schedule.h"
#include "core/nn/run_start.h"
#include "core/nn/training_session.h"

namespace paritylab::nn {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

void validate(const TrainConfig& c, const data::DataSplit& data) {
  if (c.epochs < 0)
    throw std::invalid_argument("epochs must be >= 0, got " + std::to_string(c.epochs));
  if (c.batchSize < 1)
    throw std::invalid_argument("batchSize must be >= 1, got " + std::to_string(c.batchSize));
  if (c.evalBatchSize < 1)
    throw std::invalid_argument("evalBatchSize must be >= 1, got " +
                                std::to_string(c.evalBatchSize));
  if (c.gradClipNorm < 0)
    throw std::invalid_argument("gradClipNorm must be >= 0, got " + std::to_string(c.gradClipNorm));
  if (c.freezeEpochs < 0)
    throw std::invalid_argument("freezeEpochs must be >= 0, got " + std::to_string(c.freezeEpochs));
  if (data.train.size() == 0) throw std::invalid_argument("the training split is empty");
  if (data.train.images.size() != data.train.size() * data.train.imageSize())
    throw std::invalid_argument("the training split's images do not match its labels");
  if (data.test.size() > 0 &&
      (data.test.channels != data.train.channels || data.test.height != data.train.height ||
       data.test.width != data.train.width))
    throw std::invalid_argument("the test split's image shape differs from the training split's");
}

}  // namespace

TrainResult train(const TrainConfig& config, const backends::PrecisionPolicy& policy,
                  const data::DataSplit& data, const TrainCallbacks& callbacks) {
  validate(config, data);
  const auto runStart = Clock::now();
  const data::Dataset& trainSet = data.train;
  const ModelSpec spec = modelSpecFor(config, trainSet);
  makeOptimizer(config.optimizer);  // validates the optimizer before any work
  const std::int64_t n = std::int64_t(trainSet.size());
  const std::int64_t stepsPerEpoch = (n + config.batchSize - 1) / config.batchSize;
  LrSchedule(config.schedule, config.optimizer.lr, stepsPerEpoch, config.epochs);  // validates

  TrainingSession session(spec, policy, config.seed);
  if (config.xrayEverySteps != 0)
    session.enableXray(
        config.xrayEverySteps > 0
            ? config.xrayEverySteps
            : int(std::max<std::int64_t>(kXrayMinAutoSteps, stepsPerEpoch * config.epochs / 50)));
  ParamStore& params = session.model().params;
  applyStartingWeights(config, session);

  const std::size_t itemSize = trainSet.imageSize();
  const int batchCap = int(std::min<std::int64_t>(config.batchSize, n));
  std::vector<float> images(std::size_t(batchCap) * itemSize);
  std::vector<std::int32_t> labels(static_cast<std::size_t>(batchCap));
  std::vector<std::uint32_t> order(static_cast<std::size_t>(n));
  // Random crop + flip where it preserves the label (core/data decides per dataset).
  const data::AugmentConfig augmentation = data::defaultAugmentation(trainSet);

  const int frozen = std::min(config.freezeEpochs, config.epochs);
  std::unique_ptr<Optimizer> optimizer;
  std::unique_ptr<LrSchedule> schedule;
  std::vector<ParamStore::Range> ranges;
  std::int64_t phaseStep = 0;

  TrainResult result;
  std::uint64_t step = 0;
  for (int epoch = 1; epoch <= config.epochs; ++epoch) {
    const auto epochStart = Clock::now();
    if (epoch == 1 || epoch == frozen + 1) {
      // Head only while frozen; then everything with a fresh optimizer and schedule.
      const bool headOnly = epoch <= frozen;
      const int phaseEpochs = headOnly ? frozen : config.epochs - frozen;
      optimizer = makeOptimizer(config.optimizer);
      schedule = std::make_unique<LrSchedule>(config.schedule, config.optimizer.lr, stepsPerEpoch,
                                              phaseEpochs);
      ranges = params.weightRanges(headOnly);
      phaseStep = 0;
    }
    fillEpochOrder(order, config.seed, epoch);
    double lossSum = 0.0;
    std::int64_t seen = 0;
    int skippedSteps = 0;
    for (std::int64_t begin = 0; begin < n; begin += config.batchSize) {
      if (callbacks.shouldCancel && callbacks.shouldCancel()) {
        result.status = RunStatus::Cancelled;
        break;
      }
      const int count = int(std::min<std::int64_t>(config.batchSize, n - begin));
      for (int i = 0; i < count; ++i) {
        const std::uint32_t src = order[std::size_t(begin + i)];
        std::copy(trainSet.image(src), trainSet.image(src) + itemSize,
                  images.data() + std::size_t(i) * itemSize);
        labels[std::size_t(i)] = trainSet.labels[src];
      }
      if (config.augment)
        data::augmentBatch(images.data(), count, trainSet.channels, trainSet.height, trainSet.width,
                           augmentation,
                           hashSeed(config.seed, std::uint64_t(epoch), 0x41554745 /* "AUGE" */),
                           std::uint64_t(begin));
      if (callbacks.onBatch)
        callbacks.onBatch(std::int64_t(step), images.data(), labels.data(), count);
      const double lr = schedule->at(phaseStep);
      const StepOutcome outcome = session.step(images.data(), labels.data(), count, step,
                                               *optimizer, lr, ranges, config.gradClipNorm);
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
      lossSum += outcome.loss * count;
      seen += count;
      if (callbacks.onStep) callbacks.onStep(epoch, std::int64_t(step), outcome.loss, lr);
    }
    if (result.status != RunStatus::Completed) break;
    EpochMetrics metrics;
    metrics.epoch = epoch;
    // NaN when loss scaling skipped every step of the epoch on a non-finite loss.
    metrics.trainLoss = seen > 0 ? lossSum / double(seen) : std::nan("");
    TestPredictions predictions;
    const bool lastEpoch = epoch == config.epochs;
    const EvalOutcome eval =
        session.evaluate(data.test, config.evalBatchSize,
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
  if (result.status == RunStatus::Completed && !config.saveCheckpoint.empty())
    saveCheckpoint(config.saveCheckpoint, params);
  result.seconds = secondsSince(runStart);
  return result;
}

}  // namespace paritylab::nn
