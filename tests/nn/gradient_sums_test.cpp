// The sums of gradients outside the products: the replicas' all-reduce in a format and an order,
// gradient accumulation over micro-batches, and the running sums of reported losses. The expected
// values are exact numbers worked by hand from bf16's 8 significant bits.
#include "core/nn/gradient_sums.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <vector>

#include "core/nn/optimizer.h"
#include "core/nn/training_session.h"
#include "nn_test_support.h"

namespace paritylab::nn {
namespace {

numerics::RoundingSpec bf16() {
  return numerics::RoundingSpec{*numerics::parseFormat("bf16")};
}

// Four replicas' gradients of one value: 256, 1, 1, 1 (mean 64.75).
std::vector<std::vector<float>> fourReplicas() {
  return {{256.0f}, {1.0f}, {1.0f}, {1.0f}};
}

TEST(GradientAllReduce, Fp32TreeIsTheExactMeanHere) {
  auto replicas = fourReplicas();
  float mean = 0.0f;
  allReduceMean(replicas, 4, &mean, 1);
  EXPECT_EQ(mean, 64.75f);
}

TEST(GradientAllReduce, Bf16LosesWhatItsPartialSumsCannotHoldAndTheOrderDecidesWhat) {
  backends::ReductionPolicy tree;
  tree.allReduce = bf16();
  // Tree: 256 + 1 = 257 -> 256 (bf16 holds 256, 258); 1 + 1 = 2; 256 + 2 = 258; / 4 = 64.5.
  auto replicas = fourReplicas();
  float mean = 0.0f;
  allReduceMean(replicas, 4, &mean, 1, tree);
  EXPECT_EQ(mean, 64.5f);
  // Ring: one value among four chunks lands in the last, chunk 3, summed from replica 0 round to
  // replica 3: 256 + 1 -> 256, three times; / 4 = 64.
  backends::ReductionPolicy ring = tree;
  ring.order = backends::ReduceOrder::Ring;
  replicas = fourReplicas();
  allReduceMean(replicas, 4, &mean, 1, ring);
  EXPECT_EQ(mean, 64.0f);
}

TEST(GradientAllReduce, RingCutsTheGradientIntoOneChunkPerReplicaEachWithItsOwnStart) {
  // Three replicas, three values (one chunk each), the same in every chunk: 2^24, 1, -2^24. In
  // fp32, 2^24 + 1 is 2^24 (a tie, to even) while 1 - 2^24 is exact, so where a sum starts
  // decides. Chunk 0 from replica 1: (1 - 2^24) + 2^24 = 1; chunk 1 from replica 2:
  // (-2^24 + 2^24) + 1 = 1; chunk 2 from replica 0: (2^24 + 1) - 2^24 = 0. The tree sums every
  // value as chunk 2 does.
  const auto replicas = [] {
    return std::vector<std::vector<float>>{
        {0x1p24f, 0x1p24f, 0x1p24f}, {1.0f, 1.0f, 1.0f}, {-0x1p24f, -0x1p24f, -0x1p24f}};
  };
  backends::ReductionPolicy ring;
  ring.order = backends::ReduceOrder::Ring;
  std::vector<float> mean(3);
  auto ringReplicas = replicas();
  allReduceMean(ringReplicas, 3, mean.data(), 3, ring);
  EXPECT_EQ(mean, (std::vector<float>{1.0f / 3.0f, 1.0f / 3.0f, 0.0f}));
  auto treeReplicas = replicas();
  allReduceMean(treeReplicas, 3, mean.data(), 3);
  EXPECT_EQ(mean, (std::vector<float>{0.0f, 0.0f, 0.0f}));
}

TEST(GradientAccumulation, Bf16StopsMovingWhereFp32KeepsAdding) {
  const std::vector<float> grads = {256.0f, 1.0f, 1.0f, 1.0f};  // four micro-batches, one value
  float fp32 = 0.0f, held = 0.0f;
  for (std::size_t m = 0; m < grads.size(); ++m) {
    accumulateGradient(&grads[m], &fp32, 1, 1.0f, m == 0, std::nullopt, 0);
    accumulateGradient(&grads[m], &held, 1, 1.0f, m == 0, bf16(), 0);
  }
  EXPECT_EQ(fp32, 259.0f);
  EXPECT_EQ(held, 256.0f);  // 256 + 1 rounds back to 256, three times
}

TEST(RunningSums, ALossSummedInBf16StopsMoving) {
  EXPECT_EQ(heldSum(4096.0, 1.0, bf16()), 4096.0);
  EXPECT_EQ(heldSum(4096.0, 1.0, std::nullopt), 4097.0);
}

// Accumulating two micro-batches in fp32 is, bit for bit, half of each half-batch's gradient
// added: the micro-batches' products are the half batches' own.
TEST(GradientAccumulation, TwoMicroBatchesInFp32AreTheHalvesGradientsHalvedAndAdded) {
  const ModelSpec spec{"mlp", 1, 8, 8, 4, 4, {}};
  const data::Dataset set = testing::syntheticImages(16, 1, 8, 4, 9);
  const std::size_t half = 8 * 64;
  backends::PrecisionPolicy accumulating = backends::presetPolicy("cpu-fp32");
  accumulating.reduction.accumulationSteps = 2;
  TrainingSession whole(spec, accumulating, 3), first(spec, backends::presetPolicy("cpu-fp32"), 3),
      second(spec, backends::presetPolicy("cpu-fp32"), 3);
  const auto ranges = whole.model().params.weightRanges(false);
  const StepOutcome w = whole.computeGradients(set.images.data(), set.labels.data(), 16, 0, ranges);
  const StepOutcome a = first.computeGradients(set.images.data(), set.labels.data(), 8, 0, ranges);
  const StepOutcome b =
      second.computeGradients(set.images.data() + half, set.labels.data() + 8, 8, 0, ranges);
  ASSERT_TRUE(w.finite && a.finite && b.finite);
  EXPECT_EQ(w.loss, (a.loss + b.loss) / 2);
  const std::vector<float>& gw = whole.model().params.gradData();
  const std::vector<float>& ga = first.model().params.gradData();
  const std::vector<float>& gb = second.model().params.gradData();
  for (std::size_t i = 0; i < gw.size(); ++i)
    ASSERT_EQ(gw[i], ga[i] * 0.5f + gb[i] * 0.5f) << "gradient value " << i;
}

TEST(ReductionPolicyJson, DefaultsAreNotWrittenAndSetFieldsRoundTrip) {
  EXPECT_FALSE(backends::policyToJson(backends::presetPolicy("tpu-bf16")).contains("reduction"));
  const backends::PrecisionPolicy p = backends::policyFromJson(nlohmann::json::parse(R"({
      "preset": "tpu-bf16", "reduction": {"allReduce": "bf16", "order": "ring"},
      "gradAccumulation": {"steps": 4, "format": "bf16"}, "runningSums": "bf16"})"));
  EXPECT_EQ(p.reduction.order, backends::ReduceOrder::Ring);
  EXPECT_EQ(p.reduction.accumulationSteps, 4);
  ASSERT_TRUE(p.reduction.allReduce && p.reduction.accumulationFormat && p.reduction.runningSums);
  EXPECT_EQ(p.reduction.allReduce->format.name, "bf16");
  const nlohmann::json written = backends::policyToJson(p);
  EXPECT_EQ(backends::policyToJson(backends::policyFromJson(written)), written);
  for (const char* bad :
       {R"({"gradAccumulation": {"steps": 0}})", R"({"reduction": {"order": "star"}})",
        R"({"reduction": {"allReduce": "bf17"}})", R"({"gradAccumulation": {"step": 2}})"}) {
    try {
      backends::policyFromJson(nlohmann::json::parse(bad));
      ADD_FAILURE() << "read: " << bad;
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      EXPECT_TRUE(what.find("gradAccumulation") != std::string::npos ||
                  what.find("reduction") != std::string::npos)
          << what;
    }
  }
}

}  // namespace
}  // namespace paritylab::nn
