// The chaos floor's two perturbations at the level of rounding noise: one initial weight moved one
// fp32 ulp (the run is otherwise the same, bit for bit), and every product summing its K terms in
// reverse order (the same terms: exact sums stay equal; inexact ones are the reversed fp32 sum).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/backends/precision_policy.h"
#include "core/nn/gemm.h"
#include "core/nn/optimizer.h"
#include "core/nn/param_store.h"
#include "core/nn/training_session.h"
#include "nn_test_support.h"

namespace paritylab::nn {
namespace {

TEST(ChaosNudge, NudgedModelIsTheSameModelExceptOneWeightByOneUlp) {
  const ModelSpec spec{"small-cnn", 1, 28, 28, 10, 8, {}};
  const backends::PrecisionPolicy policy = backends::presetPolicy("cpu-fp32");
  TrainingSession reference(spec, policy, 7), nudged(spec, policy, 7);
  const std::string layer = nudgeFirstWeight(nudged.model().params);
  nudged.weightsChanged(0);
  EXPECT_EQ(layer, nudged.model().params.info(0).name);
  const std::vector<float>& before = reference.model().params.masterData();
  const std::vector<float>& after = nudged.model().params.masterData();
  ASSERT_EQ(before.size(), after.size());
  EXPECT_EQ(std::bit_cast<std::uint32_t>(after[0]),
            std::bit_cast<std::uint32_t>(before[0]) + (before[0] >= 0 ? 1u : std::uint32_t(-1)));
  EXPECT_EQ(after[0], std::nextafter(before[0], INFINITY));
  for (std::size_t i = 1; i < before.size(); ++i)
    ASSERT_EQ(std::bit_cast<std::uint32_t>(after[i]), std::bit_cast<std::uint32_t>(before[i]))
        << "parameter value " << i;

  // One step from there: the losses differ at most at the level of that one ulp's effect.
  const data::Dataset d = testing::syntheticImages(16, 1, 28, 10, 3);
  auto optA = makeOptimizer(OptimizerConfig{}), optB = makeOptimizer(OptimizerConfig{});
  const auto ranges = reference.model().params.weightRanges(false);
  const double lossA =
      reference.step(d.images.data(), d.labels.data(), 16, 0, *optA, 1e-3, ranges, 0.0).loss;
  const double lossB =
      nudged.step(d.images.data(), d.labels.data(), 16, 0, *optB, 1e-3, ranges, 0.0).loss;
  EXPECT_NEAR(lossA, lossB, 1e-5 * std::abs(lossA));
}

// 1, 1e8, -1e8 summed in fp32: forward (1 + 1e8) - 1e8 = 0, reversed (-1e8 + 1e8) + 1 = 1.
TEST(GemmReverseSummation, SumsTheSameTermsInTheOtherOrder) {
  GemmWorkspace ws;
  const float a[] = {1.0f, 1e8f, -1e8f};  // A [1, 3]
  const float b[] = {1.0f, 1.0f, 1.0f};   // B [3, 1]
  backends::GemmPolicy forward, reversed;
  reversed.reverseSummation = true;
  float c1 = 0, c2 = 0;
  gemm(forward, Trans::No, Trans::No, 1, 1, 3, 1.0f, a, 3, b, 1, 0.0f, &c1, 1, ws);
  gemm(reversed, Trans::No, Trans::No, 1, 1, 3, 1.0f, a, 3, b, 1, 0.0f, &c2, 1, ws);
  EXPECT_EQ(c1, 0.0f);
  EXPECT_EQ(c2, 1.0f);
}

// Integer operands: every partial sum is exact in fp32, so any order gives the exact product;
// transposed operands give the same bits as plain ones; beta * C is still added.
TEST(GemmReverseSummation, ExactProductsAreUnchangedWhateverTheLayout) {
  const int m = 5, n = 4, k = 37;
  std::vector<float> a(std::size_t(m) * k), b(std::size_t(k) * n), at(a.size()), bt(b.size());
  for (int i = 0; i < m; ++i)
    for (int p = 0; p < k; ++p) a[i * k + p] = at[p * m + i] = float((i * 7 + p * 3) % 11 - 5);
  for (int p = 0; p < k; ++p)
    for (int j = 0; j < n; ++j) b[p * n + j] = bt[j * k + p] = float((p * 5 + j) % 9 - 4);
  std::vector<double> exact(std::size_t(m) * n, 0.0);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      for (int p = 0; p < k; ++p) exact[i * n + j] += double(a[i * k + p]) * b[p * n + j];
  backends::GemmPolicy reversed;
  reversed.reverseSummation = true;
  GemmWorkspace ws;
  for (const Trans ta : {Trans::No, Trans::Yes}) {
    for (const Trans tb : {Trans::No, Trans::Yes}) {
      std::vector<float> c(std::size_t(m) * n, 2.0f);
      gemm(reversed, ta, tb, m, n, k, 1.0f, ta == Trans::No ? a.data() : at.data(),
           ta == Trans::No ? k : m, tb == Trans::No ? b.data() : bt.data(), tb == Trans::No ? n : k,
           1.0f, c.data(), n, ws);
      for (std::size_t i = 0; i < c.size(); ++i)
        EXPECT_EQ(double(c[i]), exact[i] + 2.0) << "element " << i;
    }
  }
}

}  // namespace
}  // namespace paritylab::nn
