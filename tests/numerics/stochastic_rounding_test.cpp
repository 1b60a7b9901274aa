// Stochastic rounding is reproducible, independent of chunking, only returns one
// of the two neighbours, and is unbiased.

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <random>

#include "core/numerics/rounding.h"
#include "tests/numerics/format_reference.h"

namespace paritylab::numerics {
namespace {

std::vector<float> randomInputs(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<std::uint32_t> bits;
  std::vector<float> v(n);
  for (auto& x : v) {
    do x = std::bit_cast<float>(bits(gen) & 0xbfffffffU);  // |x| < 2: all of e4m3's range too
    while (std::isnan(x));
  }
  return v;
}

TEST(Stochastic, ReproducibleAndChunkIndependent) {
  const Rounder rounder(RoundingSpec{*parseFormat("bf16"), RoundingMode::Stochastic});
  const std::vector<float> inputs = randomInputs(10007, 1);
  std::vector<float> whole = inputs, again = inputs, chunked = inputs, otherSeed = inputs;
  rounder.apply(whole, 42, 1000);
  rounder.apply(again, 42, 1000);
  for (std::size_t start = 0; start < chunked.size(); start += 333) {
    const std::size_t n = std::min<std::size_t>(333, chunked.size() - start);
    rounder.apply(std::span(chunked).subspan(start, n), 42, 1000 + start);
  }
  rounder.apply(otherSeed, 43, 1000);
  std::size_t differ = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    EXPECT_EQ(std::bit_cast<std::uint32_t>(whole[i]), std::bit_cast<std::uint32_t>(again[i]));
    EXPECT_EQ(std::bit_cast<std::uint32_t>(whole[i]), std::bit_cast<std::uint32_t>(chunked[i]));
    EXPECT_EQ(whole[i], rounder.round(inputs[i], 42, 1000 + i));
    differ += whole[i] != otherSeed[i];
  }
  EXPECT_GT(differ, inputs.size() / 10);  // another seed draws differently
}

TEST(Stochastic, OnlyReturnsNeighbours) {
  for (const char* name : {"bf16", "fp16", "tf32", "fp8-e4m3", "fp8-e5m2", "e3m2"}) {
    const FloatFormat format = *parseFormat(name);
    const testing::FormatReference ref(format);
    const Rounder rounder(RoundingSpec{format, RoundingMode::Stochastic, OverflowMode::Saturate});
    const std::vector<float> inputs = randomInputs(20000, 2);
    std::vector<float> out = inputs;
    rounder.apply(out, 7);
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const double a = std::fabs(static_cast<double>(inputs[i]));
      auto n = ref.neighbours(std::min(a, ref.maxFinite()));
      const double got = std::fabs(static_cast<double>(out[i]));
      ASSERT_TRUE(got == n.lo || got == std::min(n.hi, ref.maxFinite()))
          << name << ": " << inputs[i] << " -> " << out[i];
      ASSERT_EQ(std::signbit(out[i]), std::signbit(inputs[i]));
    }
  }
}

// Overflow in the stochastic mode: past max finite, without saturation, a draw gives max finite
// or the format's overflow value (infinity; NaN in E4M3, which has no infinity), never anything
// else; at or past the next step up, always overflow.
TEST(Stochastic, OverflowGivesMaxFiniteOrOverflowValue) {
  for (const char* name : {"bf16", "fp16", "fp8-e4m3", "fp8-e5m2", "e3m2"}) {
    const FloatFormat format = *parseFormat(name);
    const testing::FormatReference ref(format);
    const double maxFinite = ref.maxFinite();
    const double nextStep = ref.grid().back();  // one step above max finite
    const Rounder rounder(RoundingSpec{format, RoundingMode::Stochastic});
    const bool e4m3 = format.special == SpecialEncoding::FiniteOnlyE4M3;
    auto isOverflow = [&](float v) { return e4m3 ? std::isnan(v) : std::isinf(v); };
    const float between = static_cast<float>((maxFinite + nextStep) / 2);
    std::vector<float> out(4000, between);
    rounder.apply(out, 11);
    std::size_t down = 0;
    for (float v : out) {
      ASSERT_TRUE(v == static_cast<float>(maxFinite) || isOverflow(v)) << name << ": " << v;
      down += v == static_cast<float>(maxFinite);
    }
    EXPECT_GT(down, out.size() / 4) << name;  // both outcomes occur (p = 1/2)
    EXPECT_LT(down, out.size() * 3 / 4) << name;
    std::vector<float> past(100, static_cast<float>(-nextStep));
    rounder.apply(past, 12);
    for (float v : past) ASSERT_TRUE(isOverflow(v) && (e4m3 || v < 0)) << name << ": " << v;
  }
}

TEST(Stochastic, UnbiasedMean) {
  // Values between two neighbours (normal and subnormal range): the mean of many draws must be
  // within 5 sigma of the input.
  const struct {
    const char* format;
    float value;
  } cases[] = {{"bf16", 1.0f + 0.3f / 128},
               {"fp16", 1e-6f},
               {"fp8-e4m3", 0.7f},
               {"fp8-e4m3", 0.0009f},
               {"tf32", -3.14159f}};
  for (const auto& c : cases) {
    const FloatFormat format = *parseFormat(c.format);
    const testing::FormatReference ref(format);
    const auto n = ref.neighbours(std::fabs(c.value));
    const double p = (std::fabs(c.value) - n.lo) / (n.hi - n.lo);
    constexpr std::size_t kDraws = 200000;
    std::vector<float> draws(kDraws, c.value);
    Rounder(RoundingSpec{format, RoundingMode::Stochastic}).apply(draws, 99);
    double sum = 0;
    for (float d : draws) sum += d;
    const double sigma = (n.hi - n.lo) * std::sqrt(p * (1 - p) / kDraws);
    EXPECT_NEAR(sum / kDraws, c.value, 5 * sigma) << c.format << " " << c.value;
  }
}

}  // namespace
}  // namespace paritylab::numerics
