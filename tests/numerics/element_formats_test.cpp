// The OCP MX element formats (fp6-e3m2, fp6-e2m3, fp4-e2m1: every code finite) and the fnuz fp8
// formats (fp8-e4m3fnuz, fp8-e5m2fnuz: one NaN, no infinity, no negative zero), code by code:
// every code is decoded here from the format's definition (not from core/numerics) and checked
// against decodeBits/encodeBits, the Rounder's round trip in every mode, every halfway case between
// neighbours, saturation, NaN, infinities, signed zeros and subnormals.

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/numerics/bit_anatomy.h"
#include "core/numerics/rounding.h"
#include "tests/numerics/block_reference.h"
#include "tests/numerics/format_reference.h"

namespace paritylab::numerics {
namespace {

using testing::sameValue;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A format as its specification defines it.
struct Definition {
  const char* name;
  int exponentBits;
  int mantissaBits;
  int bias;
  bool fnuz;         // false: OCP MX element, every code finite
  double maxFinite;  // from the specification's tables
  double minSubnormal;
};

// OCP MX v1.0 section 5.3 (FP6 E3M2 / E2M3, FP4 E2M1); fnuz as AMD's MI300 ISA and LLVM's
// Float8E4M3FNUZ / Float8E5M2FNUZ define them (bias 8 and 16, NaN = 0x80).
const Definition kDefinitions[] = {
    {"fp6-e3m2", 3, 2, 3, false, 28.0, 0.0625},
    {"fp6-e2m3", 2, 3, 1, false, 7.5, 0.125},
    {"fp4-e2m1", 2, 1, 1, false, 6.0, 0.5},
    {"fp8-e4m3fnuz", 4, 3, 8, true, 240.0, std::ldexp(1.0, -10)},
    {"fp8-e5m2fnuz", 5, 2, 16, true, 57344.0, std::ldexp(1.0, -17)},
};

int totalBits(const Definition& d) {
  return 1 + d.exponentBits + d.mantissaBits;
}

// The value of `code` by the definition: sign | exponent field | mantissa field.
double decodeCode(const Definition& d, std::uint32_t code) {
  const std::uint32_t signBit = 1U << (d.exponentBits + d.mantissaBits);
  if (d.fnuz && code == signBit) return kNaN;  // fnuz: "negative zero" is the NaN
  const std::uint32_t mantissa = code & ((1U << d.mantissaBits) - 1U);
  const std::uint32_t field = (code >> d.mantissaBits) & ((1U << d.exponentBits) - 1U);
  const double scale = std::ldexp(1.0, -d.mantissaBits);
  const double magnitude =
      field == 0 ? mantissa * scale * std::ldexp(1.0, 1 - d.bias)
                 : (1.0 + mantissa * scale) * std::ldexp(1.0, static_cast<int>(field) - d.bias);
  return (code & signBit) != 0 ? -magnitude : magnitude;
}

// One code and its value, for neighbour and tie checks.
struct CodeValue {
  std::uint32_t code;
  double value;
};

// The non-negative finite values in ascending order, each with its code (+0 for zero).
std::vector<CodeValue> positiveGrid(const Definition& d) {
  std::vector<CodeValue> grid;
  const std::uint32_t signBit = 1U << (d.exponentBits + d.mantissaBits);
  for (std::uint32_t code = 0; code < signBit; ++code) grid.push_back({code, decodeCode(d, code)});
  std::sort(grid.begin(), grid.end(),
            [](const CodeValue& a, const CodeValue& b) { return a.value < b.value; });
  return grid;
}

const RoundingMode kDeterministicModes[] = {RoundingMode::NearestEven, RoundingMode::NearestAway,
                                            RoundingMode::TowardZero};

class MxOrFnuzFormat : public ::testing::TestWithParam<Definition> {
 protected:
  const Definition& def() const { return GetParam(); }
  FloatFormat format() const { return *parseFormat(def().name); }
  float round(double x, RoundingMode mode, OverflowMode overflow = OverflowMode::Ieee,
              SubnormalMode subnormals = SubnormalMode::Keep) const {
    return Rounder(RoundingSpec{format(), mode, overflow, subnormals}).round(static_cast<float>(x));
  }
};

TEST_P(MxOrFnuzFormat, PresetFieldsMatchTheDefinition) {
  const Definition& d = def();
  const auto f = parseFormat(d.name);
  ASSERT_TRUE(f) << d.name;
  EXPECT_EQ(f->name, d.name);
  EXPECT_EQ(f->exponentBits, d.exponentBits);
  EXPECT_EQ(f->mantissaBits, d.mantissaBits);
  EXPECT_EQ(f->bias, d.bias);
  EXPECT_EQ(f->special, d.fnuz ? SpecialEncoding::Fnuz : SpecialEncoding::FiniteOnly);
  EXPECT_EQ(f->maxFinite(), d.maxFinite);
  EXPECT_EQ(f->minSubnormal(), d.minSubnormal);
  EXPECT_EQ(f->minNormal(), std::ldexp(1.0, 1 - d.bias));
  EXPECT_FALSE(f->hasInfinity());
  EXPECT_EQ(f->hasNaN(), d.fnuz);
  EXPECT_EQ(f->hasNegativeZero(), !d.fnuz);
  EXPECT_EQ(f->totalBits(), totalBits(d));
  // The largest code's value is max finite.
  double largest = 0;
  for (std::uint32_t code = 0; code < (1U << totalBits(d)); ++code) {
    const double v = decodeCode(d, code);
    if (!std::isnan(v)) largest = std::max(largest, v);
  }
  EXPECT_EQ(largest, d.maxFinite);
}

TEST_P(MxOrFnuzFormat, EveryCodeDecodesAndEncodesAsTheDefinitionSays) {
  const Definition& d = def();
  const FloatFormat f = format();
  int nanCodes = 0;
  int zeroCodes = 0;
  for (std::uint32_t code = 0; code < (1U << totalBits(d)); ++code) {
    const double want = decodeCode(d, code);
    const double got = decodeBits(f, code);
    ASSERT_TRUE(sameValue(got, want))
        << d.name << " code " << code << ": " << got << " vs " << want;
    nanCodes += std::isnan(want);
    zeroCodes += want == 0.0;
    // Every value encodes back to its code (fnuz's zero is code 0; NaN is the one NaN code).
    ASSERT_EQ(encodeBits(f, want), code) << d.name << " code " << code;
  }
  EXPECT_EQ(nanCodes, d.fnuz ? 1 : 0) << d.name;
  EXPECT_EQ(zeroCodes, d.fnuz ? 1 : 2) << d.name;
  // fnuz: a negative zero, NaN of either sign and infinities have the NaN code or +0's.
  const std::uint32_t signBit = 1U << (d.exponentBits + d.mantissaBits);
  if (d.fnuz) {
    EXPECT_EQ(encodeBits(f, -0.0), 0U);
    EXPECT_EQ(encodeBits(f, -kNaN), signBit);
    EXPECT_EQ(encodeBits(f, kInf), signBit);
    EXPECT_EQ(encodeBits(f, -kInf), signBit);
  } else {  // no code for either: the max-magnitude code with the sign
    EXPECT_EQ(decodeBits(f, encodeBits(f, kInf)), d.maxFinite);
    EXPECT_EQ(decodeBits(f, encodeBits(f, -kInf)), -d.maxFinite);
  }
}

TEST_P(MxOrFnuzFormat, EveryCodeRoundTripsInEveryModeAndOverflowPolicy) {
  const Definition& d = def();
  for (std::uint32_t code = 0; code < (1U << totalBits(d)); ++code) {
    const double v = decodeCode(d, code);
    if (std::isnan(v)) continue;
    for (RoundingMode mode : {RoundingMode::NearestEven, RoundingMode::NearestAway,
                              RoundingMode::TowardZero, RoundingMode::Stochastic}) {
      for (OverflowMode overflow : {OverflowMode::Ieee, OverflowMode::Saturate}) {
        const float got = round(v, mode, overflow);
        // fnuz has no negative zero: -0.0 (not one of its codes, but an fp32 input) gives +0.
        ASSERT_TRUE(sameValue(got, v))
            << d.name << " code " << code << " (" << v << ") " << toString(mode) << " gave " << got;
      }
    }
  }
  if (d.fnuz) {
    for (RoundingMode mode : kDeterministicModes)
      EXPECT_TRUE(sameValue(round(-0.0, mode), 0.0)) << d.name << " " << toString(mode);
  } else {
    EXPECT_TRUE(sameValue(round(-0.0, RoundingMode::NearestEven), -0.0)) << d.name;
  }
}

// Between every two neighbouring magnitudes lo < hi: the exact midpoint goes to the even code
// (nearest-even), to hi (nearest-away), to lo (toward zero); one fp32 ulp either side of it goes to
// the nearer one. Both signs; fnuz's negative results that are zero are +0.
TEST_P(MxOrFnuzFormat, EveryHalfwayCaseTiesToEven) {
  const Definition& d = def();
  const std::vector<CodeValue> grid = positiveGrid(d);
  for (std::size_t i = 0; i + 1 < grid.size(); ++i) {
    const CodeValue lo = grid[i];
    const CodeValue hi = grid[i + 1];
    const double mid = (lo.value + hi.value) / 2;  // exact: a few bits
    const double even = (lo.code & 1U) == 0 ? lo.value : hi.value;
    ASSERT_NE(lo.code & 1U, hi.code & 1U) << d.name << ": neighbours " << lo.value << ", "
                                          << hi.value << " are both even or both odd";
    for (double sign : {1.0, -1.0}) {
      auto expect = [&](double input, RoundingMode mode, double magnitude) {
        double want = sign * magnitude;
        if (d.fnuz && want == 0.0) want = 0.0;
        const float got = round(input * sign, mode);
        EXPECT_TRUE(sameValue(got, want)) << d.name << " " << toString(mode) << ": " << input * sign
                                          << " gave " << got << ", want " << want;
      };
      const float midF = static_cast<float>(mid);
      ASSERT_EQ(static_cast<double>(midF), mid);
      expect(mid, RoundingMode::NearestEven, even);
      expect(mid, RoundingMode::NearestAway, hi.value);
      expect(mid, RoundingMode::TowardZero, lo.value);
      for (RoundingMode mode : {RoundingMode::NearestEven, RoundingMode::NearestAway}) {
        expect(std::nextafter(midF, 0.0f), mode, lo.value);
        expect(std::nextafter(midF, std::numeric_limits<float>::infinity()), mode, hi.value);
      }
      // Just inside the interval, toward zero keeps lo.
      expect(std::nextafter(static_cast<float>(hi.value), 0.0f), RoundingMode::TowardZero,
             lo.value);
    }
  }
}

// Past max finite: the MX elements can only saturate (every mode, either overflow policy; inf
// too); fnuz saturates when asked and otherwise overflows to its NaN (inf too), except toward zero.
TEST_P(MxOrFnuzFormat, SaturationNaNAndInfinity) {
  const Definition& d = def();
  const double max = d.maxFinite;
  const double ulp = max - positiveGrid(d)[positiveGrid(d).size() - 2].value;
  const double overflowTie = max + ulp / 2;  // the midpoint to the first value past the range
  for (double sign : {1.0, -1.0}) {
    for (double beyond : {max * 1.01, overflowTie, max + ulp, 1e30, 3.0e38, kInf}) {
      const double x = sign * beyond;
      for (RoundingMode mode : kDeterministicModes) {
        EXPECT_TRUE(sameValue(round(x, mode, OverflowMode::Saturate), sign * max))
            << d.name << " saturate " << toString(mode) << " " << x;
        // fnuz without saturation: NaN from the overflow threshold on (toward zero: never for a
        // finite value) and for infinities.
        const bool nan =
            d.fnuz &&
            (std::isinf(x) || (mode != RoundingMode::TowardZero && std::fabs(x) >= overflowTie));
        const float free = round(x, mode, OverflowMode::Ieee);
        if (nan) {
          EXPECT_TRUE(std::isnan(free)) << d.name << " " << toString(mode) << " " << x;
        } else {
          EXPECT_TRUE(sameValue(free, sign * max)) << d.name << " " << toString(mode) << " " << x;
        }
      }
    }
    // Just below the overflow threshold: max finite in the nearest modes.
    const float below = std::nextafter(static_cast<float>(sign * overflowTie), 0.0f);
    EXPECT_TRUE(sameValue(round(below, RoundingMode::NearestEven), sign * max)) << d.name;
    EXPECT_TRUE(sameValue(round(below, RoundingMode::NearestAway), sign * max)) << d.name;
  }
  // Stochastic rounding past max finite never leaves the format's values (or fnuz's NaN).
  const Rounder stochastic(RoundingSpec{format(), RoundingMode::Stochastic});
  std::vector<float> values(1000, static_cast<float>(max + ulp / 3));
  stochastic.apply(values, 5);
  for (float v : values) ASSERT_TRUE(v == max || (d.fnuz && std::isnan(v))) << d.name << " " << v;
  for (RoundingMode mode : kDeterministicModes) {
    for (OverflowMode overflow : {OverflowMode::Ieee, OverflowMode::Saturate}) {
      EXPECT_TRUE(std::isnan(round(kNaN, mode, overflow))) << d.name;
      EXPECT_TRUE(std::isnan(round(-kNaN, mode, overflow))) << d.name;
    }
  }
}

// Subnormals: exponent field 0 holds mantissa * 2^(1 - bias - M); below half the smallest one a
// value rounds to zero (+0 in fnuz, either sign); flushing sends every subnormal code to zero.
TEST_P(MxOrFnuzFormat, SubnormalsAndSignedZeros) {
  const Definition& d = def();
  const double minSub = d.minSubnormal;
  for (std::uint32_t mantissa = 1; mantissa < (1U << d.mantissaBits); ++mantissa) {
    const double v = mantissa * minSub;
    EXPECT_EQ(decodeCode(d, mantissa), v);
    EXPECT_TRUE(sameValue(round(v, RoundingMode::NearestEven), v)) << d.name;
    const double flushedZero = d.fnuz ? 0.0 : -0.0;
    EXPECT_TRUE(
        sameValue(round(-v, RoundingMode::NearestEven, OverflowMode::Ieee, SubnormalMode::Flush),
                  flushedZero))
        << d.name << " " << -v;
  }
  for (double tiny : {minSub / 2, minSub / 4, 1e-30, 1e-45}) {
    EXPECT_TRUE(sameValue(round(tiny, RoundingMode::NearestEven), 0.0)) << d.name << " " << tiny;
    EXPECT_TRUE(sameValue(round(-tiny, RoundingMode::NearestEven), d.fnuz ? 0.0 : -0.0))
        << d.name << " " << -tiny;
  }
  EXPECT_TRUE(sameValue(round(-minSub * 0.75, RoundingMode::NearestEven), -minSub)) << d.name;
}

// A dense stride through all fp32 patterns (every exponent, NaN payloads, infinities) against the
// enumerating reference, in every deterministic mode and policy.
TEST_P(MxOrFnuzFormat, DenseStrideMatchesEnumeratingReference) {
  const FloatFormat f = format();
  const testing::FormatReference ref(f);
  std::vector<float> inputs;
  for (std::uint64_t p = 0; p < (1ULL << 32); p += 65521)
    inputs.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(p)));
  for (RoundingMode mode : kDeterministicModes) {
    for (OverflowMode overflow : {OverflowMode::Ieee, OverflowMode::Saturate}) {
      for (SubnormalMode subnormals : {SubnormalMode::Keep, SubnormalMode::Flush}) {
        const RoundingSpec spec{f, mode, overflow, subnormals};
        std::vector<float> out = inputs;
        Rounder(spec).apply(out);
        int failures = 0;
        for (std::size_t i = 0; i < inputs.size() && failures < 5; ++i) {
          const double want = ref.round(inputs[i], spec);
          if (!sameValue(out[i], want)) {
            ++failures;
            ADD_FAILURE() << f.name << " " << toString(mode) << " " << toString(overflow) << " "
                          << toString(subnormals) << ": " << inputs[i] << " gave " << out[i]
                          << ", reference " << want;
          }
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(MxAndFnuz, MxOrFnuzFormat, ::testing::ValuesIn(kDefinitions),
                         [](const auto& info) {
                           std::string name = info.param.name;
                           for (char& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });

// Hand-checked values from the specifications' tables.
TEST(ElementFormatTables, Fp4E2M1HoldsEightMagnitudes) {
  const FloatFormat f = *parseFormat("fp4-e2m1");
  std::vector<double> magnitudes;
  for (std::uint32_t code = 0; code < 8; ++code) magnitudes.push_back(decodeBits(f, code));
  EXPECT_EQ(magnitudes, (std::vector<double>{0, 0.5, 1, 1.5, 2, 3, 4, 6}));
  EXPECT_EQ(decodeBits(f, 0xF), -6.0);
  const Rounder rne(RoundingSpec{f});
  EXPECT_EQ(rne.round(2.5f), 2.0f);   // tie: 2 (code 0100) is even
  EXPECT_EQ(rne.round(3.5f), 4.0f);   // tie: 4 (code 0110) is even
  EXPECT_EQ(rne.round(5.0f), 4.0f);   // tie between 4 and 6: 4 is even
  EXPECT_EQ(rne.round(0.25f), 0.0f);  // tie with zero
  EXPECT_EQ(rne.round(0.75f), 1.0f);  // tie between 0.5 (odd) and 1
  EXPECT_EQ(rne.round(100.0f), 6.0f);
}

TEST(ElementFormatTables, FnuzExtremes) {
  const FloatFormat e4 = *parseFormat("fp8-e4m3fnuz");
  const FloatFormat e5 = *parseFormat("fp8-e5m2fnuz");
  EXPECT_EQ(decodeBits(e4, 0x7F), 240.0);
  EXPECT_EQ(decodeBits(e4, 0xFF), -240.0);
  EXPECT_EQ(decodeBits(e4, 0x08), std::ldexp(1.0, -7));   // min normal
  EXPECT_EQ(decodeBits(e4, 0x01), std::ldexp(1.0, -10));  // min subnormal
  EXPECT_TRUE(std::isnan(decodeBits(e4, 0x80)));
  EXPECT_EQ(decodeBits(e5, 0x7F), 57344.0);
  EXPECT_EQ(decodeBits(e5, 0x04), std::ldexp(1.0, -15));
  EXPECT_TRUE(std::isnan(decodeBits(e5, 0x80)));
  const Rounder rne(RoundingSpec{e4});
  EXPECT_EQ(rne.round(247.99f), 240.0f);
  EXPECT_TRUE(std::isnan(rne.round(248.0f)));  // tie with the first value past 240: to "even"
  // The OCP formats keep their presets and order; the new ones follow.
  std::vector<std::string> names;
  for (const auto& p : presetFormats()) names.push_back(p.name);
  EXPECT_EQ(names, (std::vector<std::string>{"fp32", "tf32", "bf16", "fp16", "fp8-e4m3", "fp8-e5m2",
                                             "fp6-e3m2", "fp6-e2m3", "fp4-e2m1", "fp8-e4m3fnuz",
                                             "fp8-e5m2fnuz"}));
}

TEST(ElementFormatTables, MaxFiniteOfEveryPreset) {
  const struct {
    const char* name;
    double max;
  } cases[] = {{"fp32", static_cast<double>(std::numeric_limits<float>::max())},
               {"tf32", (2.0 - std::ldexp(1.0, -10)) * std::ldexp(1.0, 127)},
               {"bf16", (2.0 - std::ldexp(1.0, -7)) * std::ldexp(1.0, 127)},
               {"fp16", 65504.0},
               {"fp8-e4m3", 448.0},
               {"fp8-e5m2", 57344.0},
               {"fp6-e3m2", 28.0},
               {"fp6-e2m3", 7.5},
               {"fp4-e2m1", 6.0},
               {"fp8-e4m3fnuz", 240.0},
               {"fp8-e5m2fnuz", 57344.0}};
  ASSERT_EQ(std::size(cases), presetFormats().size());
  for (const auto& c : cases) EXPECT_EQ(parseFormat(c.name)->maxFinite(), c.max) << c.name;
}

TEST(ElementFormatAnatomy, FnuzZeroAndNaNAndFp4Saturation) {
  const FloatFormat e4 = *parseFormat("fp8-e4m3fnuz");
  const BitAnatomy tiny = dissect(-1e-30f, RoundingSpec{e4});
  EXPECT_EQ(tiny.bits, "0 0000 000");
  EXPECT_EQ(tiny.valueClass, ValueClass::Zero);
  const BitAnatomy nan = dissect(1000.0f, RoundingSpec{e4});
  EXPECT_EQ(nan.valueClass, ValueClass::NaN);
  EXPECT_EQ(nan.bits, "1 0000 000");
  const FloatFormat fp4 = *parseFormat("fp4-e2m1");
  const BitAnatomy big = dissect(-1000.0f, RoundingSpec{fp4});
  EXPECT_EQ(big.stored, -6.0);
  EXPECT_EQ(big.bits, "1 11 1");
  EXPECT_EQ(big.valueClass, ValueClass::Normal);
  EXPECT_EQ(dissect(0.5f, RoundingSpec{fp4}).valueClass, ValueClass::Subnormal);
}

}  // namespace
}  // namespace paritylab::numerics
