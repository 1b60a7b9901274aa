// The block quantizer's narrowings of a double to fp32 against their definitions: the bounds by
// the neighbouring fp32 values of every bound, the quotient to odd without a division against
// roundToOdd of the correctly rounded double quotient, over every exponent, subnormals, exact
// quotients and the quotients just beside fp32 values.

#include "core/numerics/fp32_narrowing.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace paritylab::numerics {
namespace {

std::uint32_t bitsOf(float x) {
  return std::bit_cast<std::uint32_t>(x);
}

// Doubles t >= 0 across fp32's range and past it: fp32 values themselves, values between two
// fp32s, just beside them, below the smallest subnormal, zero.
std::vector<double> boundCases() {
  std::mt19937_64 gen(7);
  std::uniform_int_distribution<std::uint32_t> pattern(0, 0x7f7fffffU);
  std::vector<double> ts = {0.0, 1e-50, std::numeric_limits<float>::denorm_min() / 2,
                            std::numeric_limits<float>::max(),
                            double(std::numeric_limits<float>::max()) * (1 + 1e-12)};
  for (int i = 0; i < 20000; ++i) {
    const double f = std::bit_cast<float>(pattern(gen));
    const double next = std::nextafter(float(f), std::numeric_limits<float>::infinity());
    ts.push_back(f);
    ts.push_back(0.5 * (f + next));                                            // a midpoint
    ts.push_back(std::nextafter(f, 0.0));                                      // just below an fp32
    ts.push_back(std::nextafter(f, std::numeric_limits<double>::infinity()));  // just above
  }
  return ts;
}

TEST(Fp32Narrowing, BoundsAnswerEveryComparisonAsTheDouble) {
  const float inf = std::numeric_limits<float>::infinity();
  for (const double t : boundCases()) {
    const float below = floatBelow(t);
    const float above = floatAbove(t);
    // below is an fp32 not above t whose successor is above t; above the mirror image.
    ASSERT_LE(double(below), t) << t;
    if (t < double(std::numeric_limits<float>::max())) {
      ASSERT_GT(double(std::nextafter(below, inf)), t) << t;
    }
    ASSERT_GE(double(above), t) << t;
    if (above > 0.0f) {
      ASSERT_LT(double(std::nextafter(above, 0.0f)), t) << t;
    }
    // The comparisons themselves, for the fp32 values around t.
    for (const float a : {below, above, std::nextafter(below, 0.0f), std::nextafter(above, inf)}) {
      ASSERT_EQ(a > t, a > below) << a << " > " << t;
      ASSERT_EQ(a >= t, a >= above) << a << " >= " << t;
    }
  }
}

// x / factor to odd, the way the block quantizer calls it: factor = an E4M3 block scale times an
// fp32 tensor scale, x any finite fp32 of either sign.
TEST(Fp32Narrowing, QuotientToOddEqualsRoundToOddOfTheQuotient) {
  std::mt19937_64 gen(11);
  std::uniform_int_distribution<std::uint32_t> pattern(0, 0x7f7fffffU);
  std::uniform_int_distribution<int> mantissa(8, 15);  // E4M3 significands, times 2^-3
  std::uniform_int_distribution<int> exponent(-9, 8);
  std::uniform_int_distribution<int> small(0, 40);
  std::int64_t checked = 0;
  const auto check = [&](float x, double factor) {
    const float want = roundToOdd(double(x) / factor);
    const float got = quotientToOdd(x, factor, 1.0 / factor);
    ASSERT_EQ(bitsOf(got), bitsOf(want)) << x << " / " << factor;
    ++checked;
  };
  for (int i = 0; i < 300000; ++i) {
    const double blockScale = std::ldexp(mantissa(gen) / 8.0, exponent(gen));
    // A tensor scale anywhere in fp32 (subnormals included), and one near 1.
    const float wide = std::bit_cast<float>(pattern(gen) | 1U);
    const float nearOne = std::bit_cast<float>(0x3f000000U + (pattern(gen) & 0x00ffffffU));
    for (const float tensorScale : {wide, nearOne}) {
      const double factor = blockScale * tensorScale;
      // x around factor x (an E2M1-sized quotient), exactly on a multiple, far below (subnormal
      // quotients), any fp32, and the fp32 neighbours of an exact product.
      const auto around = [&](double q) { return static_cast<float>(q * factor); };
      const float onGrid = around(small(gen) * 0.25);
      for (const float x : {around(std::ldexp(double(pattern(gen) & 0xffffffU), -22)), onGrid,
                            std::nextafter(onGrid, 0.0f),
                            std::nextafter(onGrid, std::numeric_limits<float>::infinity()),
                            around(std::ldexp(1.0, -140)), std::bit_cast<float>(pattern(gen)),
                            std::bit_cast<float>(pattern(gen) & 0x007fffffU)}) {
        if (!std::isfinite(x) || !std::isfinite(double(x) / factor) ||
            std::fabs(double(x) / factor) > std::numeric_limits<float>::max())
          continue;
        check(x, factor);
        check(-x, factor);
      }
    }
  }
  for (const float x : {0.0f, -0.0f, std::numeric_limits<float>::denorm_min(), 6.0f, 448.0f})
    check(x, 1.0);
  EXPECT_GT(checked, 3000000);
}

}  // namespace
}  // namespace paritylab::numerics
