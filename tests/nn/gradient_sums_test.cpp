// The sums of gradients outside the products: the replicas' all-reduce in a format and an order,
// gradient accumulation over micro-batches, and the running sums of reported losses. The expected
// values are exact numbers worked by hand from bf16's 8 significant bits.
#include "core/nn/gradient_sums.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <utility>
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

// The tree as a whole-array pass, as written down: every replica weighted and held (draw r), then
// the additions stride by stride, left to right, each sum held (the next draws), then the mean
// held.
std::vector<float> referenceTreeMean(std::vector<std::vector<float>> replicas,
                                     const std::vector<double>& weights,
                                     const std::optional<numerics::RoundingSpec>& format,
                                     std::uint64_t seed) {
  const int count = int(replicas.size());
  const std::size_t n = replicas[0].size();
  std::size_t draw = 0;
  const auto hold = [&](std::vector<float>& v) {
    if (!format) return;
    numerics::Rounder(*format).apply(v, seed, (draw++) * n);
  };
  for (int r = 0; r < count; ++r)
    for (float& x : replicas[std::size_t(r)])
      if (weights[std::size_t(r)] != 1.0) x *= float(weights[std::size_t(r)]);
  for (auto& replica : replicas) hold(replica);
  for (int stride = 1; stride < count; stride *= 2)
    for (int r = 0; r + stride < count; r += 2 * stride) {
      for (std::size_t i = 0; i < n; ++i)
        replicas[std::size_t(r)][i] += replicas[std::size_t(r + stride)][i];
      hold(replicas[std::size_t(r)]);
    }
  std::vector<float> mean(n);
  for (std::size_t i = 0; i < n; ++i) mean[i] = replicas[0][i] / float(count);
  hold(mean);
  return mean;
}

// Taken replica by replica (as a training step hands them over), the tree gives the bits of the
// whole-array tree for every count of replicas, in fp32 and held in bf16 (nearest and stochastic,
// each rounding its own draw), with unequal shard weights; and it hands gradients back as soon as
// they are summed, holding at most floor(log2(count)) + 1 at once.
TEST(GradientAllReduce, TheTreeTakenReplicaByReplicaHasTheWholeTreesBitsAndHoldsFewBuffers) {
  numerics::RoundingSpec stochastic = bf16();
  stochastic.mode = numerics::RoundingMode::Stochastic;
  for (const std::optional<numerics::RoundingSpec>& format :
       {std::optional<numerics::RoundingSpec>{}, std::optional(bf16()),
        std::optional(stochastic)}) {
    for (int count = 1; count <= 9; ++count) {
      constexpr std::size_t n = 37;
      std::vector<std::vector<float>> replicas(static_cast<std::size_t>(count),
                                               std::vector<float>(n));
      std::vector<double> weights(static_cast<std::size_t>(count));
      for (int r = 0; r < count; ++r) {
        testing::fillUniform(replicas[std::size_t(r)].data(), n, std::uint64_t(count * 16 + r));
        for (std::size_t i = 0; i < n; i += 5) replicas[std::size_t(r)][i] *= 4096.0f;
        weights[std::size_t(r)] = r % 3 == 0 ? 1.0 : (r % 3 == 1 ? 4.0 / 3.0 : 2.0 / 3.0);
      }
      const std::vector<float> expected = referenceTreeMean(replicas, weights, format, 77);
      backends::ReductionPolicy reduction;
      reduction.allReduce = format;
      ReplicaAllReduce reduce;
      reduce.begin(count, n, reduction, 77);
      std::size_t held = 0, mostHeld = 0;
      for (int r = 0; r < count; ++r) {
        reduce.add(replicas[std::size_t(r)].data(), weights[std::size_t(r)]);
        mostHeld = std::max(mostHeld, ++held);
        held -= reduce.released().size();
      }
      std::vector<float> mean(n);
      reduce.finish(mean.data());
      held -= reduce.released().size();
      const std::string what =
          "count " + std::to_string(count) +
          (format
               ? format->mode == numerics::RoundingMode::Stochastic ? ", bf16 stochastic" : ", bf16"
               : ", fp32");
      EXPECT_EQ(std::memcmp(mean.data(), expected.data(), n * sizeof(float)), 0) << what;
      EXPECT_LE(mostHeld, std::size_t(std::bit_width(unsigned(count)))) << what;
      EXPECT_EQ(held, 0u) << what;  // every buffer handed back
    }
  }
}

// Replicas handed over several at once (the shards of a language-model step that run as one
// batch), or every replica's values range by range, give the bits of one replica at a time, in the
// tree and the ring, whatever the groups and ranges, over arrays longer than the reduction's
// blocks, held in fp32 or stochastic bf16, with unequal weights.
TEST(GradientAllReduce, ReplicasAddedSeveralAtOnceOrRangeByRangeGiveTheBitsOfOneAtATime) {
  numerics::RoundingSpec stochastic = bf16();
  stochastic.mode = numerics::RoundingMode::Stochastic;
  constexpr std::size_t n = 2 * 4096 + 37;
  for (const std::optional<numerics::RoundingSpec>& format :
       {std::optional<numerics::RoundingSpec>{}, std::optional(stochastic)}) {
    for (const backends::ReduceOrder order :
         {backends::ReduceOrder::Tree, backends::ReduceOrder::Ring}) {
      for (const int count : {2, 5, 8}) {
        const auto replicaCount = static_cast<std::size_t>(count);
        std::vector<std::vector<float>> replicas(replicaCount, std::vector<float>(n));
        std::vector<double> weights(replicaCount);
        for (int r = 0; r < count; ++r) {
          testing::fillUniform(replicas[std::size_t(r)].data(), n, std::uint64_t(count * 16 + r));
          for (std::size_t i = 0; i < n; i += 5) replicas[std::size_t(r)][i] *= 4096.0f;
          weights[std::size_t(r)] = r % 2 == 0 ? 4.0 / 3.0 : 2.0 / 3.0;
        }
        backends::ReductionPolicy reduction;
        reduction.allReduce = format;
        reduction.order = order;
        auto oneAtATime = replicas;
        std::vector<float> expected(n);
        allReduceMean(oneAtATime, count, expected.data(), n, reduction, 77, &weights);
        for (const int group : {2, 3, count}) {
          auto grouped = replicas;
          std::vector<float*> gradients;
          for (auto& replica : grouped) gradients.push_back(replica.data());
          ReplicaAllReduce reduce;
          reduce.begin(count, n, reduction, 77);
          std::size_t released = 0;
          for (int first = 0; first < count; first += group) {
            const auto size = std::size_t(std::min(group, count - first));
            reduce.add(std::span(gradients).subspan(std::size_t(first), size),
                       std::span<const double>(weights).subspan(std::size_t(first), size));
            released += reduce.released().size();
          }
          std::vector<float> mean(n);
          reduce.finish(mean.data());
          released += reduce.released().size();
          const std::string what = "count " + std::to_string(count) + " in groups of " +
                                   std::to_string(group) + (format ? ", bf16" : ", fp32") +
                                   (order == backends::ReduceOrder::Ring ? ", ring" : ", tree");
          EXPECT_EQ(std::memcmp(mean.data(), expected.data(), n * sizeof(float)), 0) << what;
          EXPECT_EQ(released, std::size_t(count)) << what;  // every buffer handed back
        }
        // The whole reduction range by range (a parameter at a time), ranges cut across blocks
        // and ring chunks.
        auto ranged = replicas;
        ReplicaAllReduce reduce;
        reduce.begin(count, n, reduction, 77);
        std::vector<float> mean(n);
        for (const auto& [lo, hi] :
             {std::pair<std::size_t, std::size_t>{0, 3}, {3, 4100}, {4100, 6000}, {6000, n}}) {
          std::vector<float*> at;
          for (auto& replica : ranged) at.push_back(replica.data() + lo);
          reduce.reduceRange(at, weights, lo, hi - lo, mean.data() + lo);
        }
        EXPECT_EQ(std::memcmp(mean.data(), expected.data(), n * sizeof(float)), 0)
            << "count " << count << " by ranges" << (format ? ", bf16" : ", fp32")
            << (order == backends::ReduceOrder::Ring ? ", ring" : ", tree");
      }
    }
  }
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
