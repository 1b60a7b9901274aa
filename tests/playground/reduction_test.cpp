// Reduction length and order.
#include "core/playground/reduction.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>

#include "core/backends/precision_policy.h"
#include "core/nn/random.h"
#include "core/playground/exact_sum.h"

namespace paritylab::playground {
namespace {

// bf16 round-to-nearest-even by bit manipulation (finite values), independent of core/numerics.
float toBf16(float x) {
  std::uint32_t u = std::bit_cast<std::uint32_t>(x);
  u += 0x7fffu + ((u >> 16) & 1u);
  return std::bit_cast<float>(u & 0xffff0000u);
}

const OperandRounding& rounding(const std::vector<OperandRounding>& all, const std::string& name) {
  for (const auto& r : all)
    if (r.name == name) return r;
  throw std::runtime_error("no operand rounding " + name);
}

// Sequential fp32 summation of 1 followed by 1000 copies of 2^-24. Every
// 1 + 2^-24 is a tie between 1 and 1 + 2^-23 and rounds to even, 1: the sum stays 1, while the
// exact sum is 1 + 1000 * 2^-24. By hand: error 1000 * 2^-24 = 5.9604644775390625e-05,
// normalised by the magnitude sum 1 + 1000 * 2^-24: 5.960109227345744e-05.
TEST(ReductionOrders, SequentialFp32ErrorOnAConstructedCaseEqualsTheHandValue) {
  std::vector<float> a(1001, 0x1p-24f), b(1001, 1.0f);
  a[0] = 1.0f;
  const std::vector<float> products =
      roundedProducts(rounding(presetOperandRoundings(), "fp32"), a, b);
  const float sum = sequentialSum(products);
  EXPECT_EQ(sum, 1.0f);
  const double exact = exactDot(a.data(), b.data(), a.size());
  EXPECT_EQ(exact, 1.0 + 1000 * 0x1p-24);
  EXPECT_EQ(std::fabs(sum - exact), 5.9604644775390625e-05);
  EXPECT_DOUBLE_EQ(normalizedError(sum, exact, exact), 5.960109227345744e-05);
  // The pairwise tree adds like magnitudes and keeps every bit here: the exact 1 + 500 * 2^-23
  // (checked with a Python emulation of the same tree rounding each addition to fp32).
  EXPECT_EQ(pairwiseSum(products), 1.0f + 500 * 0x1p-23f);
}

// The 8-shard order, by hand: shards of one value each reduced ((0+1)+(2+3))+((4+5)+(6+7)).
// (1 + 2^-24) = 1 (tie to even), (2^-24 + 2^-24) = 2^-23, 1 + 2^-23 exact, then + 2^-24 is a tie
// between 1 + 2^-23 (odd) and 1 + 2^-22 (even): 1 + 2^-22, the exact sum. Sequential gives 1.
TEST(ReductionOrders, BlockedOrderIsEightShardsThenTheAllReduceTree) {
  const std::vector<float> v = {1.0f, 0x1p-24f, 0x1p-24f, 0x1p-24f, 0x1p-24f, 0.0f, 0.0f, 0.0f};
  EXPECT_EQ(blockedSum(v), 1.0f + 0x1p-22f);
  EXPECT_EQ(sequentialSum(v), 1.0f);
  // Shards of uneven length cover every element once.
  std::vector<float> ones(13, 1.0f);
  EXPECT_EQ(blockedSum(ones), 13.0f);
  EXPECT_EQ(pairwiseSum(ones), 13.0f);
}

TEST(ReductionOrders, LowPrecisionAccumulationRoundsTheRunningSum) {
  numerics::RoundingSpec bf16Spec;
  bf16Spec.format = *numerics::parseFormat("bf16");
  // 256 + 1 is a tie in bf16 (8 significant bits): stays 256 every time.
  std::vector<float> v(100, 1.0f);
  v.insert(v.begin(), 256.0f);
  EXPECT_EQ(lowPrecisionSequentialSum(v, bf16Spec), 256.0f);
  EXPECT_EQ(sequentialSum(v), 356.0f);
}

TEST(OperandRoundings, PresetsShareOperandRoundingsAndProductsGoThroughTheirPolicy) {
  const auto all = presetOperandRoundings();
  std::vector<std::string> names;
  for (const auto& r : all) names.push_back(r.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"fp32", "tf32 (nearest-away)", "bf16", "fp16", "bf16x3",
                                      "bf16x6", "fp8-e4m3 (scaled)", "fp8-e4m3fnuz (scaled)"}));
  EXPECT_EQ(rounding(all, "bf16").backends,
            (std::vector<std::string>{"gpu-amp-bf16", "tpu-bf16", "pure-bf16"}));
  EXPECT_EQ(rounding(all, "tf32 (nearest-away)").backends,
            (std::vector<std::string>{"gpu-tf32 (conv)"}));

  const std::vector<float> a = randomVector(Distribution::Normal, 37, 1);
  const std::vector<float> b = randomVector(Distribution::Normal, 37, 2);
  const auto fp32 = roundedProducts(rounding(all, "fp32"), a, b);
  const auto bf = roundedProducts(rounding(all, "bf16"), a, b);
  const auto x6 = roundedProducts(rounding(all, "bf16x6"), a, b);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(fp32[i], a[i] * b[i]) << i;
    EXPECT_EQ(bf[i], toBf16(a[i]) * toBf16(b[i])) << i;
    EXPECT_NEAR(x6[i], a[i] * b[i], 2e-7 * std::fabs(a[i] * b[i])) << i;
  }
}

TEST(ReductionExperiment, SmallRunHasEveryCurveAndOrderMattersAtLength) {
  ReductionConfig config;
  config.lengths = {16, 4096, 65536};
  config.trials = 3;
  const ReductionExperiment e = runReductionExperiment(config);
  const std::size_t roundings = presetOperandRoundings().size();
  ASSERT_EQ(e.curves.size(), roundings * 3 + 2);
  for (const auto& c : e.curves) {
    ASSERT_EQ(c.points.size(), 3u) << c.label;
    for (const auto& p : c.points) {
      ASSERT_EQ(p.totalError.size(), 3u);
      for (double err : p.totalError) EXPECT_TRUE(std::isfinite(err)) << c.label;
    }
  }
  // fp32 operands, uniform [0,1) at K = 65536: sequential accumulation loses far more than the
  // pairwise tree (the bounds grow like K u and log2(K) u).
  const Band sequential = band(e.curves[0].points[2].accumulationError);
  const Band pairwise = band(e.curves[1].points[2].accumulationError);
  EXPECT_EQ(e.curves[0].order, "sequential");
  EXPECT_EQ(e.curves[1].order, "pairwise");
  EXPECT_GT(sequential.min, 4 * pairwise.max);
  // The same seed gives the same numbers.
  EXPECT_EQ(runReductionExperiment(config).curves[5].points[1].totalError,
            e.curves[5].points[1].totalError);
  config.lengths = {0};
  EXPECT_THROW(runReductionExperiment(config), std::invalid_argument);
}

}  // namespace
}  // namespace paritylab::playground
