// The replicas' shards run as one batch (core/nn/replica_shards.h): each shard's loss and
// gradients are those of the shard alone, summed by the all-reduce as before.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "core/nn/training_session.h"
#include "language_model_test_support.h"

namespace paritylab::nn {
namespace {

backends::PrecisionPolicy withReplicas(const std::string& preset, int replicas) {
  backends::PrecisionPolicy p = backends::presetPolicy(preset);
  p.topology.replicas = replicas;
  return p;
}

// One step of `windows` windows under `policy` with its replicas, against each replica's shard
// trained alone (a session of one replica, the same initial weights): the loss is the mean of the
// shards' losses weighted by their share of the batch, and every parameter's gradient is the same
// mean of the shards' gradients, up to the fp32 summation order of the products (OpenBLAS's order
// for the batch's product is not the one for a shard's in every element's last bits).
void expectEachShardsOwnGradients(const ModelSpec& spec, const backends::PrecisionPolicy& policy,
                                  int windows, const std::string& what) {
  const int t = spec.gpt.blockSize, replicas = policy.topology.replicas;
  const testing::TokenWindows w = testing::randomWindows(windows, t, spec.numClasses, 5);
  TrainingSession together(spec, policy, 3);
  ASSERT_TRUE(together.shardsRunTogether()) << what;
  const auto ranges = together.model().params.weightRanges(false);
  together.computeGradients(w.tokens.data(), w.targets.data(), windows, 0, ranges);
  const std::vector<float> learning = together.model().params.gradData();
  // With every shard in one group, the first step's all-reduce waits for the end of the backward
  // pass, the next ones reduce each parameter as its last layer is done: the same bits.
  const StepOutcome out =
      together.computeGradients(w.tokens.data(), w.targets.data(), windows, 0, ranges);
  const std::vector<float>& grads = together.model().params.gradData();
  EXPECT_EQ(std::memcmp(grads.data(), learning.data(), grads.size() * sizeof(float)), 0) << what;

  backends::PrecisionPolicy single = policy;
  single.topology.replicas = 1;
  std::vector<double> expected(grads.size(), 0.0);
  double expectedLoss = 0.0;
  for (int r = 0; r < replicas; ++r) {
    const int from = windows * r / replicas, to = windows * (r + 1) / replicas;
    TrainingSession alone(spec, single, 3);
    const StepOutcome own =
        alone.computeGradients(w.tokens.data() + std::size_t(from) * t,
                               w.targets.data() + std::size_t(from) * t, to - from, 0, ranges);
    const double share = double(to - from) / windows;
    expectedLoss += own.loss * share;
    const std::vector<float>& g = alone.model().params.gradData();
    for (std::size_t i = 0; i < g.size(); ++i) expected[i] += double(g[i]) * share;
  }
  EXPECT_NEAR(out.loss, expectedLoss, 1e-5 * std::abs(expectedLoss)) << what;
  for (const ParamInfo& p : together.model().params.infos()) {
    double error = 0.0, norm = 0.0;
    for (std::size_t i = p.offset; i < p.offset + p.size; ++i) {
      error += (grads[i] - expected[i]) * (grads[i] - expected[i]);
      norm += expected[i] * expected[i];
    }
    EXPECT_LE(std::sqrt(error), 2e-3 * std::sqrt(norm) + 1e-12) << what << ": " << p.name;
  }
}

TEST(ReplicaShards, ShardsRunTogetherGiveEachShardsOwnLossAndGradients) {
  for (const GptShape shape : {GptShape{1, 4, 128, 32, true}, GptShape{1, 4, 128, 32, false},
                               GptShape{2, 2, 16, 8, true}}) {
    const ModelSpec spec = testing::gptSpec(shape);
    for (const auto& [preset, replicas, windows] :
         {std::tuple{"tpu-bf16", 8, 12}, std::tuple{"tpu-bf16", 8, 40},
          std::tuple{"cpu-fp32", 4, 10}, std::tuple{"gpu-amp-bf16", 3, 7},
          std::tuple{"gpu-amp-fp16", 4, 9}}) {
      expectEachShardsOwnGradients(
          spec, withReplicas(preset, replicas), windows,
          std::string(preset) + " x" + std::to_string(replicas) + ", " + std::to_string(windows) +
              " windows of " + std::to_string(shape.blockSize) + ", width " +
              std::to_string(shape.nEmbd) + (shape.tieWeights ? "" : ", untied"));
    }
  }
}

// Measuring a step (the X-ray) changes none of its bits with the shards together either.
TEST(ReplicaShards, ShardsRunTogetherTrainTheSameBitsWhenTheXrayMeasuresThem) {
  const ModelSpec spec = testing::gptSpec({1, 4, 128, 32, true});
  testing::expectMeasuredStepsTrainTheSameBits(
      spec, backends::presetPolicy("tpu-bf16"),
      testing::randomWindows(12, spec.gpt.blockSize, spec.numClasses, 7), "tpu-bf16");
}

TEST(ReplicaShards, OnlyPoliciesThatComputeEachShardWithoutTheOthersRunShardsTogether) {
  for (const char* preset :
       {"cpu-fp32", "gpu-tf32", "gpu-amp-bf16", "gpu-amp-fp16", "tpu-bf16", "pure-bf16"})
    EXPECT_TRUE(replicaShardsMayRunTogether(backends::presetPolicy(preset))) << preset;
  // Operands scaled by their tensor's or block's amax (the batch's, not the shard's).
  for (const char* preset : {"fp8-e4m3", "mxfp8", "nvfp4"})
    EXPECT_FALSE(replicaShardsMayRunTogether(backends::presetPolicy(preset))) << preset;
  // A stochastic draw is indexed by the value's place in its tensor.
  backends::PrecisionPolicy stochastic = backends::presetPolicy("tpu-bf16");
  stochastic.storage.gradients = stochastic.linear.forward.operands;
  stochastic.storage.gradients->mode = numerics::RoundingMode::Stochastic;
  EXPECT_FALSE(replicaShardsMayRunTogether(stochastic));
  backends::PrecisionPolicy override = backends::presetPolicy("tpu-bf16");
  override.overrides.emplace_back();
  override.overrides.back().attention.backwardWeight.operands = override.linear.forward.operands;
  override.overrides.back().attention.backwardWeight.operands->mode =
      numerics::RoundingMode::Stochastic;
  EXPECT_FALSE(replicaShardsMayRunTogether(override));
  // Micro-batches split each shard again.
  backends::PrecisionPolicy accumulated = backends::presetPolicy("tpu-bf16");
  accumulated.reduction.accumulationSteps = 2;
  EXPECT_FALSE(replicaShardsMayRunTogether(accumulated));
  // Image models keep their shards apart (batch norm's statistics are per shard); one replica
  // has no shards.
  ModelSpec image;
  image.name = "small-cnn";
  EXPECT_FALSE(TrainingSession(image, withReplicas("tpu-bf16", 8), 1).shardsRunTogether());
  const ModelSpec gpt = testing::gptSpec({1, 2, 16, 8, true});
  EXPECT_FALSE(TrainingSession(gpt, withReplicas("tpu-bf16", 1), 1).shardsRunTogether());
  EXPECT_TRUE(TrainingSession(gpt, withReplicas("tpu-bf16", 8), 1).shardsRunTogether());
}

TEST(ReplicaShards, AStepRunsItsShardsInAsManyGroupsAsTheBatchHoldsGroupsOfRows) {
  // 12 windows over 8 replicas: shards of 1, 2, 1, 2, 1, 2, 1, 2 windows.
  EXPECT_EQ(shardBegin(12, 8, 0), 0);
  EXPECT_EQ(shardBegin(12, 8, 1), 1);
  EXPECT_EQ(shardBegin(12, 8, 2), 3);
  EXPECT_EQ(shardBegin(12, 8, 8), 12);
  EXPECT_EQ(kShardGroupRows, 512u);
  // 64 tokens a window: 768 rows are one group; 2,048 rows four groups of two shards; 8,192 rows
  // (shards of 1,024) one group per shard.
  EXPECT_EQ(shardGroups(12, 8, 64), 1);
  EXPECT_EQ(shardGroups(32, 8, 64), 4);
  EXPECT_EQ(shardBegin(8, 4, 1), 2);
  EXPECT_EQ(shardGroups(128, 8, 64), 8);
  // A batch of fewer rows than a group: still one.
  EXPECT_EQ(shardGroups(3, 8, 8), 1);
  // 20 windows of 32 tokens: 640 rows, one group.
  EXPECT_EQ(shardGroups(20, 8, 32), 1);
  EXPECT_EQ(shardGroups(40, 8, 32), 2);
}

}  // namespace
}  // namespace paritylab::nn
