// Early warnings measured on a training step (core/nn/step_signals.h): each signal against an
// independent computation from the same step, and measuring them changes nothing the run does.

#include "core/nn/step_signals.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "core/nn/grad_clip.h"
#include "core/nn/optimizer.h"
#include "core/nn/trainer.h"
#include "core/nn/training_session.h"
#include "nn_test_support.h"

namespace paritylab::nn {
namespace {

TEST(UpdateRatio, IsTheNormOfTheChangeOverTheNormBeforeForMatricesOnly) {
  ParamStore params;
  params.add("fc.weight", {2, 2}, ParamKind::Weight, true);
  params.add("fc.bias", {2}, ParamKind::Weight, true);
  params.add("bn.running_mean", {2, 1}, ParamKind::Buffer, true);
  params.add("zero.weight", {1, 2}, ParamKind::Weight, true);
  params.finalize(false);
  const float start[] = {3, 0, 0, 4, 1, 1, 0, 0, 0, 0};
  std::copy(std::begin(start), std::end(start), params.masterData().begin());
  EXPECT_EQ(updateRatioNames(params), (std::vector<std::string>{"fc.weight", "zero.weight"}));
  UpdateRatioMeter meter;
  meter.before(params);
  params.master(0)[3] = 4.5f;  // |W| = 5, the change 0.5: 0.1
  params.master(1)[0] = 7.0f;  // a bias: not measured
  params.master(3)[1] = 1.0f;  // from zero: no ratio (NaN)
  std::vector<float> ratios;
  meter.after(params, ratios);
  ASSERT_EQ(ratios.size(), 2u);
  EXPECT_FLOAT_EQ(ratios[0], 0.1f);
  EXPECT_TRUE(std::isnan(ratios[1]));
}

TEST(MeanRowNorm, AveragesTheEuclideanNormOfEachRow) {
  const float logits[] = {3, 4, 0, 0, 0, 1, 6, 8, 0};  // [3, 3]: norms 5, 1, 10
  EXPECT_DOUBLE_EQ(meanRowNorm(logits, 3, 3), 16.0 / 3.0);
  EXPECT_TRUE(std::isnan(meanRowNorm(logits, 0, 3)));
}

// A step measured against the same step taken by a twin session, whose gradients, weights and
// logits the test reads itself.
TEST(StepSignals, MatchTheGradientsUpdateAndLogitsOfTheStepAndChangeNothing) {
  const ModelSpec spec{"mlp", 1, 8, 8, 4, 4, {}};
  const backends::PrecisionPolicy policy = backends::presetPolicy("cpu-fp32");
  const data::Dataset d = testing::syntheticImages(24, 1, 8, 4, 5);
  TrainingSession measured(spec, policy, 3), twin(spec, policy, 3);
  const auto ranges = measured.model().params.weightRanges(false);
  auto optA = makeOptimizer(OptimizerConfig{}), optB = makeOptimizer(OptimizerConfig{});

  // The twin: the logits in training mode are those of evaluation for an mlp (no batch norm).
  const Tensor& logits = twin.logits(d.images.data(), 24);
  const auto classes = std::size_t(logits.dim(1));
  double normSum = 0.0;
  for (int r = 0; r < 24; ++r) {
    double sq = 0.0;
    for (std::size_t c = 0; c < classes; ++c)
      sq += double(logits.data()[r * classes + c]) * logits.data()[r * classes + c];
    normSum += std::sqrt(sq);
  }
  const ParamStore& twinParams = twin.model().params;
  const std::vector<float> before = twinParams.masterData();
  twin.computeGradients(d.images.data(), d.labels.data(), 24, 0, ranges);
  const double gradNorm = globalGradNorm(twin.model().params, ranges);
  optB->step(twin.model().params, ranges, 1e-2, std::nullopt);
  twin.weightsChanged(1);

  StepSignals signals;
  const StepOutcome out =
      measured.step(d.images.data(), d.labels.data(), 24, 0, *optA, 1e-2, ranges, 0.0, &signals);
  ASSERT_TRUE(out.finite);
  EXPECT_EQ(signals.gradNorm, gradNorm);
  EXPECT_NEAR(signals.outputLogitNorm, normSum / 24, 1e-6 * normSum / 24);
  EXPECT_TRUE(std::isnan(signals.attentionLogitMax));  // an mlp has no attention
  const std::vector<int> ids = updateRatioParameters(twinParams);
  ASSERT_EQ(signals.updateRatios.size(), ids.size());
  ASSERT_FALSE(ids.empty());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const ParamInfo& info = twinParams.info(ids[i]);
    double moved = 0.0, norm = 0.0;
    for (std::size_t k = info.offset; k < info.offset + info.size; ++k) {
      moved += std::pow(double(twinParams.masterData()[k]) - before[k], 2);
      norm += double(before[k]) * before[k];
    }
    EXPECT_NEAR(signals.updateRatios[i], std::sqrt(moved / norm), 1e-6) << info.name;
    EXPECT_GT(signals.updateRatios[i], 0.0f) << info.name;
  }
  // Measuring left the step as it was: the same weights, bit for bit.
  const std::vector<float>& a = measured.model().params.masterData();
  ASSERT_EQ(a.size(), twinParams.masterData().size());
  EXPECT_EQ(std::memcmp(a.data(), twinParams.masterData().data(), a.size() * sizeof(float)), 0);
}

// The attention logit is the scaled score q.k / sqrt(d) before the softmax: doubling every query
// (the first third of c_attn's rows and bias, exactly in fp32) doubles the largest one exactly.
TEST(StepSignals, AttentionLogitIsTheLargestScoreBeforeTheSoftmax) {
  ModelSpec spec;
  spec.name = "gpt";
  spec.numClasses = 7;
  spec.gpt = {1, 2, 8, 6, true};
  const backends::PrecisionPolicy policy = backends::presetPolicy("cpu-fp32");
  std::vector<float> tokens(12);
  std::vector<std::int32_t> labels(12);
  for (int i = 0; i < 12; ++i) {
    tokens[std::size_t(i)] = float((i * 5 + 2) % 7);
    labels[std::size_t(i)] = std::int32_t((i * 5 + 7) % 7);
  }
  const auto largestLogit = [&](bool doubledQueries) {
    TrainingSession session(spec, policy, 9);
    ParamStore& params = session.model().params;
    if (doubledQueries) {
      for (std::size_t id = 0; id < params.infos().size(); ++id) {
        const ParamInfo& info = params.info(int(id));
        if (info.name.find("c_attn") == std::string::npos) continue;
        const std::size_t queries = info.size / 3;  // weight [3C, C] or bias [3C]: q first
        for (std::size_t k = 0; k < queries; ++k) params.master(int(id))[k] *= 2.0f;
      }
      session.weightsChanged(0);
    }
    auto opt = makeOptimizer(OptimizerConfig{});
    StepSignals signals;
    session.step(tokens.data(), labels.data(), 2, 0, *opt, 1e-3, params.weightRanges(false), 0.0,
                 &signals);
    return signals.attentionLogitMax;
  };
  const double plain = largestLogit(false);
  ASSERT_TRUE(std::isfinite(plain));
  EXPECT_EQ(largestLogit(true), 2.0 * plain);
}

// The trainer measures the steps whose 1-based number is a multiple of signalsEverySteps, each
// after its onStep, and the run trains bit for bit as without them.
TEST(StepSignals, TrainerMeasuresEveryNthStepAndTrainsTheSame) {
  data::DataSplit split;
  split.train = testing::syntheticImages(80, 1, 8, 4, 1);
  split.test = testing::syntheticImages(16, 1, 8, 4, 2);
  TrainConfig c;
  c.model = "mlp";
  c.epochs = 2;
  c.batchSize = 8;  // 10 steps an epoch
  c.seed = 5;
  std::vector<double> plainLosses, measuredLosses;
  TrainCallbacks plain;
  plain.onStep = [&](int, std::int64_t, double loss, double) { plainLosses.push_back(loss); };
  train(c, backends::PrecisionPolicy{}, split, plain);

  c.signalsEverySteps = 3;
  std::vector<std::int64_t> measuredSteps;
  std::int64_t lastStep = 0;
  TrainCallbacks cb;
  cb.onStep = [&](int, std::int64_t step, double loss, double) {
    measuredLosses.push_back(loss);
    lastStep = step;
  };
  cb.onSignals = [&](int epoch, std::int64_t step, const StepSignals& s,
                     const std::vector<std::string>& layers) {
    EXPECT_EQ(step, lastStep);  // after that step's onStep
    EXPECT_EQ(epoch, int((step - 1) / 10) + 1);
    EXPECT_EQ(s.updateRatios.size(), layers.size());
    EXPECT_EQ(layers, (std::vector<std::string>{"fc1.weight", "fc2.weight", "fc3.weight"}));
    measuredSteps.push_back(step);
  };
  train(c, backends::PrecisionPolicy{}, split, cb);
  EXPECT_EQ(measuredSteps, (std::vector<std::int64_t>{3, 6, 9, 12, 15, 18}));
  ASSERT_EQ(measuredLosses.size(), plainLosses.size());
  EXPECT_EQ(
      std::memcmp(measuredLosses.data(), plainLosses.data(), plainLosses.size() * sizeof(double)),
      0);
}

}  // namespace
}  // namespace paritylab::nn
