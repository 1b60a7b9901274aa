// Weights rounded once per training step and shared by its products (StepOperandCache): the
// shared copy is what gemm() would have rounded itself, so a product reading it gives the same
// bits; roundings that cannot be shared (stochastic, scaled, measured by the X-ray) are left to
// gemm(); clear() makes the next step round the new weights.
#include "core/nn/step_operand_cache.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include "core/backends/precision_policy.h"
#include "core/nn/gemm_xray.h"

namespace paritylab::nn {
namespace {

std::vector<float> operandValues(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = normal(rng);
  return v;
}

TEST(StepOperandCache, AProductReadingTheSharedWeightsGivesTheSameBitsAsRoundingThemItself) {
  const int m = 37, n = 24, k = 19;
  const std::vector<float> x = operandValues(std::size_t(m) * k, 1);
  const std::vector<float> w = operandValues(std::size_t(n) * k, 2);  // [n, k], read transposed
  for (const char* preset : {"gpu-amp-bf16", "tpu-bf16", "pure-bf16", "gpu-amp-fp16"}) {
    const backends::PrecisionPolicy whole = backends::presetPolicy(preset);  // a value
    const backends::GemmPolicy& policy =
        whole.gemmFor(backends::LayerKind::Linear, backends::Product::Forward);
    GemmWorkspace ws;
    std::vector<float> own(std::size_t(m) * n), shared(std::size_t(m) * n);
    gemm(policy, Trans::No, Trans::Yes, m, n, k, 1.0f, x.data(), k, w.data(), k, 0.0f, own.data(),
         n, ws);
    StepOperandCache cache;
    GemmExtras extras;
    const float* b = cache.operand(7, policy, Operand::B, extras, w.data(), w.size());
    ASSERT_NE(b, w.data()) << preset;  // a deterministic operand rounding is shared
    extras.roundedB = b;
    gemm(policy, Trans::No, Trans::Yes, m, n, k, 1.0f, x.data(), k, b, k, 0.0f, shared.data(), n,
         ws, extras);
    EXPECT_EQ(std::memcmp(own.data(), shared.data(), own.size() * sizeof(float)), 0) << preset;
    // The same key and rounding within a step: the same copy, not rounded again.
    EXPECT_EQ(cache.operand(7, policy, Operand::B, GemmExtras{}, w.data(), w.size()), b);
  }
}

TEST(StepOperandCache, RoundingsThatCannotBeSharedAreLeftToTheProduct) {
  const std::vector<float> w = operandValues(64, 3);
  StepOperandCache cache;
  backends::GemmPolicy policy = backends::presetPolicy("tpu-bf16").linear.forward;
  GemmExtras scaled;
  scaled.scaleB = 4.0f;
  EXPECT_EQ(cache.operand(1, policy, Operand::B, scaled, w.data(), w.size()), w.data());
  GemmXraySlot slot;
  GemmExtras measured;
  measured.xray = &slot;
  EXPECT_EQ(cache.operand(1, policy, Operand::B, measured, w.data(), w.size()), w.data());
  backends::GemmPolicy stochastic = policy;
  stochastic.operands->mode = numerics::RoundingMode::Stochastic;
  EXPECT_EQ(cache.operand(1, stochastic, Operand::B, GemmExtras{}, w.data(), w.size()), w.data());
  const backends::GemmPolicy fp32 = backends::presetPolicy("cpu-fp32").linear.forward;
  EXPECT_EQ(cache.operand(1, fp32, Operand::B, GemmExtras{}, w.data(), w.size()), w.data());
}

TEST(StepOperandCache, AfterClearTheNextStepRoundsTheUpdatedWeights) {
  std::vector<float> w = operandValues(32, 4);
  const backends::GemmPolicy policy = backends::presetPolicy("tpu-bf16").linear.forward;
  const numerics::Rounder bf16(*policy.operands);
  StepOperandCache cache;
  const float* first = cache.operand(2, policy, Operand::B, GemmExtras{}, w.data(), w.size());
  EXPECT_EQ(first[5], bf16.round(w[5]));
  w[5] += 1.0f;  // the optimizer's update
  cache.clear();
  const float* second = cache.operand(2, policy, Operand::B, GemmExtras{}, w.data(), w.size());
  EXPECT_EQ(second[5], bf16.round(w[5]));
}

// NVFP4's square weight blocks of a convolution [Cout, Cin, taps]: quantized once per step, by the
// first product that asks, and shared by the forward and the data-gradient product (the same
// values as each quantizing its own along its reduction); stochastic rounding, a Hadamard
// transform or an X-ray step leave each product its own; clear() quantizes the new weights.
TEST(StepOperandCache, SquareWeightBlocksAreQuantizedOncePerStepForBothConvolutionProducts) {
  const int cout = 36, cin = 40, taps = 9;
  const std::vector<float> w = operandValues(std::size_t(cout) * cin * taps, 3);
  const backends::PrecisionPolicy nvfp4 = backends::presetPolicy("nvfp4");
  const backends::GemmPolicy& forward =
      nvfp4.gemmFor(backends::LayerKind::Conv, backends::Product::Forward);
  const backends::GemmPolicy& data =
      nvfp4.gemmFor(backends::LayerKind::Conv, backends::Product::BackwardData);
  ASSERT_TRUE(forward.scalingA && forward.scalingA->squareBlocks);
  StepOperandCache cache;
  const GemmExtras extras;
  float scale = 0.0f, sharedScale = 0.0f;
  const float* first = cache.squareWeights(7, forward, extras, w.data(), cout, cin, taps, scale);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(cache.squareWeights(7, data, extras, w.data(), cout, cin, taps, sharedScale), first);
  EXPECT_EQ(sharedScale, scale);
  for (const auto& [policy, axis] : {std::pair{&forward, numerics::BlockAxis::Row},
                                     std::pair{&data, numerics::BlockAxis::Column}}) {
    std::vector<float> own;
    float ownScale = 0.0f;
    ASSERT_TRUE(prequantizeSquareConvWeights(*policy, Operand::A, extras, w.data(), own, cout, cin,
                                             taps, axis, &ownScale));
    EXPECT_EQ(std::memcmp(own.data(), first, w.size() * sizeof(float)), 0);
    EXPECT_EQ(ownScale, scale);  // NVFP4's tensor scale, handed to the products with the values
  }
  backends::GemmPolicy stochastic = forward;
  stochastic.scalingA->rounding = numerics::RoundingMode::Stochastic;
  EXPECT_EQ(cache.squareWeights(7, stochastic, extras, w.data(), cout, cin, taps, scale), nullptr);
  backends::GemmPolicy transformed = forward;
  transformed.hadamard = true;
  EXPECT_EQ(cache.squareWeights(7, transformed, extras, w.data(), cout, cin, taps, scale), nullptr);
  GemmXraySlot slot;
  GemmExtras measured;
  measured.xray = &slot;
  EXPECT_EQ(cache.squareWeights(7, forward, measured, w.data(), cout, cin, taps, scale), nullptr);
  // The next step: the optimizer moved the weights.
  std::vector<float> moved = w;
  for (float& x : moved) x *= 3.0f;
  cache.clear();
  const float* next = cache.squareWeights(7, forward, extras, moved.data(), cout, cin, taps, scale);
  std::vector<float> own;
  ASSERT_TRUE(prequantizeSquareConvWeights(forward, Operand::A, extras, moved.data(), own, cout,
                                           cin, taps, numerics::BlockAxis::Row));
  EXPECT_EQ(std::memcmp(own.data(), next, w.size() * sizeof(float)), 0);
}

}  // namespace
}  // namespace paritylab::nn
