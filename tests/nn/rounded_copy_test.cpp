// A tensor rounded once for every product that reads it alike: a product that reads the copy gets
// the bits of its own rounding, a product that rounds differently (another format, stochastic
// draws, a measured step) is not given it, and training with the copies is bit for bit training
// without them (the X-ray's measured steps round every operand afresh).
#include "core/nn/rounded_copy.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "core/nn/gemm_xray.h"
#include "core/nn/optimizer.h"
#include "core/nn/training_session.h"
#include "language_model_test_support.h"

namespace paritylab::nn {
namespace {

backends::GemmPolicy operandPolicy(
    const char* format, numerics::RoundingMode mode = numerics::RoundingMode::NearestEven) {
  backends::GemmPolicy p;
  numerics::RoundingSpec spec;
  spec.format = *numerics::parseFormat(format);
  spec.mode = mode;
  p.operands = spec;
  return p;
}

std::vector<float> randomValues(std::size_t n, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> dist(0.0f, 3.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

TEST(RoundedCopy, AProductReadingTheCopyGetsTheBitsOfItsOwnRounding) {
  const int m = 7, n = 5, k = 33;
  const std::vector<float> a = randomValues(std::size_t(m) * k, 1);
  const std::vector<float> b = randomValues(std::size_t(k) * n, 2);
  for (const char* format : {"bf16", "fp16", "fp8-e4m3", "tf32"}) {
    const backends::GemmPolicy policy = operandPolicy(format);
    GemmWorkspace ws;
    std::vector<float> own(std::size_t(m) * n), shared(std::size_t(m) * n);
    gemm(policy, Trans::No, Trans::No, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f, own.data(), n,
         ws);
    RoundedCopy copyA, copyB;
    GemmExtras e;
    const float* ra = useRounded(copyA.round(a.data(), a.size(), policy, Operand::A, e), a.data(),
                                 0, Operand::A, e);
    const float* rb = useRounded(copyB.round(b.data(), b.size(), policy, Operand::B, e), b.data(),
                                 0, Operand::B, e);
    ASSERT_NE(ra, a.data()) << format;
    ASSERT_EQ(e.roundedA, ra) << format;
    gemm(policy, Trans::No, Trans::No, m, n, k, 1.0f, ra, k, rb, n, 0.0f, shared.data(), n, ws, e);
    EXPECT_EQ(own, shared) << format;
    // The same copy serves a product that reads the tensor transposed (a weight gradient).
    EXPECT_EQ(copyA.forProduct(policy, Operand::B, GemmExtras{}), ra) << format;
  }
}

TEST(RoundedCopy, IsNotGivenToAProductThatWouldRoundOtherwise) {
  const std::vector<float> a = randomValues(64, 3);
  RoundedCopy copy;
  const GemmExtras plain;
  ASSERT_NE(copy.round(a.data(), a.size(), operandPolicy("bf16"), Operand::A, plain), nullptr);
  EXPECT_EQ(copy.forProduct(operandPolicy("fp16"), Operand::A, plain), nullptr);
  EXPECT_EQ(
      copy.forProduct(operandPolicy("bf16", numerics::RoundingMode::Stochastic), Operand::A, plain),
      nullptr);
  GemmExtras scaled;
  scaled.scaleA = 2.0f;
  EXPECT_EQ(copy.forProduct(operandPolicy("bf16"), Operand::A, scaled), nullptr);
  GemmXraySlot slot;
  GemmExtras measured;
  measured.xray = &slot;
  EXPECT_EQ(copy.forProduct(operandPolicy("bf16"), Operand::A, measured), nullptr);
  // A rounding that cannot be done ahead leaves no copy behind for the next product.
  EXPECT_EQ(
      copy.round(a.data(), a.size(), operandPolicy("bf16", numerics::RoundingMode::Stochastic),
                 Operand::A, plain),
      nullptr);
  EXPECT_EQ(copy.forProduct(operandPolicy("bf16"), Operand::A, plain), nullptr);
  // No rounding at all (fp32 operands): nothing to share.
  EXPECT_EQ(copy.round(a.data(), a.size(), backends::GemmPolicy{}, Operand::A, plain), nullptr);
}

// A small language model trained 3 steps with the X-ray measuring every step (every operand
// rounded by its own product) and without (operands rounded once and shared): the same weights.
TEST(RoundedCopy, LanguageModelTrainingIsBitForBitThatOfEachProductRoundingItsOwn) {
  const ModelSpec spec = testing::gptSpec({2, 2, 16, 8, true});
  const testing::TokenWindows w = testing::randomWindows(12, spec.gpt.blockSize, 11, 5);
  for (const char* preset : {"tpu-bf16", "gpu-amp-bf16", "pure-bf16", "fp8-e4m3"})
    testing::expectMeasuredStepsTrainTheSameBits(spec, backends::presetPolicy(preset), w, preset);
}

}  // namespace
}  // namespace paritylab::nn
