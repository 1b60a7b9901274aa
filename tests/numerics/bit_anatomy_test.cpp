// Bit anatomy (fields, class, exact stored decimal, errors, ulp) and the format
// descriptors' derived constants.

#include "core/numerics/bit_anatomy.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/numerics/exact_decimal.h"

namespace paritylab::numerics {
namespace {

TEST(ExactDecimal, PrintsEveryDigit) {
  EXPECT_EQ(exactDecimal(0.1f), "0.100000001490116119384765625");
  EXPECT_EQ(exactDecimal(1.0), "1");
  EXPECT_EQ(exactDecimal(-2.5), "-2.5");
  EXPECT_EQ(exactDecimal(65504.0), "65504");
  const std::string tiny = exactDecimal(std::ldexp(1.0, -149));  // fp32 min subnormal
  EXPECT_EQ(tiny.size(), 2u + 149u);
  EXPECT_EQ(tiny.back(), '5');  // 2^-149 = 5^149 / 10^149 ends in 5
  EXPECT_EQ(exactDecimal(NAN), "nan");
}

TEST(FormatConstants, MatchTheDefinitions) {
  EXPECT_EQ(parseFormat("fp8-e4m3")->maxFinite(), 448.0);
  EXPECT_EQ(parseFormat("fp8-e5m2")->maxFinite(), 57344.0);
  EXPECT_EQ(parseFormat("fp16")->maxFinite(), 65504.0);
  EXPECT_EQ(parseFormat("fp16")->minSubnormal(), std::ldexp(1.0, -24));
  EXPECT_EQ(parseFormat("bf16")->epsilon(), 0.0078125);
  EXPECT_EQ(parseFormat("e5m7")->bias, 15);
  EXPECT_FALSE(parseFormat("e9m2"));
  EXPECT_FALSE(parseFormat("e5m24"));
  EXPECT_FALSE(parseFormat("bf17"));
  EXPECT_NE(formatNameError("bf17").find("'bf17'"), std::string::npos);
}

TEST(Dissect, OneTenthInBf16) {
  const BitAnatomy a = dissect(0.1, RoundingSpec{*parseFormat("bf16")});
  EXPECT_EQ(a.bits, "0 01111011 1001101");
  EXPECT_EQ(a.valueClass, ValueClass::Normal);
  EXPECT_EQ(a.unbiasedExponent, -4);
  EXPECT_EQ(a.stored, 0.10009765625);
  EXPECT_EQ(a.storedExact, "0.10009765625");
  EXPECT_EQ(a.input, double(0.1f));  // what a device sees of 0.1
  EXPECT_EQ(a.absoluteError, 0.10009765625 - double(0.1f));
  EXPECT_EQ(a.ulp, std::ldexp(1.0, -11));
  EXPECT_EQ(decodeBits(a.format, encodeBits(a.format, a.stored)), a.stored);
}

TEST(Dissect, ClassesAndSpecials) {
  const FloatFormat e4m3 = *parseFormat("fp8-e4m3");
  EXPECT_EQ(dissect(0.001953125, RoundingSpec{e4m3}).valueClass, ValueClass::Subnormal);
  EXPECT_EQ(dissect(-0.0, RoundingSpec{e4m3}).bits, "1 0000 000");
  EXPECT_EQ(dissect(1000.0, RoundingSpec{e4m3}).valueClass, ValueClass::NaN);
  EXPECT_EQ(dissect(1000.0, RoundingSpec{e4m3}).bits, "0 1111 111");
  EXPECT_EQ(
      dissect(1000.0, RoundingSpec{e4m3, RoundingMode::NearestEven, OverflowMode::Saturate}).stored,
      448.0);
  EXPECT_EQ(dissect(1e6, RoundingSpec{*parseFormat("fp16")}).valueClass, ValueClass::Infinite);
  EXPECT_EQ(dissect(1e6, RoundingSpec{*parseFormat("fp16")}).bits, "0 11111 0000000000");
  EXPECT_TRUE(std::isnan(decodeBits(e4m3, 0x7f)));
  EXPECT_EQ(decodeBits(e4m3, 0x7e), 448.0);
  EXPECT_EQ(decodeBits(*parseFormat("fp16"), 0x0001), std::ldexp(1.0, -24));
}

}  // namespace
}  // namespace paritylab::numerics
