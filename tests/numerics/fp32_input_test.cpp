// The one path of `bits`, `round` and the Formats tab: typed text -> nearest
// fp32 (saying when the decimal is not exactly an fp32) -> the same Rounder. Expected fp32 values
// are written as bit patterns (from IEEE 754 by hand: 0.1 -> 0x3dcccccd), or compared with
// strtof, glibc's correctly rounded decimal-to-float conversion.
#include "core/numerics/fp32_input.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdlib>
#include <random>

#include "core/numerics/bit_anatomy.h"
#include "core/numerics/rounding.h"

namespace paritylab::numerics {
namespace {

std::uint32_t bitsOf(float v) {
  return std::bit_cast<std::uint32_t>(v);
}

TEST(ParseFp32, DecimalsSpecialsAndBits) {
  EXPECT_EQ(bitsOf(*parseFp32("0.1")), 0x3dcccccdU);
  EXPECT_EQ(bitsOf(*parseFp32(" +1.5e-3\r\n")), bitsOf(1.5e-3f));
  EXPECT_EQ(bitsOf(*parseFp32("-0")), 0x80000000U);
  EXPECT_EQ(bitsOf(*parseFp32("0x3f800001")), 0x3f800001U);
  EXPECT_EQ(bitsOf(*parseFp32("1e-50")), 0U);           // below the smallest subnormal
  EXPECT_EQ(bitsOf(*parseFp32("-1e39")), 0xff800000U);  // beyond max finite
  EXPECT_EQ(bitsOf(*parseFp32("1e-45")), 1U);           // the smallest subnormal, 1.4e-45
  EXPECT_TRUE(std::isinf(*parseFp32("-infinity")));
  EXPECT_FALSE(std::signbit(*parseFp32("nan")));
  EXPECT_TRUE(std::signbit(*parseFp32("-nan")));  // the sign written is kept
  EXPECT_TRUE(std::isnan(*parseFp32("-nan")));
  for (const char* bad :
       {"", " ", "abc", "1.5x", "1e", "--1", "+-1", "+", "0x", "0x123456789", "1,5", "0x1p3"})
    EXPECT_FALSE(parseFp32(bad)) << bad;
}

// Decimal -> fp32 directly (no double detour): a decimal just above a tie between two fp32 values
// by less than a double's precision rounds up, where decimal -> double -> fp32 would round to even.
TEST(ParseFp32, RoundsTheDecimalOnceLikeStrtof) {
  // 1 + 2^-24 is the tie between 1 and 1 + 2^-23; this decimal is 1 + 2^-24 + 1e-25.
  const char* aboveTie = "1.0000000596046447753906250000001";
  EXPECT_EQ(bitsOf(*parseFp32(aboveTie)), 0x3f800001U);
  EXPECT_EQ(bitsOf(static_cast<float>(std::strtod(aboveTie, nullptr))), 0x3f800000U);
  std::mt19937 gen(7);
  std::uniform_int_distribution<int> digit(0, 9), exponent(-50, 40);
  for (int i = 0; i < 2000; ++i) {
    std::string text = std::to_string(digit(gen)) + ".";
    for (int d = 0; d < 12; ++d) text += char('0' + digit(gen));
    text += "e" + std::to_string(exponent(gen));
    EXPECT_EQ(bitsOf(*parseFp32(text)), bitsOf(std::strtof(text.c_str(), nullptr))) << text;
  }
}

TEST(ParseFp32Input, SaysWhenTheDecimalIsNotExactlyAnFp32) {
  for (const char* exact : {"1", "1.5", "-0.0", "0.375e1", "100e-2", "0x3dcccccd", "nan", "-inf",
                            "0.100000001490116119384765625", "1.00390625", "65504.000",
                            "1.40129846432481707092372958328991613128026194187651577175706828388"
                            "979108268586060148663818836212158203125e-45"})
    EXPECT_TRUE(parseFp32Input(exact)->exact) << exact;
  for (const char* inexact : {"0.1", "1.00390625000001", "1e-50", "1e39", "16777217",
                              "0.1000000014901161193847656251", "1.2"})
    EXPECT_FALSE(parseFp32Input(inexact)->exact) << inexact;
  EXPECT_FALSE(parseFp32Input("x"));
}

// dissect() (bits, the Formats tab) rounds with the Rounder (round, every product): identical
// results in every mode, stochastic included (the draw of element 0 under the seed), and in
// E4M3 toward-zero overflow too.
TEST(Dissect, AgreesWithTheRounderInEveryMode) {
  std::mt19937 gen(3);
  std::uniform_int_distribution<std::uint32_t> pattern;
  for (const char* name : {"bf16", "fp16", "tf32", "fp8-e4m3", "fp8-e5m2", "e3m2"}) {
    for (RoundingMode mode : {RoundingMode::NearestEven, RoundingMode::NearestAway,
                              RoundingMode::TowardZero, RoundingMode::Stochastic}) {
      for (OverflowMode overflow : {OverflowMode::Ieee, OverflowMode::Saturate}) {
        const RoundingSpec spec{*parseFormat(name), mode, overflow};
        const Rounder rounder(spec);
        for (int i = 0; i < 300; ++i) {
          const float v = std::bit_cast<float>(pattern(gen));
          const std::uint64_t seed = i;
          const float want = rounder.round(v, seed, 0);
          const double got = dissect(v, spec, seed).stored;
          if (std::isnan(want)) {
            ASSERT_TRUE(std::isnan(got));
            ASSERT_EQ(std::signbit(got), std::signbit(want));
          } else {
            ASSERT_EQ(got, double(want)) << name << " " << toString(mode) << " " << v;
          }
        }
      }
    }
  }
  const FloatFormat e4m3 = *parseFormat("fp8-e4m3");
  EXPECT_EQ(dissect(500.0f, RoundingSpec{e4m3, RoundingMode::TowardZero}).stored, 448.0);
  EXPECT_EQ(dissect(*parseFp32("-nan"), RoundingSpec{*parseFormat("bf16")}).bits,
            "1 11111111 1000000");
}

}  // namespace
}  // namespace paritylab::numerics
