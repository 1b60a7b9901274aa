// Train under one backend, serve under another (core/nn/serving_comparison.h): the comparison's
// figures on hand-made answers, a model served by its own arithmetic answering bit for bit as
// trained, and a served copy holding the parameters as the serving backend stores them.

#include "core/nn/serving_comparison.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>

#include "nn_test_support.h"

namespace paritylab::nn {
namespace {

TEST(CompareAnswers, FlipsKlAndLogProbabilityChangeOfHandMadeAnswers) {
  // p = (1/4, 3/4) as trained, q = (3/4, 1/4) as served, the true class 1; then one agreeing row.
  Answers trained{{0.0f, float(std::log(3.0)), 1.0f, 0.0f}, 2};
  Answers served{{float(std::log(3.0)), 0.0f, 1.0f, 0.0f}, 2};
  const std::int32_t labels[] = {1, 0};
  const ServingComparison c = compareAnswers(trained, served, labels);
  EXPECT_EQ(c.predictions, 2);
  EXPECT_EQ(c.flips, 1);
  EXPECT_NEAR(c.meanAbsLogProbChange, std::log(3.0) / 2, 1e-6);  // |log 1/4 - log 3/4|, then 0
  EXPECT_NEAR(c.meanKl, 0.5 * std::log(3.0) / 2, 1e-6);          // 1/4 log 1/3 + 3/4 log 3, then 0
  EXPECT_DOUBLE_EQ(c.servedAccuracy, 0.5);
  Answers other{{0.0f, 0.0f, 0.0f}, 3};
  EXPECT_THROW(compareAnswers(trained, other, labels), std::invalid_argument);
}

TEST(ServedCopy, ItsOwnArithmeticAnswersAsTrainedBitForBit) {
  const ModelSpec spec{"mlp", 1, 8, 8, 4, 4, {}};
  const data::Dataset d = testing::syntheticImages(40, 1, 8, 4, 3);
  for (const char* backend : {"cpu-fp32", "tpu-bf16", "pure-bf16"}) {
    TrainingSession trained(spec, backends::presetPolicy(backend), 5);
    const auto served = servedCopy(trained, trained.policy());
    const Answers a = answersOf(trained, d.images.data(), 40, 16);
    const Answers b = answersOf(*served, d.images.data(), 40, 16);
    ASSERT_EQ(a.logits.size(), 40u * 4u);
    EXPECT_EQ(a.logits, b.logits) << backend;
    const ServingComparison c = compareAnswers(a, b, d.labels.data());
    EXPECT_EQ(c.flips, 0) << backend;
    EXPECT_EQ(c.meanKl, 0.0) << backend;
  }
}

TEST(ServedCopy, HoldsTheParametersAsTheServingBackendStoresThem) {
  const ModelSpec spec{"mlp", 1, 8, 8, 4, 4, {}};
  TrainingSession trained(spec, backends::presetPolicy("cpu-fp32"), 5);
  const auto served = servedCopy(trained, backends::presetPolicy("pure-bf16"));
  const std::vector<float>& before = trained.model().params.masterData();
  const std::vector<float>& after = served->model().params.masterData();
  ASSERT_EQ(before.size(), after.size());
  std::size_t changed = 0;
  for (std::size_t i = 0; i < before.size(); ++i) {
    ASSERT_EQ(std::bit_cast<std::uint32_t>(after[i]) & 0xFFFFu, 0u) << i;  // a bf16 value
    EXPECT_LE(std::abs(after[i] - before[i]), std::abs(before[i]) * 0x1p-8f) << i;
    changed += after[i] != before[i] ? 1 : 0;
  }
  EXPECT_GT(changed, before.size() / 2);  // most fp32 weights are not bf16 values
  // Served in bf16 the answers move a little: a positive KL, the same size of output.
  const data::Dataset d = testing::syntheticImages(40, 1, 8, 4, 3);
  const ServingComparison c =
      compareAnswers(answersOf(trained, d.images.data(), 40, 16),
                     answersOf(*served, d.images.data(), 40, 16), d.labels.data());
  EXPECT_EQ(c.predictions, 40);
  EXPECT_GT(c.meanKl, 0.0);
  EXPECT_LT(c.meanKl, 1e-2);
  EXPECT_THROW(answersOf(trained, d.images.data(), 40, 0), std::invalid_argument);
}

}  // namespace
}  // namespace paritylab::nn
