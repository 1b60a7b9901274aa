// The X-ray of a tensor against a format, on synthetic tensors whose exponent
// histograms and underflow / subnormal / overflow fractions are known by construction, for bf16,
// fp16, fp8-e4m3 and fp8-e5m2 (saturating and not), and the SQNR of a hand-computed case.

#include "core/numerics/tensor_xray.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace paritylab::numerics {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

Rounder rounderFor(const char* format, OverflowMode overflow = OverflowMode::Ieee) {
  RoundingSpec spec;
  spec.format = *parseFormat(format);
  spec.overflow = overflow;
  return Rounder(spec);
}

std::int64_t bin(const TensorXray& x, int exponent) {
  return x.exponentBins[std::size_t(exponent - TensorXray::kMinExponent)];
}

std::int64_t binTotal(const TensorXray& x) {
  std::int64_t total = 0;
  for (auto n : x.exponentBins) total += n;
  return total;
}

TEST(TensorXray, ExponentOfCoversTheFp32Range) {
  EXPECT_EQ(TensorXray::exponentOf(1.0f), 0);
  EXPECT_EQ(TensorXray::exponentOf(-1.99f), 0);
  EXPECT_EQ(TensorXray::exponentOf(0.5f), -1);
  EXPECT_EQ(TensorXray::exponentOf(std::numeric_limits<float>::max()), 127);
  EXPECT_EQ(TensorXray::exponentOf(std::numeric_limits<float>::min()), -126);
  EXPECT_EQ(TensorXray::exponentOf(std::numeric_limits<float>::denorm_min()), -149);
  EXPECT_EQ(TensorXray::exponentOf(std::ldexp(3.0f, -140)), -139);  // subnormal 1.5 * 2^-139
}

TEST(TensorXray, Bf16HistogramAndFractions) {
  const std::vector<float> v = {0.0f,   -0.0f,  1.0f, -1.5f, 3e38f,
                                1e-40f, 1e-45f, kInf, kNaN,  std::numeric_limits<float>::min()};
  const TensorXray x = xrayOf(v, rounderFor("bf16"));
  EXPECT_EQ(x.count, 10);
  EXPECT_EQ(x.zeros, 2);
  EXPECT_EQ(x.nonFinite, 2);
  EXPECT_EQ(x.nonzeroFinite(), 6);
  EXPECT_EQ(bin(x, 0), 2);
  EXPECT_EQ(bin(x, 127), 1);
  EXPECT_EQ(bin(x, -133), 1);  // 1e-40 is in [2^-133, 2^-132)
  EXPECT_EQ(bin(x, -149), 1);  // 1e-45 is the fp32 2^-149
  EXPECT_EQ(bin(x, -126), 1);
  EXPECT_EQ(binTotal(x), 6);
  EXPECT_EQ(x.amax, double(3e38f));
  EXPECT_EQ(x.minNonzero, std::ldexp(1.0, -149));
  EXPECT_EQ(x.flushed, 1);    // 2^-149 is below half of bf16's min subnormal 2^-133
  EXPECT_EQ(x.subnormal, 1);  // 1e-40 rounds to a bf16 subnormal (min normal 2^-126)
  EXPECT_EQ(x.overflowed, 0);
  EXPECT_DOUBLE_EQ(x.underflowFraction(), 1.0 / 6.0);
  EXPECT_DOUBLE_EQ(x.subnormalFraction(), 1.0 / 6.0);
}

TEST(TensorXray, Fp16OverflowThresholdIsHalfAnUlpAboveMaxFinite) {
  // fp16: max 65504, ulp there 32, so nearest rounding overflows from 65520; min normal 2^-14,
  // min subnormal 2^-24 (values below 2^-25 flush).
  const std::vector<float> v = {1.0f,  65504.0f, 65519.0f, 65520.0f, 1e5f,
                                6e-8f, 2e-8f,    1e-5f,    3e-8f};
  const TensorXray x = xrayOf(v, rounderFor("fp16"));
  EXPECT_EQ(x.nonzeroFinite(), 9);
  EXPECT_EQ(x.overflowed, 2);  // 65520 and 1e5 become inf; 65519 rounds to 65504
  EXPECT_EQ(x.flushed, 1);     // 2e-8
  EXPECT_EQ(x.subnormal, 3);   // 6e-8, 3e-8 (round to 2^-24) and 1e-5
  EXPECT_DOUBLE_EQ(x.overflowFraction(), 2.0 / 9.0);
  EXPECT_DOUBLE_EQ(x.underflowFraction(), 1.0 / 9.0);
  EXPECT_DOUBLE_EQ(x.subnormalFraction(), 3.0 / 9.0);
  EXPECT_EQ(bin(x, 15), 3);   // 65504 .. 65520 are in [2^15, 2^16)
  EXPECT_EQ(bin(x, 16), 1);   // 1e5
  EXPECT_EQ(bin(x, -17), 1);  // 1e-5
  // The two infinities are left out of the error.
  EXPECT_EQ(x.maxRelativeError, 1.0);  // 2e-8 flushed: relative error exactly 1
}

// fp8-e4m3: max 448 (ulp 32, overflow from 464), min normal 2^-6, min subnormal 2^-9.
std::vector<float> e4m3Values() {
  return {448.0f, 460.0f, 500.0f, 1000.0f, std::ldexp(1.0f, -9), std::ldexp(1.0f, -11), 1.0f};
}

TEST(TensorXray, E4m3SaturatingClampsAndCountsTheErrorOfTheClamp) {
  const TensorXray x = xrayOf(e4m3Values(), rounderFor("fp8-e4m3", OverflowMode::Saturate));
  EXPECT_EQ(x.overflowed, 2);  // 500 and 1000, clamped to 448
  EXPECT_EQ(x.flushed, 1);     // 2^-11
  EXPECT_EQ(x.subnormal, 1);   // 2^-9
  // The clamps are in the error: 460, 500 and 1000 all become 448; 2^-11 flushes (relative 1).
  EXPECT_DOUBLE_EQ(x.maxRelativeError, 1.0);
  const double signal = 448.0 * 448 + 460.0 * 460 + 500.0 * 500 + 1000.0 * 1000 +
                        std::ldexp(1.0, -18) + std::ldexp(1.0, -22) + 1;
  const double error = 12.0 * 12 + 52.0 * 52 + 552.0 * 552 + std::ldexp(1.0, -22);
  EXPECT_NEAR(x.sqnrDb(), 10.0 * std::log10(signal / error), 1e-9);
  EXPECT_EQ(bin(x, 8), 3);  // 448, 460, 500
  EXPECT_EQ(bin(x, 9), 1);  // 1000
}

TEST(TensorXray, E4m3WithoutSaturationGivesNaNLeftOutOfTheError) {
  const TensorXray x = xrayOf(e4m3Values(), rounderFor("fp8-e4m3"));
  EXPECT_EQ(x.overflowed, 2);  // 500 and 1000 become NaN (E4M3 has no inf)
  EXPECT_EQ(x.flushed, 1);
  EXPECT_EQ(x.subnormal, 1);
  // Left: 448 exact, 460 -> 448, 2^-9 exact, 2^-11 -> 0 (relative error 1), 1 exact.
  EXPECT_DOUBLE_EQ(x.maxRelativeError, 1.0);
  const double signal = 448.0 * 448 + 460.0 * 460 + std::ldexp(1.0, -18) + std::ldexp(1.0, -22) + 1;
  const double error = 12.0 * 12 + std::ldexp(1.0, -22);
  EXPECT_NEAR(x.sqnrDb(), 10.0 * std::log10(signal / error), 1e-9);
}

TEST(TensorXray, E5m2SaturateAndInf) {
  // fp8-e5m2: max 57344 (ulp 8192, overflow from 61440), min normal 2^-14, min subnormal 2^-16.
  const std::vector<float> v = {
      57344.0f, 60000.0f, 70000.0f, std::ldexp(1.0f, -16), std::ldexp(1.0f, -18), 1.0f};
  for (OverflowMode mode : {OverflowMode::Ieee, OverflowMode::Saturate}) {
    const TensorXray x = xrayOf(v, rounderFor("fp8-e5m2", mode));
    EXPECT_EQ(x.overflowed, 1) << toString(mode);  // 70000 only
    EXPECT_EQ(x.flushed, 1) << toString(mode);     // 2^-18
    EXPECT_EQ(x.subnormal, 1) << toString(mode);   // 2^-16
    EXPECT_DOUBLE_EQ(x.overflowFraction(), 1.0 / 6.0);
    EXPECT_EQ(bin(x, 15), 2);
    EXPECT_EQ(bin(x, 16), 1);
  }
  const TensorXray inf = xrayOf(v, rounderFor("fp8-e5m2"));
  const TensorXray sat = xrayOf(v, rounderFor("fp8-e5m2", OverflowMode::Saturate));
  EXPECT_LT(sat.sqnrDb(), inf.sqnrDb());  // the clamp of 70000 to 57344 is an error counted
}

TEST(TensorXray, SqnrOfAHandComputedCase) {
  // bf16, nearest-even: 1 + 2^-8 is a tie between 1 and 1 + 2^-7 and goes to 1 (error 2^-8);
  // 3 is exact. Signal (1 + 2^-8)^2 + 9 = 10.0078277587890625, error 2^-16: the ratio is
  // 10.0078277587890625 * 65536 = 655873, SQNR = 10 log10(655873) = 58.16822... dB.
  const std::vector<float> v = {1.0f + std::ldexp(1.0f, -8), 3.0f};
  const TensorXray x = xrayOf(v, rounderFor("bf16"));
  EXPECT_NEAR(x.sqnrDb(), 58.168198, 1e-6);
  EXPECT_DOUBLE_EQ(x.maxRelativeError, 1.0 / 257.0);  // 2^-8 / (1 + 2^-8)
}

TEST(TensorXray, ExactRoundingHasInfiniteSqnrAndMergeAddsUp) {
  const std::vector<float> a = {1.0f, 2.0f, 0.0f};
  const std::vector<float> b = {std::ldexp(1.0f, -20)};
  const Rounder fp16 = rounderFor("fp16");
  TensorXray x = xrayOf(a, fp16);
  EXPECT_TRUE(std::isinf(x.sqnrDb()));
  x.merge(xrayOf(b, fp16));
  EXPECT_EQ(x.count, 4);
  EXPECT_EQ(x.zeros, 1);
  EXPECT_EQ(x.subnormal, 1);
  EXPECT_EQ(x.minNonzero, std::ldexp(1.0, -20));
  EXPECT_EQ(x.amax, 2.0);
  EXPECT_TRUE(std::isinf(x.sqnrDb()));  // 2^-20 is an exact fp16 subnormal
  EXPECT_TRUE(std::isnan(TensorXray{}.sqnrDb()));
}

}  // namespace
}  // namespace paritylab::numerics
