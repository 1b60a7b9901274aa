// The random Hadamard transform of NVFP4's weight-gradient operands: its matrix D H / 4 is
// orthogonal, it leaves a product unchanged when both operands take it, and every output is the
// sum of x_i M[i][j] in double, in order, rounded once, on either axis, with any stride and
// tail, whatever the values (infinities, NaN, subnormals, overflow to infinity included) and
// however many binades a run spans.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/input/number_input.h"
#include "core/numerics/block_scaling.h"
#include "tests/numerics/block_reference.h"

namespace paritylab::numerics {
namespace {

TEST(RandomHadamard, SignsAndMatrixAreOrthogonal) {
  const auto signs = hadamardSigns(17);
  int negatives = 0;
  for (float s : signs) {
    ASSERT_TRUE(s == 1.0f || s == -1.0f);
    negatives += s < 0;
  }
  EXPECT_GT(negatives, 0);
  EXPECT_LT(negatives, 16);
  EXPECT_NE(hadamardSigns(17), hadamardSigns(18));
  // The transform of the identity's rows is M = D H / 4; M M^T = I.
  std::vector<float> identity(16 * 16, 0.0f);
  for (int i = 0; i < 16; ++i) identity[static_cast<std::size_t>(i) * 17] = 1.0f;
  randomHadamardTransform(identity, 16, 16, 16, BlockAxis::Row, 17);
  for (int i = 0; i < 16; ++i) {
    for (int j = 0; j < 16; ++j) {
      const float entry = identity[static_cast<std::size_t>(i) * 16 + static_cast<std::size_t>(j)];
      EXPECT_EQ(std::fabs(entry), 0.25f);
      const float h = (std::popcount(unsigned(i & j)) % 2 ? -0.25f : 0.25f) * signs[i];
      EXPECT_EQ(entry, h) << i << ", " << j;
    }
  }
}

// Transforming A [m, k] along its rows and B [k, n] along its columns with one seed leaves A B
// as it was, within the fp32 rounding of the transformed operands; a tail of k mod 16 stays.
TEST(RandomHadamard, BothOperandsTransformedKeepTheProduct) {
  const std::int64_t m = 5, k = 70, n = 4;
  const RefMatrix a = randomMatrix(m, k, 31, 1.0, 4);
  const RefMatrix b = randomMatrix(k, n, 32, 1.0, 4);
  std::vector<float> at(a.v.begin(), a.v.end()), bt(b.v.begin(), b.v.end());
  randomHadamardTransform(at, m, k, k, BlockAxis::Row, 99);
  randomHadamardTransform(bt, k, n, n, BlockAxis::Column, 99);
  for (std::int64_t c = 64; c < k; ++c) EXPECT_EQ(at[static_cast<std::size_t>(c)], a.at(0, c));
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      double exact = 0, transformed = 0, scale = 0;
      for (std::int64_t p = 0; p < k; ++p) {
        exact += a.at(i, p) * b.at(p, j);
        transformed += double(at[static_cast<std::size_t>(i * k + p)]) *
                       double(bt[static_cast<std::size_t>(p * n + j)]);
        scale += std::fabs(a.at(i, p)) * std::fabs(b.at(p, j));
      }
      EXPECT_NEAR(transformed, exact, 4e-7 * scale * 4) << i << ", " << j;
    }
  }
  // A different seed transforms differently but keeps the product as well.
  std::vector<float> other(a.v.begin(), a.v.end());
  randomHadamardTransform(other, m, k, k, BlockAxis::Row, 100);
  EXPECT_NE(std::memcmp(other.data(), at.data(), at.size() * sizeof(float)), 0);
}

// The transform's definition, one output at a time: runs of 16 along the axis from the start of
// each line; a tail of fewer than 16 stays as it is.
std::vector<float> transformedOneOutputAtATime(std::vector<float> v, std::int64_t rows,
                                               std::int64_t cols, std::int64_t ld, BlockAxis axis,
                                               std::uint64_t seed) {
  const auto signs = hadamardSigns(seed);
  const bool byRow = axis == BlockAxis::Row;
  const std::int64_t lines = byRow ? rows : cols, length = byRow ? cols : rows;
  auto at = [&](std::int64_t line, std::int64_t pos) -> float& {
    return v[static_cast<std::size_t>(byRow ? line * ld + pos : pos * ld + line)];
  };
  for (std::int64_t l = 0; l < lines; ++l) {
    for (std::int64_t p = 0; p + 16 <= length; p += 16) {
      double x[16];
      for (int i = 0; i < 16; ++i) x[i] = at(l, p + i);
      for (int j = 0; j < 16; ++j) {
        double sum = 0.0;
        for (int i = 0; i < 16; ++i)
          sum +=
              x[i] * (signs[std::size_t(i)] * (std::popcount(unsigned(i & j)) % 2 ? -0.25 : 0.25));
        at(l, p + j) = static_cast<float>(sum);
      }
    }
  }
  return v;
}

TEST(RandomHadamard, EveryOutputIsTheOrderedDoubleSumRoundedOnce) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-30, 10);
  const float specials[] = {std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::max(),
                            std::numeric_limits<float>::denorm_min(),
                            -0.0f,
                            1e-40f};
  struct Shape {
    std::int64_t rows, cols, ld;
  };
  // Full tiles, a tile's tail, line tails shorter than a run, a stride wider than the rows; in
  // place, and out of place into another stride.
  for (const Shape s : {Shape{32, 64, 64}, Shape{48, 37, 37}, Shape{35, 70, 75}, Shape{16, 16, 16},
                        Shape{7, 5, 9}, Shape{0, 3, 3}, Shape{33, 100, 101}}) {
    for (const BlockAxis axis : {BlockAxis::Row, BlockAxis::Column}) {
      std::vector<float> v(
          static_cast<std::size_t>(s.rows == 0 ? 0 : (s.rows - 1) * s.ld + s.cols));
      for (float& x : v) {
        // Small values, equal large ones that cancel (in double a small term added between two
        // of them is lost or kept depending on the order of the sum), values that overflow fp32
        // once summed, and now and then a special value.
        x = std::ldexp(unit(rng), exponent(rng));
        if (rng() % 4 == 0) x = rng() % 2 ? 0x1p40f : -0x1p40f;
        if (rng() % 16 == 0) x = std::ldexp(unit(rng), 127);
        if (rng() % 64 == 0) x = specials[rng() % std::size(specials)];
      }
      const std::vector<float> expected =
          transformedOneOutputAtATime(v, s.rows, s.cols, s.ld, axis, 123);
      // Out of place, into rows of another stride: the same values, tails copied, src untouched.
      const std::vector<float> original = v;
      const std::int64_t ldOut = s.cols + 3;
      std::vector<float> out(static_cast<std::size_t>(s.rows * ldOut), 7.0f);
      randomHadamardTransform(original, s.ld, out, ldOut, s.rows, s.cols, axis, 123);
      for (std::int64_t r = 0; r < s.rows; ++r) {
        for (std::int64_t c = 0; c < s.cols; ++c) {
          const float got = out[std::size_t(r * ldOut + c)];
          const float want = expected[std::size_t(r * s.ld + c)];
          ASSERT_TRUE(std::isnan(want)
                          ? std::isnan(got)
                          : std::bit_cast<std::uint32_t>(got) == std::bit_cast<std::uint32_t>(want))
              << "out of place (" << r << ", " << c << ") of [" << s.rows << ", " << s.cols << "]"
              << (axis == BlockAxis::Row ? " rows" : " columns");
        }
      }
      randomHadamardTransform(v, s.rows, s.cols, s.ld, axis, 123);
      ASSERT_EQ(v.size(), expected.size());
      for (std::size_t i = 0; i < v.size(); ++i) {
        std::uint32_t got, want;
        std::memcpy(&got, &v[i], 4);
        std::memcpy(&want, &expected[i], 4);
        if (std::isnan(expected[i]))
          ASSERT_TRUE(std::isnan(v[i])) << "element " << i;
        else
          ASSERT_EQ(got, want) << "element " << i << " of [" << s.rows << ", " << s.cols << "] ld "
                               << s.ld << (axis == BlockAxis::Row ? " rows" : " columns");
      }
    }
  }
}

// The transform returns the amax of what it wrote (the largest magnitude of the finite outputs
// in [rows, cols], whether one is an infinity or a NaN), which a tensor-wide scale then takes
// instead of reading the output again; quantizing with it gives the bits quantizing without it
// gives.
TEST(RandomHadamard, TheTransformReturnsTheAmaxOfItsOutput) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  struct Shape {
    std::int64_t rows, cols, ld;
  };
  for (const Shape s : {Shape{32, 64, 64}, Shape{48, 37, 40}, Shape{35, 70, 75}, Shape{7, 5, 9},
                        Shape{0, 3, 3}, Shape{16, 100, 100}}) {
    for (const BlockAxis axis : {BlockAxis::Row, BlockAxis::Column}) {
      for (const int special : {0, 1, 2}) {  // none, an infinity, a NaN
        std::vector<float> v(
            static_cast<std::size_t>(s.rows == 0 ? 0 : (s.rows - 1) * s.ld + s.cols));
        for (float& x : v) x = std::ldexp(unit(rng), int(rng() % 40) - 20);
        // The padding between rows: large, and never part of the output's amax.
        for (std::int64_t r = 0; r + 1 < s.rows; ++r)
          for (std::int64_t c = s.cols; c < s.ld; ++c) v[std::size_t(r * s.ld + c)] = 1e30f;
        if (special > 0 && !v.empty())
          v[v.size() / 2 / std::size_t(s.ld) * std::size_t(s.ld)] =
              special == 1 ? -std::numeric_limits<float>::infinity()
                           : std::numeric_limits<float>::quiet_NaN();
        std::vector<float> out = v;
        const FiniteAmax got = randomHadamardTransform(out, s.rows, s.cols, s.ld, axis, 99);
        double want = 0.0;
        bool nonFinite = false;
        for (std::int64_t r = 0; r < s.rows; ++r)
          for (std::int64_t c = 0; c < s.cols; ++c) {
            const float y = out[std::size_t(r * s.ld + c)];
            if (std::isfinite(y))
              want = std::max(want, double(std::fabs(y)));
            else
              nonFinite = true;
          }
        const std::string what = "[" + std::to_string(s.rows) + ", " + std::to_string(s.cols) +
                                 "] " + (axis == BlockAxis::Row ? "rows" : "columns") +
                                 ", special " + std::to_string(special);
        EXPECT_EQ(got.amax, want) << what;
        EXPECT_EQ(got.nonFinite, nonFinite) << what;
        EXPECT_EQ(nonFinite, special > 0 && s.rows > 0) << what;
        // An out-of-place transform into another stride measures the same.
        std::vector<float> other(static_cast<std::size_t>(s.rows * (s.cols + 1)), 5e30f);
        const FiniteAmax outOfPlace =
            randomHadamardTransform(v, s.ld, other, s.cols + 1, s.rows, s.cols, axis, 99);
        EXPECT_EQ(outOfPlace.amax, got.amax) << what;
        EXPECT_EQ(outOfPlace.nonFinite, got.nonFinite) << what;
        if (s.ld != s.cols || s.rows == 0) continue;
        // NVFP4 (a tensor scale) with the amax given, and measured again: the same bits.
        const BlockScaling nvfp4 = defaultBlockScaling(BlockScalingKind::NVFP4);
        std::vector<float> given(out.size()), measured(out.size());
        quantizeBlockStack(out, given, 1, s.rows, s.cols, axis, nvfp4, 3, 0, nullptr, &got);
        quantizeBlockStack(out, measured, 1, s.rows, s.cols, axis, nvfp4, 3);
        EXPECT_EQ(std::memcmp(given.data(), measured.data(), given.size() * sizeof(float)), 0)
            << what;
      }
    }
  }
}

// Runs whose values span a given number of binades (the smallest and the largest exponent both
// present, full 24-bit significands, zeros of either sign now and then): up to 25 binades every
// sum of a run's terms is exact in double and the order of the additions cannot matter; from 26
// on it can, and the transform must still give the ordered sum's bits. A run of zeros gives +0
// (the ordered sum starts from +0), whatever the zeros' signs.
TEST(RandomHadamard, RunsOfEverySpanOfBinadesGiveTheOrderedSum) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<std::uint32_t> significand(0x800000U, 0xffffffU);
  for (const int span : {0, 1, 12, 24, 25, 26, 27, 28, 30, 40, 53, 80}) {
    for (const BlockAxis axis : {BlockAxis::Row, BlockAxis::Column}) {
      // 16 runs of 16 along the axis: [16, 256] by rows, [16, 16] by columns, 64 times over.
      const std::int64_t rows = axis == BlockAxis::Row ? 16 : 16 * 64;
      const std::int64_t cols = axis == BlockAxis::Row ? 16 * 64 : 16;
      std::vector<float> v(std::size_t(rows * cols));
      const int top = int(rng() % 40) - 20;
      for (float& x : v) {
        const int e = top - int(rng() % std::uint32_t(span + 1));
        x = std::ldexp(float(significand(rng)), e - 23);
        if (rng() % 2) x = -x;
        if (rng() % 8 == 0) x = rng() % 2 ? 0.0f : -0.0f;
      }
      // Every run reaches both ends of the span.
      const std::int64_t lines = axis == BlockAxis::Row ? rows : cols;
      const std::int64_t length = axis == BlockAxis::Row ? cols : rows;
      for (std::int64_t l = 0; l < lines; ++l) {
        for (std::int64_t p = 0; p + 16 <= length; p += 16) {
          const auto at = [&](std::int64_t i) -> float& {
            return v[std::size_t(axis == BlockAxis::Row ? l * cols + p + i : (p + i) * cols + l)];
          };
          at(std::int64_t(rng() % 8)) = std::ldexp(float(significand(rng)), top - 23);
          at(8 + std::int64_t(rng() % 8)) = std::ldexp(float(significand(rng)), top - span - 23);
        }
      }
      // Whole runs of zeros of both signs.
      for (std::int64_t i = 0; i < 16; ++i)
        v[std::size_t(axis == BlockAxis::Row ? i : i * cols)] = i % 3 ? -0.0f : 0.0f;
      const std::vector<float> expected =
          transformedOneOutputAtATime(v, rows, cols, cols, axis, 29);
      randomHadamardTransform(v, rows, cols, cols, axis, 29);
      for (std::size_t i = 0; i < v.size(); ++i) {
        ASSERT_EQ(std::bit_cast<std::uint32_t>(v[i]), std::bit_cast<std::uint32_t>(expected[i]))
            << "element " << i << ", runs spanning " << span << " binades"
            << (axis == BlockAxis::Row ? " along rows" : " down columns");
      }
    }
  }
}

// A run spanning 26 binades (one binade past the exact span) whose first output lies within a
// unit of its smallest term from an fp32 rounding midpoint: fourteen large terms that sum to a
// midpoint, two small ones that almost cancel (+a, then -(a - 1), -a or -(a + 1)). Past 2^53
// units the sum's additions round, so the order in which the small terms meet the large ones
// decides the bits: about one run in twenty comes out differently in the order of the fast
// Walsh-Hadamard transform than in the ordered sum.
std::array<float, 16> runNearAMidpoint(std::mt19937& rng, const std::array<float, 16>& signs) {
  const int first = int(rng() % 16);
  int second = int(rng() % 15);
  second += second >= first ? 1 : 0;
  const std::int64_t a = (1 << 23) + std::int64_t(rng() % (1 << 23));
  std::int64_t large = 0;  // the large terms' significands so far
  int lastLarge = 15;
  while (lastLarge == first || lastLarge == second) --lastLarge;
  std::array<float, 16> run{};
  bool smallSeen = false;
  for (int i = 0; i < 16; ++i) {
    double term;  // in units of the smallest term's unit
    if (i == first || i == second) {
      term = smallSeen ? -double(a - 1 + std::int64_t(rng() % 3)) : double(a);
      smallSeen = true;
    } else {
      std::int64_t m = (1 << 24) - 16 - std::int64_t(rng() % (1 << 20));
      if (i == lastLarge) m += ((8 - (large + m) % 16) % 16 + 16) % 16;  // a midpoint: 8 mod 16
      large += m;
      term = std::ldexp(double(m), 26);
    }
    // The first output's term is x_i d_i / 4.
    run[std::size_t(i)] = float(std::ldexp(term, -70)) * signs[std::size_t(i)];
  }
  return run;
}

TEST(RandomHadamard, RunsThatTheOrderOfTheSumDecidesGiveTheOrderedSum) {
  std::mt19937 rng(13);
  const std::array<float, 16> signs = hadamardSigns(31);
  for (const BlockAxis axis : {BlockAxis::Row, BlockAxis::Column}) {
    const std::int64_t runs = 512;
    const std::int64_t rows = axis == BlockAxis::Row ? runs : 16;
    const std::int64_t cols = axis == BlockAxis::Row ? 16 : runs;
    std::vector<float> v(std::size_t(rows * cols));
    for (std::int64_t l = 0; l < runs; ++l) {
      const std::array<float, 16> run = runNearAMidpoint(rng, signs);
      for (std::int64_t i = 0; i < 16; ++i)
        v[std::size_t(axis == BlockAxis::Row ? l * cols + i : i * cols + l)] = run[std::size_t(i)];
    }
    const std::vector<float> expected = transformedOneOutputAtATime(v, rows, cols, cols, axis, 31);
    randomHadamardTransform(v, rows, cols, cols, axis, 31);
    for (std::size_t i = 0; i < v.size(); ++i) {
      ASSERT_EQ(std::bit_cast<std::uint32_t>(v[i]), std::bit_cast<std::uint32_t>(expected[i]))
          << "element " << i << (axis == BlockAxis::Row ? " along rows" : " down columns");
    }
  }
}

TEST(RandomHadamard, AMatrixThatDoesNotFitItsValuesIsRefused) {
  std::vector<float> v(10);
  EXPECT_THROW(randomHadamardTransform(v, 4, 3, 3, BlockAxis::Row, 1), input::InputError);
  EXPECT_THROW(randomHadamardTransform(v, 2, 4, 3, BlockAxis::Row, 1), input::InputError);
  EXPECT_THROW(randomHadamardTransform(v, -1, 4, 4, BlockAxis::Row, 1), input::InputError);
}

}  // namespace
}  // namespace paritylab::numerics
