// Per-example predictions from the final evaluation pass, and the weight divergence's source
// (weights handed at the end of each epoch): the predictions agree with the epoch's own
// accuracy and loss, the probabilities with a softmax of logits computed here, and the callbacks
// change nothing about training (bit-identical results with and without them).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/nn/softmax_cross_entropy.h"
#include "core/nn/trainer.h"
#include "nn_test_support.h"

namespace paritylab::nn {
namespace {

using testing::syntheticImages;

TEST(TestPredictions, SoftmaxCrossEntropyGivesArgmaxAndTrueClassProbability) {
  Tensor logits({3, 3});
  const float values[] = {1.0f, 2.0f, 3.0f, 0.0f, 0.0f, 0.0f, -1.0f, 5.0f, 2.0f};
  std::copy(values, values + 9, logits.data());
  const std::int32_t labels[] = {0, 2, 1};
  std::int32_t predicted[3] = {-1, -1, -1};
  float probability[3] = {};
  const LossResult r = softmaxCrossEntropy(logits, labels, nullptr, 1.0f, predicted, probability);
  EXPECT_EQ(predicted[0], 2);
  EXPECT_EQ(predicted[1], 0);  // a tie: the first maximum, as `correct` counts it
  EXPECT_EQ(predicted[2], 1);
  EXPECT_EQ(r.correct, 1);
  // Independent softmax in double: e^1 / (e^1 + e^2 + e^3), 1/3, e^5 / (e^-1 + e^5 + e^2).
  const double e = std::exp(1.0);
  EXPECT_NEAR(probability[0], e / (e + e * e + e * e * e), 1e-6);
  EXPECT_NEAR(probability[1], 1.0 / 3.0, 1e-6);
  EXPECT_NEAR(probability[2], std::exp(5.0) / (std::exp(-1.0) + std::exp(5.0) + std::exp(2.0)),
              1e-6);
}

TEST(TestPredictions, FinalEvaluationHandsPredictionsAndEachEpochItsWeights) {
  data::DataSplit split;
  split.train = syntheticImages(192, 1, 8, 4, 1);
  split.test = syntheticImages(100, 1, 8, 4, 2);
  TrainConfig config;
  config.model = "small-cnn";
  config.epochs = 2;
  config.batchSize = 32;
  config.evalBatchSize = 48;  // batches of 48, 48, 4: the predictions land at their examples
  config.seed = 7;
  const backends::PrecisionPolicy policy = backends::presetPolicy("tpu-bf16");

  const TrainResult plain = train(config, policy, split);
  TestPredictions predictions;
  int predictionCalls = 0;
  std::vector<int> weightEpochs;
  std::vector<float> lastWeights;
  TrainCallbacks cb;
  cb.onPredictions = [&](const TestPredictions& p) {
    predictions = p;
    ++predictionCalls;
  };
  cb.onEpochWeights = [&](int epoch, const ParamStore& params) {
    weightEpochs.push_back(epoch);
    lastWeights = params.masterData();
  };
  const TrainResult observed = train(config, policy, split, cb);

  // Nothing about training changes with the callbacks set.
  ASSERT_EQ(plain.epochs.size(), 2u);
  ASSERT_EQ(observed.epochs.size(), 2u);
  for (std::size_t e = 0; e < 2; ++e) {
    EXPECT_EQ(plain.epochs[e].testAccuracy, observed.epochs[e].testAccuracy);
    EXPECT_EQ(plain.epochs[e].testLoss, observed.epochs[e].testLoss);
    EXPECT_EQ(plain.epochs[e].trainLoss, observed.epochs[e].trainLoss);
  }
  EXPECT_EQ(predictionCalls, 1);
  EXPECT_EQ(weightEpochs, (std::vector<int>{1, 2}));
  EXPECT_FALSE(lastWeights.empty());

  // The predictions are the last evaluation's: its accuracy and (to float rounding) its loss.
  ASSERT_EQ(predictions.predicted.size(), split.test.size());
  ASSERT_EQ(predictions.trueClassProbability.size(), split.test.size());
  std::size_t correct = 0;
  double loss = 0.0;
  for (std::size_t i = 0; i < split.test.size(); ++i) {
    correct += predictions.predicted[i] == split.test.labels[i] ? 1 : 0;
    EXPECT_GT(predictions.trueClassProbability[i], 0.0f);
    EXPECT_LE(predictions.trueClassProbability[i], 1.0f);
    loss -= std::log(double(predictions.trueClassProbability[i]));
  }
  EXPECT_DOUBLE_EQ(double(correct) / double(split.test.size()), observed.epochs[1].testAccuracy);
  EXPECT_NEAR(loss / double(split.test.size()), observed.epochs[1].testLoss,
              1e-5 * (1.0 + observed.epochs[1].testLoss));
}

TEST(TestPredictions, ACancelledRunHandsNoPredictions) {
  data::DataSplit split;
  split.train = syntheticImages(64, 1, 8, 4, 1);
  split.test = syntheticImages(32, 1, 8, 4, 2);
  TrainConfig config;
  config.model = "mlp";
  config.epochs = 2;
  config.batchSize = 16;
  int calls = 0, steps = 0;
  TrainCallbacks cb;
  cb.onPredictions = [&](const TestPredictions&) { ++calls; };
  cb.shouldCancel = [&] { return ++steps > 5; };  // in epoch 2
  const TrainResult r = train(config, backends::presetPolicy("cpu-fp32"), split, cb);
  EXPECT_EQ(r.status, RunStatus::Cancelled);
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace paritylab::nn
