// The block quantizer's amax and MX scale kernels against plain loops: groups of 16 and 32 (the
// vectorised widths, sixteen groups at a time) and of 7, lines with and without a short last
// group, values over fp32's whole range (zeros of both signs, subnormals, the largest finite), an
// infinity or a NaN in each part of a line; MX's scale exponents against std::ilogb.

#include "core/numerics/block_amax.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace paritylab::numerics {
namespace {

// Values with exponents spread over fp32's range, a few exact zeros and subnormals among them.
std::vector<float> spreadValues(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> exponent(-149, 127);
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> kind(0, 19);
  std::vector<float> v(n);
  for (float& x : v) {
    const int k = kind(gen);
    if (k == 0)
      x = (gen() & 1) ? -0.0f : 0.0f;
    else if (k == 1)
      x = std::numeric_limits<float>::max();
    else
      x = static_cast<float>(std::ldexp(mantissa(gen), exponent(gen) - 1) * ((gen() & 1) ? -1 : 1));
  }
  return v;
}

std::uint32_t magnitudeBits(float x) {
  return std::bit_cast<std::uint32_t>(x) & 0x7fffffffU;
}

std::vector<std::uint32_t> plainBlockAmax(const std::vector<float>& x, std::size_t width) {
  std::vector<std::uint32_t> out;
  for (std::size_t p0 = 0; p0 < x.size(); p0 += width) {
    std::uint32_t m = 0;
    for (std::size_t i = p0; i < std::min(x.size(), p0 + width); ++i)
      m = std::max(m, magnitudeBits(x[i]));
    out.push_back(m);
  }
  return out;
}

TEST(BlockAmax, EveryGroupsLargestMagnitudeAsThePlainLoop) {
  for (std::size_t width : {16u, 32u, 7u}) {
    for (std::size_t n : {std::size_t(16 * 32 * 3), std::size_t(16 * 32 * 3 + 45), width * 16,
                          width * 15 + 3, std::size_t(1)}) {
      for (unsigned seed : {1u, 2u}) {
        std::vector<float> x = spreadValues(n, seed);
        const std::vector<std::uint32_t> want = plainBlockAmax(x, width);
        std::vector<std::uint32_t> got(want.size(), 0xdeadbeefU);
        ASSERT_TRUE(finiteBlockAmax(x.data(), n, width, got.data())) << width << " " << n;
        EXPECT_EQ(got, want) << "width " << width << ", " << n << " values, seed " << seed;
      }
    }
  }
}

TEST(BlockAmax, GroupsOfZerosHaveAmaxZero) {
  std::vector<float> x(16 * 32 + 5, -0.0f);
  x[40] = 1.5f;  // group 1 (width 32)
  std::vector<std::uint32_t> got(x.size());
  ASSERT_TRUE(finiteBlockAmax(x.data(), x.size(), 32, got.data()));
  EXPECT_EQ(got[0], 0U);
  EXPECT_EQ(got[1], magnitudeBits(1.5f));
  EXPECT_EQ(got[2], 0U);
  EXPECT_EQ(got[16], 0U);  // the short last group
}

TEST(BlockAmax, AnInfinityOrNaNAnywhereIsReported) {
  const float specials[] = {
      std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
      std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN()};
  for (std::size_t width : {16u, 32u, 7u}) {
    const std::size_t n = 16 * 32 * 2 + 45;
    // the first value, inside the vectorised part, its last value, and the tail
    for (std::size_t at :
         {std::size_t(0), std::size_t(333), std::size_t(16 * width * 2 - 1), n - 1}) {
      for (float special : specials) {
        std::vector<float> x = spreadValues(n, 3);
        x[at] = special;
        std::vector<std::uint32_t> amax((n + width - 1) / width);
        EXPECT_FALSE(finiteBlockAmax(x.data(), n, width, amax.data()))
            << "width " << width << ", " << special << " at " << at;
      }
    }
  }
}

TEST(ColumnAmax, EveryColumnsLargestMagnitudeAsThePlainLoop) {
  const std::size_t rows = 32, cols = 77, ld = 81;
  std::vector<float> x = spreadValues(rows * ld, 4);
  std::vector<std::uint32_t> want(cols, 0);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c)
      want[c] = std::max(want[c], magnitudeBits(x[r * ld + c]));
  std::vector<std::uint32_t> got(cols, 0xdeadbeefU);
  ASSERT_TRUE(finiteColumnAmax(x.data(), rows, cols, ld, got.data()));
  EXPECT_EQ(got, want);
  x[5 * ld + 76] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(finiteColumnAmax(x.data(), rows, cols, ld, got.data()));
  x[5 * ld + 76] = 1.0f;
  x[31 * ld] = -std::numeric_limits<float>::infinity();
  EXPECT_FALSE(finiteColumnAmax(x.data(), rows, cols, ld, got.data()));
  x[31 * ld] = 1.0f;
  x[31 * ld + 78] = std::numeric_limits<float>::quiet_NaN();  // beyond the columns: not read
  EXPECT_TRUE(finiteColumnAmax(x.data(), rows, cols, ld, got.data()));
}

// OCP MX v1.0 section 6.3: X = 2^(floor(log2 amax) - emax_elem), clamped to E8M0's 2^-127.
int specificationShift(float amax, int emaxElem, int first, int last) {
  if (amax == 0.0f) return std::clamp(0, first, last);
  return std::max(std::ilogb(static_cast<double>(amax)) - emaxElem, -127);
}

TEST(MxScaleShifts, FloorLog2OfTheAmaxLessTheElementsEmax) {
  const std::vector<float> values = spreadValues(4096, 5);
  std::vector<std::uint32_t> amax;
  for (float v : values) amax.push_back(magnitudeBits(v));
  for (int emax : {8, 15, 4, 2, 0, 7}) {
    std::vector<int> shifts(amax.size());
    const bool inside = mxScaleShifts(amax.data(), amax.size(), emax, -200, 200, shifts.data());
    EXPECT_TRUE(inside);
    for (std::size_t i = 0; i < amax.size(); ++i)
      ASSERT_EQ(shifts[i], specificationShift(std::bit_cast<float>(amax[i]), emax, -200, 200))
          << "emax " << emax << ", amax " << std::bit_cast<float>(amax[i]);
  }
}

TEST(MxScaleShifts, AnExponentOutsideTheRangeIsReported) {
  const std::uint32_t one = magnitudeBits(1.0f), tiny = magnitudeBits(1e-38f);
  std::vector<int> shifts(3);
  const std::uint32_t zeros[] = {0, 0, 0};
  EXPECT_TRUE(mxScaleShifts(zeros, 3, 8, 1, 5, shifts.data()));
  EXPECT_EQ(shifts, (std::vector<int>{1, 1, 1}));  // 2^0 clamped into the range
  const std::uint32_t ordinary[] = {one, one, one};
  EXPECT_TRUE(mxScaleShifts(ordinary, 3, 8, -117, 100, shifts.data()));
  EXPECT_EQ(shifts[0], -8);
  const std::uint32_t small[] = {one, tiny, one};  // 1e-38: 2^-127 - 8, clamped to -127
  EXPECT_FALSE(mxScaleShifts(small, 3, 8, -117, 100, shifts.data()));
  EXPECT_EQ(shifts[1], -127);
  EXPECT_FALSE(mxScaleShifts(ordinary, 3, 8, -5, 100, shifts.data()));
}

}  // namespace
}  // namespace paritylab::numerics
