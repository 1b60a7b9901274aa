// Under fp16 AMP with dynamic loss scaling, an inf/NaN loss or gradient skips
// the optimizer step and backs the scale off (GradScaler semantics) instead of ending the run;
// skipped steps are counted per epoch; only the documented limit (scale below 2^-24) makes a run
// diverged. The overflow is injected as one input image of 1e30, which is inf once stored in fp16.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/nn/trainer.h"
#include "core/nn/training_session.h"
#include "nn_test_support.h"

namespace paritylab::nn {
namespace {

using testing::syntheticImages;

constexpr int kImages = 64, kBatch = 16, kSize = 8;

data::DataSplit splitWithPoisonedImage(float poison, int poisoned) {
  data::DataSplit split;
  split.train = syntheticImages(kImages, 1, kSize, 4, 1);
  split.test = syntheticImages(32, 1, kSize, 4, 2);
  const std::size_t item = split.train.imageSize();
  for (int i = 0; i < poisoned; ++i) split.train.images[std::size_t(i) * item + 5] = poison;
  return split;
}

TrainConfig mlpConfig(int epochs) {
  TrainConfig c;
  c.model = "mlp";
  c.epochs = epochs;
  c.batchSize = kBatch;
  c.evalBatchSize = 32;
  c.seed = 3;
  return c;
}

TEST(LossScalingSkip, OverflowingStepIsSkippedWeightsUnchangedScaleHalvedThenTrainingGoesOn) {
  const data::DataSplit split = splitWithPoisonedImage(1e30f, 1);
  const backends::PrecisionPolicy fp16 = backends::presetPolicy("gpu-amp-fp16");
  TrainingSession s(ModelSpec{"mlp", 1, kSize, kSize, 4, 4, {}}, fp16, 1);
  auto optimizer = makeOptimizer(OptimizerConfig{});
  const auto ranges = s.model().params.weightRanges(false);
  const std::vector<float> before = s.model().params.masterData();
  EXPECT_EQ(s.lossScale(), 65536.0);

  // Images 0..15: the first holds the injected overflow.
  const StepOutcome bad = s.step(split.train.images.data(), split.train.labels.data(), kBatch, 0,
                                 *optimizer, 1e-3, ranges, 0.0);
  EXPECT_FALSE(bad.finite);
  EXPECT_TRUE(bad.skipped);
  EXPECT_FALSE(bad.diverged);
  EXPECT_EQ(s.model().params.masterData(), before);  // no update
  EXPECT_EQ(s.lossScale(), 32768.0);                 // backed off x 0.5

  // Images 16..31: clean. The step is taken at the backed-off scale.
  const std::size_t item = split.train.imageSize();
  const StepOutcome good =
      s.step(split.train.images.data() + kBatch * item, split.train.labels.data() + kBatch, kBatch,
             1, *optimizer, 1e-3, ranges, 0.0);
  EXPECT_TRUE(good.finite);
  EXPECT_FALSE(good.skipped);
  EXPECT_NE(s.model().params.masterData(), before);
  EXPECT_EQ(s.lossScale(), 32768.0);  // grows only after 2000 clean steps
}

TEST(LossScalingSkip, TrainerCountsSkippedStepsPerEpochAndCompletes) {
  const data::DataSplit split = splitWithPoisonedImage(1e30f, 1);
  const TrainResult r =
      train(mlpConfig(2), backends::presetPolicy("gpu-amp-fp16"), split, TrainCallbacks{});
  ASSERT_EQ(r.status, RunStatus::Completed) << r.divergedReason;
  ASSERT_EQ(r.epochs.size(), 2U);
  for (const EpochMetrics& e : r.epochs) {
    EXPECT_EQ(e.skippedSteps, 1) << "epoch " << e.epoch;  // the batch holding the poisoned image
    EXPECT_TRUE(std::isfinite(e.trainLoss));              // the other 3 batches' mean
    EXPECT_TRUE(std::isfinite(e.testLoss));               // the weights stayed finite
  }
  // Without loss scaling a NaN loss ends the run at once (a real bf16 autocast run would carry
  // NaN into its weights). 1e30 is finite in bf16, so that run gets an infinite input instead.
  const TrainResult bf16 =
      train(mlpConfig(2), backends::presetPolicy("gpu-amp-bf16"),
            splitWithPoisonedImage(std::numeric_limits<float>::infinity(), 1), TrainCallbacks{});
  EXPECT_EQ(bf16.status, RunStatus::Diverged);
  EXPECT_EQ(bf16.divergedEpoch, 1);
  EXPECT_EQ(bf16.divergedReason, "loss became NaN/inf");
}

TEST(LossScalingSkip, RunIsDivergedOnlyWhenTheScaleFallsBelowTheLimit) {
  // Every image overflows: every step is skipped, the scale halves each time; 65536 = 2^16 halved
  // 41 times is 2^-25 < 2^-24, so step 41 (epoch 11 of 4 steps each) ends the run.
  const data::DataSplit split =
      splitWithPoisonedImage(std::numeric_limits<float>::infinity(), kImages);
  const TrainResult r =
      train(mlpConfig(20), backends::presetPolicy("gpu-amp-fp16"), split, TrainCallbacks{});
  EXPECT_EQ(r.status, RunStatus::Diverged);
  EXPECT_EQ(r.divergedStep, 41);
  EXPECT_EQ(r.divergedEpoch, 11);
  EXPECT_NE(r.divergedReason.find("below the limit 2^-24"), std::string::npos) << r.divergedReason;
  ASSERT_EQ(r.epochs.size(), 10U);
  EXPECT_EQ(r.epochs.front().skippedSteps, 4);
  EXPECT_TRUE(std::isnan(r.epochs.front().trainLoss));  // no step had a finite loss
}

}  // namespace
}  // namespace paritylab::nn
