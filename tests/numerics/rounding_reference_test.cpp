// Every preset format (and some custom eXmY) in every deterministic mode, with
// both overflow and both subnormal policies, against an enumerating reference (format_reference.h):
// every representable value, its fp32 neighbours, exact ties and +-1 fp32 ulp around ties, max
// finite and the overflow threshold, subnormal boundaries, signed zeros, NaN and infinities.

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/numerics/rounding.h"
#include "tests/numerics/format_reference.h"

namespace paritylab::numerics {
namespace {

using testing::FormatReference;

bool sameFloat(float got, double want) {
  if (std::isnan(want)) return std::isnan(got);
  return static_cast<double>(got) == want && std::signbit(got) == std::signbit(want);
}

std::string hex(float v) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "0x%08x", std::bit_cast<std::uint32_t>(v));
  return buffer;
}

// Inputs around every grid value: the value, its fp32 neighbours, the midpoint to the next value
// and the midpoint's fp32 neighbours; plus specials and fp32 extremes. `step` thins large grids.
std::vector<float> edgeInputs(const FormatReference& ref, std::size_t step) {
  const auto& grid = ref.grid();
  std::vector<float> inputs;
  auto addAround = [&](float v) {
    inputs.push_back(v);
    inputs.push_back(std::nextafter(v, 0.0f));
    inputs.push_back(std::nextafter(v, std::numeric_limits<float>::infinity()));
  };
  for (std::size_t i = 0; i + 1 < grid.size(); ++i) {
    const bool boundary = i < 64 || i + 64 > grid.size() || (i & (i - 1)) == 0;
    if (!boundary && i % step != 0) continue;
    addAround(static_cast<float>(grid[i]));
    addAround(static_cast<float>((grid[i] + grid[i + 1]) / 2));
  }
  addAround(static_cast<float>(grid.back()));
  addAround(static_cast<float>(ref.minNormal()));
  addAround(static_cast<float>(grid[1] / 2));  // half the min subnormal: a tie with zero
  addAround(static_cast<float>(grid[1] / 4));
  addAround(std::numeric_limits<float>::max());
  addAround(std::numeric_limits<float>::min());
  addAround(std::numeric_limits<float>::denorm_min());
  for (float v : {0.0f, 1.0f, 3.0f, 1e-30f, 1e30f, 65504.0f, 65520.0f, 448.0f, 464.0f, 480.0f,
                  57344.0f, 61440.0f})
    addAround(v);
  const std::size_t n = inputs.size();
  for (std::size_t i = 0; i < n; ++i) inputs.push_back(-inputs[i]);
  inputs.push_back(std::numeric_limits<float>::infinity());
  inputs.push_back(-std::numeric_limits<float>::infinity());
  inputs.push_back(std::numeric_limits<float>::quiet_NaN());
  inputs.push_back(-std::numeric_limits<float>::quiet_NaN());
  inputs.push_back(std::bit_cast<float>(0x7f800001U));  // signalling NaN
  return inputs;
}

void checkAgainstReference(const FloatFormat& format, const std::vector<float>& inputs,
                           const FormatReference& ref) {
  for (RoundingMode mode :
       {RoundingMode::NearestEven, RoundingMode::NearestAway, RoundingMode::TowardZero}) {
    for (OverflowMode overflow : {OverflowMode::Ieee, OverflowMode::Saturate}) {
      for (SubnormalMode subnormals : {SubnormalMode::Keep, SubnormalMode::Flush}) {
        const RoundingSpec spec{format, mode, overflow, subnormals};
        const Rounder rounder(spec);
        std::vector<float> out = inputs;
        rounder.apply(out);
        // Into another buffer (the GEMM entry packs operands that way): the same bits.
        std::vector<float> copied(inputs.size());
        rounder.applyCopy(inputs, copied);
        EXPECT_EQ(std::memcmp(copied.data(), out.data(), out.size() * sizeof(float)), 0)
            << format.name << " " << toString(mode) << ": applyCopy and apply differ";
        int failures = 0;
        for (std::size_t i = 0; i < inputs.size() && failures < 5; ++i) {
          const double want = ref.round(inputs[i], spec);
          if (!sameFloat(out[i], want)) {
            ++failures;
            ADD_FAILURE() << format.name << " " << toString(mode) << " " << toString(overflow)
                          << " " << toString(subnormals) << ": input " << hex(inputs[i]) << " ("
                          << inputs[i] << ") gave " << hex(out[i]) << " (" << out[i]
                          << "), reference " << want;
          }
          // The scalar entry point agrees with the span one.
          const float single = rounder.round(inputs[i]);
          if (!(std::isnan(single) && std::isnan(out[i])) &&
              std::bit_cast<std::uint32_t>(single) != std::bit_cast<std::uint32_t>(out[i]))
            ADD_FAILURE() << "round() and apply() differ at " << hex(inputs[i]);
        }
      }
    }
  }
}

class EveryFormat : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryFormat, MatchesEnumeratingReferenceOnEdgeCases) {
  const FloatFormat format = *parseFormat(GetParam());
  if (format.isFp32()) GTEST_SKIP() << "fp32: see Fp32IsIdentity";
  const FormatReference ref(format);
  const std::size_t step = ref.grid().size() > 70000 ? 13 : 1;
  checkAgainstReference(format, edgeInputs(ref, step), ref);
}

// Power-of-two block scaling rounds on the format's grid moved by 2^shift: block by block,
// 2^shift x round(x / 2^shift) by the enumerating reference (nearest-even, saturating, as the MX
// elements round), for every block whose moved grid fits fp32's normal range; other blocks (and
// the blocks marked with a shift that never fits) are left as they were.
TEST_P(EveryFormat, ScaledBlocksRoundOnTheMovedGridOrAreLeftAlone) {
  const FloatFormat format = *parseFormat(GetParam());
  if (format.isFp32()) GTEST_SKIP() << "fp32: the identity";
  const FormatReference ref(format);
  const RoundingSpec spec{format, RoundingMode::NearestEven, OverflowMode::Saturate};
  const Rounder rounder(spec);
  const std::size_t step = ref.grid().size() > 70000 ? 13 : 1;
  const std::vector<float> edges = edgeInputs(ref, step);
  constexpr std::size_t kBlock = 32;
  constexpr int kNever = std::numeric_limits<int>::min();
  int fitted = 0, refused = 0;
  for (const int shift : {-160, -140, -126, -100, -20, -1, 0, 1, 20, 100, 120, 140}) {
    std::vector<float> inputs;  // the edge cases moved by 2^shift, where fp32 holds them exactly
    for (const float e : edges) {
      if (!std::isfinite(e)) continue;
      const double v = std::ldexp(static_cast<double>(e), shift);
      if (std::isfinite(static_cast<float>(v)) && static_cast<double>(static_cast<float>(v)) == v)
        inputs.push_back(static_cast<float>(v));
    }
    const std::size_t blocks = (inputs.size() + kBlock - 1) / kBlock;  // the last one shorter
    std::vector<int> shifts(blocks, shift);
    for (std::size_t b = 1; b < blocks; b += 3) shifts[b] = kNever;
    std::vector<float> out(inputs.size(), -5.0f);
    rounder.applyScaledBlocks(inputs, out, kBlock, shifts);
    const bool fits = rounder.scaledGridShifts().contains(shift);
    (fits ? fitted : refused) += 1;
    int failures = 0;
    for (std::size_t i = 0; i < inputs.size() && failures < 5; ++i) {
      const bool rounded = fits && shifts[i / kBlock] == shift;
      const double want =
          rounded ? std::ldexp(ref.round(std::ldexp(double(inputs[i]), -shift), spec), shift)
                  : -5.0;
      if (!sameFloat(out[i], want)) {
        ++failures;
        ADD_FAILURE() << format.name << " shift " << shift << ": input " << hex(inputs[i]) << " ("
                      << inputs[i] << ") gave " << hex(out[i]) << " (" << out[i] << "), want "
                      << want;
      }
    }
    // In place: the same bits.
    std::vector<float> inPlace = inputs;
    rounder.applyScaledBlocks(inPlace, inPlace, kBlock, shifts);
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const float want = fits && shifts[i / kBlock] == shift ? out[i] : inputs[i];
      ASSERT_EQ(std::bit_cast<std::uint32_t>(inPlace[i]), std::bit_cast<std::uint32_t>(want))
          << format.name << " shift " << shift << " in place at " << i;
    }
  }
  // Formats whose smallest subnormal is not a normal fp32 number (fp32's exponent range) and
  // formats without a mantissa bit never take this way; the others do wherever the grid fits.
  const bool narrow = ref.grid()[1] >= double(std::numeric_limits<float>::min());
  EXPECT_EQ(fitted > 0, narrow && format.mantissaBits > 0) << format.name;
  EXPECT_GT(refused, 0) << format.name;
  // Other roundings never take this way.
  EXPECT_FALSE(Rounder(RoundingSpec{format, RoundingMode::Stochastic, OverflowMode::Saturate})
                   .scaledGridShifts()
                   .contains(0));
  EXPECT_FALSE(Rounder(RoundingSpec{format, RoundingMode::NearestEven, OverflowMode::Saturate,
                                    SubnormalMode::Flush})
                   .scaledGridShifts()
                   .contains(0));
}

INSTANTIATE_TEST_SUITE_P(PresetsAndCustom, EveryFormat,
                         ::testing::Values("tf32", "bf16", "fp16", "fp8-e4m3", "fp8-e5m2", "e8m3",
                                           "e5m7", "e3m2", "e2m0", "e2m1", "e4m0", "e5m12", "e7m5",
                                           "e8m0"),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });

// A dense stride through all 2^32 fp32 patterns (every exponent is hit), in both overflow modes
// (toward-zero overflow was once NaN in fp8-e4m3).
TEST(DenseStride, Bf16AndFp16MatchReference) {
  std::vector<float> inputs;
  for (std::uint64_t p = 0; p < (1ULL << 32); p += 4099)
    inputs.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(p)));
  for (const char* name : {"bf16", "fp16", "fp8-e4m3", "fp8-e5m2"}) {
    const FloatFormat format = *parseFormat(name);
    const FormatReference ref(format);
    for (RoundingMode mode :
         {RoundingMode::NearestEven, RoundingMode::NearestAway, RoundingMode::TowardZero}) {
      for (OverflowMode overflow : {OverflowMode::Ieee, OverflowMode::Saturate}) {
        const RoundingSpec spec{format, mode, overflow};
        std::vector<float> out = inputs;
        Rounder(spec).apply(out);
        int failures = 0;
        for (std::size_t i = 0; i < inputs.size() && failures < 5; ++i) {
          const double want = ref.round(inputs[i], spec);
          if (!sameFloat(out[i], want)) {
            ++failures;
            ADD_FAILURE() << name << " " << toString(mode) << " " << toString(overflow) << ": "
                          << hex(inputs[i]) << " gave " << hex(out[i]) << ", reference " << want;
          }
        }
      }
    }
  }
}

TEST(Fp32, IsIdentityAndFlushOnlyTouchesSubnormals) {
  const Rounder identity(RoundingSpec{*parseFormat("fp32")});
  EXPECT_TRUE(identity.isIdentity());
  const Rounder flush(RoundingSpec{*parseFormat("fp32"), RoundingMode::NearestEven,
                                   OverflowMode::Ieee, SubnormalMode::Flush});
  EXPECT_FALSE(flush.isIdentity());
  for (std::uint64_t p = 0; p < (1ULL << 32); p += 65537) {
    const float v = std::bit_cast<float>(static_cast<std::uint32_t>(p));
    const float kept = identity.round(v);
    EXPECT_TRUE(std::bit_cast<std::uint32_t>(kept) == p);
    const float flushed = flush.round(v);
    if (std::isnan(v)) {
      EXPECT_TRUE(std::isnan(flushed));
    } else if (std::fpclassify(v) == FP_SUBNORMAL) {
      EXPECT_EQ(flushed, 0.0f);
      EXPECT_EQ(std::signbit(flushed), std::signbit(v));
    } else {
      EXPECT_EQ(std::bit_cast<std::uint32_t>(flushed), p);
    }
  }
}

// Hand-checked values from the format definitions.
TEST(KnownValues, OverflowThresholdsAndTies) {
  const FloatFormat e4m3 = *parseFormat("fp8-e4m3");
  const FloatFormat e5m2 = *parseFormat("fp8-e5m2");
  const FloatFormat bf16 = *parseFormat("bf16");
  const Rounder e4m3Rne{RoundingSpec{e4m3}};
  EXPECT_EQ(e4m3Rne.round(463.99f), 448.0f);
  EXPECT_EQ(e4m3Rne.round(464.0f), 448.0f);  // tie to even mantissa 110
  EXPECT_TRUE(std::isnan(e4m3Rne.round(464.01f)));
  EXPECT_TRUE(std::isnan(e4m3Rne.round(std::numeric_limits<float>::infinity())));
  const Rounder e4m3Sat{RoundingSpec{e4m3, RoundingMode::NearestEven, OverflowMode::Saturate}};
  EXPECT_EQ(e4m3Sat.round(1e9f), 448.0f);
  EXPECT_EQ(e4m3Sat.round(-std::numeric_limits<float>::infinity()), -448.0f);
  EXPECT_EQ(e4m3Sat.round(std::ldexp(1.0f, -10)), 0.0f);  // min subnormal / 2: tie -> even (0)
  EXPECT_EQ(e4m3Sat.round(std::ldexp(1.5f, -10)), std::ldexp(1.0f, -9));
  // Toward-zero never turns a finite value into NaN or infinity, E4M3 included.
  const Rounder e4m3Rtz{RoundingSpec{e4m3, RoundingMode::TowardZero}};
  EXPECT_EQ(e4m3Rtz.round(500.0f), 448.0f);
  EXPECT_EQ(e4m3Rtz.round(-1e9f), -448.0f);
  EXPECT_EQ(e4m3Rtz.round(447.0f), 416.0f);
  EXPECT_TRUE(std::isnan(e4m3Rtz.round(std::numeric_limits<float>::infinity())));  // no inf
  const Rounder e5m2Rne{RoundingSpec{e5m2}};
  EXPECT_EQ(e5m2Rne.round(61439.0f), 57344.0f);
  EXPECT_TRUE(std::isinf(e5m2Rne.round(61440.0f)));  // tie at the threshold: to even (inf)
  const Rounder e5m2Rtz{RoundingSpec{e5m2, RoundingMode::TowardZero}};
  EXPECT_EQ(e5m2Rtz.round(1e9f), 57344.0f);
  const Rounder bf16Rne{RoundingSpec{bf16}};
  EXPECT_EQ(bf16Rne.round(std::bit_cast<float>(0x3f808000U)), 1.0f);  // tie, even
  EXPECT_EQ(std::bit_cast<std::uint32_t>(bf16Rne.round(std::bit_cast<float>(0x3f818000U))),
            0x3f820000U);
  const Rounder bf16Rna{RoundingSpec{bf16, RoundingMode::NearestAway}};
  EXPECT_EQ(std::bit_cast<std::uint32_t>(bf16Rna.round(std::bit_cast<float>(0x3f808000U))),
            0x3f810000U);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(bf16Rne.round(-0.0f)), 0x80000000U);
  EXPECT_TRUE(std::isinf(bf16Rne.round(std::numeric_limits<float>::max())));
}

}  // namespace
}  // namespace paritylab::numerics
