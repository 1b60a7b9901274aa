// One number parser for CLI flags, the study spec and the policy JSON: finite, in range, integral
// where it must be, no out-of-range float-to-integer conversion; and 1e-50 is a number (`matmul`
// refused it as "not a number" while `round` accepted it).

#include "core/input/number_input.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/input/input_limits.h"

namespace paritylab::input {
namespace {

std::string numberErrorOf(const auto& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ParseDecimal, AcceptsWhatPeopleWriteIncludingUnderflowAndOverflow) {
  EXPECT_EQ(parseDecimal("1.5e-3"), 1.5e-3);
  EXPECT_EQ(parseDecimal("  -2 \r\n"), -2.0);
  EXPECT_EQ(parseDecimal("+.5"), 0.5);
  EXPECT_EQ(parseDecimal("1e-50"), 1e-50);  // a normal double
  // fp32: 1e-50 is below fp32's smallest subnormal (1.4e-45) and rounds to +0, not "not a number".
  ASSERT_TRUE(parseDecimalFp32("1e-50").has_value());
  EXPECT_EQ(*parseDecimalFp32("1e-50"), 0.0f);
  EXPECT_FALSE(std::signbit(*parseDecimalFp32("1e-50")));
  EXPECT_TRUE(std::signbit(*parseDecimalFp32("-1e-50")));
  EXPECT_EQ(*parseDecimalFp32("1e-45"), std::numeric_limits<float>::denorm_min());
  EXPECT_EQ(*parseDecimalFp32("1e39"), std::numeric_limits<float>::infinity());
  EXPECT_EQ(*parseDecimal("-1e400"), -std::numeric_limits<double>::infinity());
  // Straight to fp32, no double detour: 1.00000005960464477539062500001 is just above the
  // midpoint between 1 and 1 + 2^-23, so it rounds up (via a double it would tie to even: 1).
  EXPECT_EQ(*parseDecimalFp32("1.00000005960464477539062500001"), 1.0f + 0x1p-23f);
  EXPECT_TRUE(std::isnan(*parseDecimal("nan")));
  EXPECT_TRUE(std::signbit(*parseDecimal("-nan")));
  EXPECT_EQ(*parseDecimal("-Infinity"), -std::numeric_limits<double>::infinity());
  for (const char* bad : {"", "  ", "abc", "1.5x", "0x10", "+-1", "--1", "++1", "1,5", "1e"})
    EXPECT_FALSE(parseDecimal(bad).has_value()) << bad;
}

TEST(RequireInteger, RefusesFractionsOverflowAndNegativeSeedsNamingFieldAndLimit) {
  const IntegerLimits seeds{0, kMaxSeedValue};
  EXPECT_EQ(requireInteger("9223372036854775807", "--seed", seeds), INT64_MAX);
  EXPECT_EQ(requireInteger("1e3", "--seed", seeds), 1000);
  EXPECT_EQ(requireInteger(" 42 ", "--seed", seeds), 42);
  // Each refused, none wrapped or truncated.
  for (const char* bad : {"18446744073709551615", "9223372036854775808", "1e300", "1e30", "-1",
                          "1.5", "nan", "inf", "", "seven"}) {
    const std::string e = numberErrorOf([&] { requireInteger(bad, "--seed", seeds); });
    EXPECT_EQ(e, std::string("--seed: expected an integer in [0, 9223372036854775807], got '") +
                     bad + "'")
        << bad;
  }
  EXPECT_EQ(numberErrorOf([] {
              requireInteger("0", "--seeds", {1, kMaxSeeds});
            }),
            "--seeds: expected an integer in [1, 10000], got '0'");
}

TEST(RequireInteger, DoubleValuesNeverConvertOutOfRange) {
  // 2^63 is the first double that does not fit int64: converting it would be undefined behaviour.
  const IntegerLimits all{INT64_MIN, INT64_MAX};
  EXPECT_EQ(requireInteger(-9223372036854775808.0, "x", all), INT64_MIN);
  EXPECT_EQ(requireInteger(9223372036854774784.0, "x", all), 9223372036854774784);  // 2^63-1024
  EXPECT_NE(numberErrorOf([&] { requireInteger(9223372036854775808.0, "x", all); }), "(no error)");
  EXPECT_NE(numberErrorOf([&] { requireInteger(-1e300, "x", all); }), "(no error)");
  EXPECT_NE(numberErrorOf([&] { requireInteger(std::nan(""), "x", all); }), "(no error)");
  EXPECT_EQ(numberErrorOf([] {
              requireInteger(2.5, "width", {1, 256});
            }),
            "width: expected an integer in [1, 256], got 2.5");
}

TEST(RequireReal, FiniteAndWithinBounds) {
  const RealLimits lr{0, kMaxHyperparameter, true};
  EXPECT_EQ(requireReal("0.001", "--lr", lr), 0.001);
  EXPECT_EQ(numberErrorOf([&] { requireReal("nan", "--lr", lr); }),
            "--lr: expected a finite number in (0, 1000000], got 'nan'");
  for (const char* bad : {"inf", "-inf", "0", "-1", "1e7", "x"})
    EXPECT_NE(numberErrorOf([&] { requireReal(bad, "--lr", lr); }), "(no error)") << bad;
  EXPECT_EQ(numberErrorOf([] {
              requireReal(1.0, "beta1", {0, 1, false, true});
            }),
            "beta1: expected a finite number in [0, 1), got 1");
}

TEST(Excerpt, BoundsLengthAndHidesControlBytes) {
  EXPECT_EQ(excerpt(std::string(100, 'a'), 5), "aaaaa...");
  EXPECT_EQ(excerpt("a\nb\x1b"), "a?b?");
}

}  // namespace
}  // namespace paritylab::input
