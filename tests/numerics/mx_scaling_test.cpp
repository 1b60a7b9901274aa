// OCP MX block quantization against the specification's equations (block_reference.h) for every
// element format, on random blocks of several seeds and magnitudes and on adversarial blocks: all
// zeros, one huge value among tiny ones, fp32 subnormals only, a NaN, an infinity, values at
// exactly the element's max, rows not a multiple of 32, the strided (column) axis against the
// transposed contiguous case, in place, and stochastic rounding's reproducibility across splits.

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/input/number_input.h"
#include "core/numerics/block_scaling.h"
#include "tests/numerics/block_reference.h"

namespace paritylab::numerics {
namespace {

using testing::randomMatrix;
using testing::RefMatrix;
using testing::sameValue;

BlockScaling mx(const std::string& element) {
  BlockScaling spec = defaultBlockScaling(BlockScalingKind::MX);
  spec.element = parseBlockElement(element);
  return spec;
}

// The reference on a row-major matrix with blocks of `block` along each row.
RefMatrix refMxRows(const RefMatrix& m, const std::string& element, int block = 32) {
  RefMatrix out = m;
  for (std::int64_t r = 0; r < m.rows; ++r) {
    for (std::int64_t c0 = 0; c0 < m.cols; c0 += block) {
      const std::int64_t c1 = std::min<std::int64_t>(c0 + block, m.cols);
      std::vector<double> xs;
      for (std::int64_t c = c0; c < c1; ++c) xs.push_back(m.at(r, c));
      const std::vector<double> ys = testing::refMxBlock(xs, element);
      for (std::int64_t c = c0; c < c1; ++c) out.at(r, c) = ys[static_cast<std::size_t>(c - c0)];
    }
  }
  return out;
}

// Quantizes m (as fp32, stored with row stride cols + 3) along rows; returns the values. With
// stats, also quantized without them (the quantizer takes another path when it need not measure
// each block's error): the same bits either way.
RefMatrix quantizeRows(const RefMatrix& m, const BlockScaling& spec,
                       BlockScalingStats* stats = nullptr) {
  const std::int64_t ld = m.cols + 3;
  std::vector<float> src(static_cast<std::size_t>(m.rows * ld), 12345.0f);
  for (std::int64_t r = 0; r < m.rows; ++r)
    for (std::int64_t c = 0; c < m.cols; ++c)
      src[static_cast<std::size_t>(r * ld + c)] = static_cast<float>(m.at(r, c));
  std::vector<float> dst(src.size(), -7.0f);
  quantizeBlocks(src, dst, m.rows, m.cols, ld, BlockAxis::Row, spec, 0, 0, stats);
  if (stats) {
    std::vector<float> unmeasured(src.size(), -7.0f);
    quantizeBlocks(src, unmeasured, m.rows, m.cols, ld, BlockAxis::Row, spec, 0, 0, nullptr);
    EXPECT_EQ(std::memcmp(unmeasured.data(), dst.data(), dst.size() * sizeof(float)), 0)
        << "measured and unmeasured quantization differ";
  }
  RefMatrix out = m;
  for (std::int64_t r = 0; r < m.rows; ++r) {
    for (std::int64_t c = 0; c < m.cols; ++c)
      out.at(r, c) = dst[static_cast<std::size_t>(r * ld + c)];
    for (std::int64_t c = m.cols; c < ld; ++c)  // the padding is not touched
      EXPECT_EQ(dst[static_cast<std::size_t>(r * ld + c)], -7.0f);
  }
  return out;
}

void expectSame(const RefMatrix& got, const RefMatrix& want, const std::string& what) {
  int failures = 0;
  for (std::int64_t r = 0; r < want.rows && failures < 5; ++r) {
    for (std::int64_t c = 0; c < want.cols && failures < 5; ++c) {
      if (!sameValue(got.at(r, c), want.at(r, c))) {
        ++failures;
        ADD_FAILURE() << what << " [" << r << ", " << c << "]: got " << got.at(r, c) << ", want "
                      << want.at(r, c);
      }
    }
  }
}

class MxElement : public ::testing::TestWithParam<std::string> {};

TEST_P(MxElement, RandomBlocksMatchTheSpecification) {
  const std::string element = GetParam();
  for (unsigned seed : {1u, 2u, 3u}) {
    for (double magnitude : {1e-38, 1e-30, 1e-3, 1.0, 3e5, 1e30, 3e38}) {
      for (int spread : {0, 6, 40}) {
        const RefMatrix m = randomMatrix(5, 100, seed, magnitude, spread);  // 100 = 3 x 32 + 4
        BlockScalingStats stats;
        expectSame(quantizeRows(m, mx(element), &stats), refMxRows(m, element),
                   element + " seed " + std::to_string(seed) + " magnitude " +
                       std::to_string(magnitude) + " spread " + std::to_string(spread));
        EXPECT_EQ(stats.blocks, 5 * 4);
        // Magnitudes near fp32's top overflow to infinities, whose blocks become NaN.
        std::int64_t nonFiniteBlocks = 0;
        for (std::int64_t r = 0; r < 5; ++r) {
          for (std::int64_t c0 = 0; c0 < 100; c0 += 32) {
            bool any = false;
            for (std::int64_t c = c0; c < std::min<std::int64_t>(c0 + 32, 100); ++c)
              any |= !std::isfinite(m.at(r, c));
            nonFiniteBlocks += any;
          }
        }
        EXPECT_EQ(stats.nanBlocks, nonFiniteBlocks);
      }
    }
  }
}

TEST_P(MxElement, AdversarialBlocksMatchTheSpecification) {
  const std::string element = GetParam();
  const testing::RefElement e = testing::refElement(element);
  const double inf = std::numeric_limits<double>::infinity();
  const double tiny = std::numeric_limits<float>::denorm_min();
  std::vector<std::vector<double>> blocks;
  blocks.push_back(std::vector<double>(32, 0.0));  // all zeros, both signs
  blocks.back()[3] = -0.0;
  blocks.push_back(std::vector<double>(32, 1e-6));  // one huge value among tiny ones
  blocks.back()[7] = 3e38;
  blocks.back()[8] = -1e-40;
  std::vector<double> subnormal;  // fp32 subnormals only
  for (int i = 0; i < 32; ++i) subnormal.push_back(tiny * (i * 37 % 101) * (i % 2 ? -1 : 1));
  blocks.push_back(subnormal);
  blocks.push_back(std::vector<double>(32, 1.5));  // a NaN
  blocks.back()[31] = testing::kRefNaN;
  blocks.push_back(std::vector<double>(32, 2.5));  // an infinity
  blocks.back()[0] = -inf;
  // Exactly the element's max times the block's scale, with neighbours and half-way values.
  for (int shift : {-130, -20, 0, 17, 100}) {
    std::vector<double> atMax;
    const double scale = std::ldexp(1.0, shift);
    for (int i = 0; i < 32; ++i) {
      const double v = e.max * scale * (1.0 - i / 64.0);
      atMax.push_back(static_cast<float>(i % 2 ? -v : v));
    }
    blocks.push_back(atMax);
  }
  RefMatrix m{static_cast<std::int64_t>(blocks.size()), 32, {}};
  for (const auto& b : blocks) m.v.insert(m.v.end(), b.begin(), b.end());
  for (double& x : m.v) x = static_cast<float>(x);
  BlockScalingStats stats;
  const RefMatrix got = quantizeRows(m, mx(element), &stats);
  expectSame(got, refMxRows(m, element), element + " adversarial");
  EXPECT_EQ(stats.nanBlocks, 2);          // the NaN's and the infinity's
  EXPECT_GE(stats.underflowedScales, 1);  // the subnormal block: 2^-127 clamps the shared scale
  // The max itself survives exactly in every block where it fits.
  for (std::int64_t r = 5; r < m.rows; ++r) {
    if (m.at(r, 0) >= e.max * std::ldexp(1.0, -127)) {
      EXPECT_EQ(got.at(r, 0), m.at(r, 0)) << r;
    }
  }
}

// Blocks along a column (stride ld) quantize exactly as the transposed matrix's rows do, with
// stochastic rounding too (draws are indexed along the axis); also in place.
TEST_P(MxElement, ColumnAxisEqualsTransposedRowsAndInPlaceEqualsCopy) {
  const std::string element = GetParam();
  const std::int64_t k = 70, n = 9, ld = 11;  // B [k, n], k not a multiple of 32
  const RefMatrix b = randomMatrix(k, n, 9, 1.0, 8);
  std::vector<float> strided(static_cast<std::size_t>(k * ld), 0.0f);
  for (std::int64_t r = 0; r < k; ++r)
    for (std::int64_t c = 0; c < n; ++c)
      strided[static_cast<std::size_t>(r * ld + c)] = static_cast<float>(b.at(r, c));
  std::vector<float> transposed(static_cast<std::size_t>(n * k));
  for (std::int64_t r = 0; r < k; ++r)
    for (std::int64_t c = 0; c < n; ++c)
      transposed[static_cast<std::size_t>(c * k + r)] = static_cast<float>(b.at(r, c));
  for (RoundingMode mode : {RoundingMode::NearestEven, RoundingMode::Stochastic}) {
    BlockScaling spec = mx(element);
    spec.rounding = mode;
    std::vector<float> byColumn(strided.size());
    quantizeBlocks(strided, byColumn, k, n, ld, BlockAxis::Column, spec, 42, 1000);
    std::vector<float> byRow(transposed.size());
    quantizeBlocks(transposed, byRow, n, k, k, BlockAxis::Row, spec, 42, 1000);
    for (std::int64_t r = 0; r < k; ++r)
      for (std::int64_t c = 0; c < n; ++c)
        ASSERT_EQ(std::bit_cast<std::uint32_t>(byColumn[static_cast<std::size_t>(r * ld + c)]),
                  std::bit_cast<std::uint32_t>(byRow[static_cast<std::size_t>(c * k + r)]))
            << element << " " << toString(mode) << " [" << r << ", " << c << "]";
    std::vector<float> inPlace = strided;
    quantizeBlocks(inPlace, inPlace, k, n, ld, BlockAxis::Column, spec, 42, 1000);
    for (std::int64_t r = 0; r < k; ++r)
      for (std::int64_t c = 0; c < n; ++c)
        ASSERT_EQ(std::bit_cast<std::uint32_t>(inPlace[static_cast<std::size_t>(r * ld + c)]),
                  std::bit_cast<std::uint32_t>(byColumn[static_cast<std::size_t>(r * ld + c)]));
  }
}

// Blocks down the columns (the other operand's reduction axis), unmeasured, against the
// specification on adversarial columns: all zeros (signs kept), a NaN, fp32 subnormals only, one
// huge value among tiny ones, values whose shared scale clamps at 2^-127, and ordinary ones; in
// place as well.
TEST_P(MxElement, ColumnBlocksMatchTheSpecificationOnAdversarialColumns) {
  const std::string element = GetParam();
  const std::int64_t k = 70, n = 7, ld = 10;  // B [k, n]: blocks of 32, 32 and 6 rows
  RefMatrix b = randomMatrix(k, n, 4, 1.0, 8);
  const double tiny = std::numeric_limits<float>::denorm_min();
  for (std::int64_t r = 0; r < k; ++r) {
    b.at(r, 0) = r % 3 == 0 ? -0.0 : 0.0;
    b.at(r, 2) = static_cast<float>(tiny * double(r * 37 % 101) * (r % 2 ? -1 : 1));
    b.at(r, 3) = static_cast<float>(r == 5 ? 3e38 : 1e-6 * (r % 4 - 1.5));
    b.at(r, 4) = static_cast<float>(1e-38 * (r % 5 - 2));
  }
  b.at(40, 1) = testing::kRefNaN;
  std::vector<float> strided(static_cast<std::size_t>(k * ld), 99.0f);
  for (std::int64_t r = 0; r < k; ++r)
    for (std::int64_t c = 0; c < n; ++c)
      strided[static_cast<std::size_t>(r * ld + c)] = static_cast<float>(b.at(r, c));
  RefMatrix transposed{n, k, std::vector<double>(static_cast<std::size_t>(n * k))};
  for (std::int64_t r = 0; r < k; ++r)
    for (std::int64_t c = 0; c < n; ++c) transposed.at(c, r) = static_cast<float>(b.at(r, c));
  const RefMatrix want = refMxRows(transposed, element);
  std::vector<float> byColumn(strided.size(), -7.0f), inPlace = strided;
  quantizeBlocks(strided, byColumn, k, n, ld, BlockAxis::Column, mx(element));
  quantizeBlocks(inPlace, inPlace, k, n, ld, BlockAxis::Column, mx(element));
  RefMatrix got{n, k, std::vector<double>(static_cast<std::size_t>(n * k))};
  for (std::int64_t r = 0; r < k; ++r)
    for (std::int64_t c = 0; c < n; ++c) {
      const std::size_t i = static_cast<std::size_t>(r * ld + c);
      got.at(c, r) = byColumn[i];
      ASSERT_EQ(std::bit_cast<std::uint32_t>(inPlace[i]), std::bit_cast<std::uint32_t>(byColumn[i]))
          << element << " in place [" << r << ", " << c << "]";
    }
  expectSame(got, want, element + " adversarial columns");
}

// Lines long enough for the vectorised amax (sixteen blocks at a time) and a tail, unmeasured,
// against the specification; a NaN or an infinity in the vectorised part sends the line the
// general way, and its block alone becomes NaN.
TEST_P(MxElement, LongRowsMatchTheSpecification) {
  const std::string element = GetParam();
  const std::int64_t cols = 16 * 32 * 2 + 45;
  for (double magnitude : {1e-38, 1e-3, 1.0, 3e38}) {
    for (int spread : {0, 40}) {
      RefMatrix m = randomMatrix(3, cols, 7, magnitude, spread);
      expectSame(quantizeRows(m, mx(element)), refMxRows(m, element),
                 element + " long rows, magnitude " + std::to_string(magnitude) + " spread " +
                     std::to_string(spread));
      m.at(1, 300) = std::numeric_limits<double>::quiet_NaN();
      m.at(2, 700) = -std::numeric_limits<double>::infinity();
      expectSame(quantizeRows(m, mx(element)), refMxRows(m, element),
                 element + " long rows with a NaN and an infinity");
    }
  }
}

// A strided operand quantized straight into a dense buffer (each its own row stride) gives the
// bits of copying it densely first, along rows and down columns, measured or not, for MX and
// NVFP4; in place needs one stride.
TEST_P(MxElement, StridedSourceIntoADenseBufferEqualsCopyingItFirst) {
  const std::string element = GetParam();
  const std::int64_t rows = 70, cols = 530, ldSrc = 601;
  const RefMatrix m = randomMatrix(rows, cols, 4, 1.0, 10);
  std::vector<float> strided(static_cast<std::size_t>(rows * ldSrc), 99.0f);
  std::vector<float> dense(static_cast<std::size_t>(rows * cols));
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c)
      strided[static_cast<std::size_t>(r * ldSrc + c)] =
          dense[static_cast<std::size_t>(r * cols + c)] = static_cast<float>(m.at(r, c));
  for (const BlockScaling& spec : {mx(element), defaultBlockScaling(BlockScalingKind::NVFP4)}) {
    for (BlockAxis axis : {BlockAxis::Row, BlockAxis::Column}) {
      for (bool measured : {false, true}) {
        BlockScalingStats a, b;
        std::vector<float> want(dense.size()), got(dense.size());
        quantizeBlocks(dense, want, rows, cols, cols, axis, spec, 3, 0, measured ? &a : nullptr);
        quantizeBlocks(strided, ldSrc, got, cols, rows, cols, axis, spec, 3, 0,
                       measured ? &b : nullptr);
        EXPECT_EQ(std::memcmp(want.data(), got.data(), got.size() * sizeof(float)), 0)
            << element << " " << toString(spec.kind) << " axis " << int(axis) << " measured "
            << measured;
        EXPECT_EQ(a.blocks, b.blocks);
      }
    }
  }
  EXPECT_THROW(
      quantizeBlocks(strided, ldSrc, strided, cols, rows, cols, BlockAxis::Row, mx(element)),
      input::InputError);
}

INSTANTIATE_TEST_SUITE_P(OcpMx, MxElement,
                         ::testing::Values("fp8-e4m3", "fp8-e5m2", "fp6-e3m2", "fp6-e2m3",
                                           "fp4-e2m1", "int8"),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });

// Stochastic rounding: the same seed gives the same bits, splitting the rows over calls (with the
// offset of the first row) changes nothing, every result is one of the value's two neighbours.
TEST(MxStochastic, ReproducibleAndIndependentOfHowRowsAreSplit) {
  const RefMatrix m = randomMatrix(6, 96, 4, 1.0, 3);
  std::vector<float> src(m.v.begin(), m.v.end());
  BlockScaling spec = mx("fp4-e2m1");
  spec.rounding = RoundingMode::Stochastic;
  std::vector<float> whole(src.size());
  quantizeBlocks(src, whole, 6, 96, 96, BlockAxis::Row, spec, 7, 0);
  std::vector<float> again(src.size());
  quantizeBlocks(src, again, 6, 96, 96, BlockAxis::Row, spec, 7, 0);
  EXPECT_EQ(std::memcmp(whole.data(), again.data(), whole.size() * sizeof(float)), 0);
  std::vector<float> split(src.size());
  const std::span<const float> in(src);
  const std::span<float> out(split);
  quantizeBlocks(in.first(2 * 96), out.first(2 * 96), 2, 96, 96, BlockAxis::Row, spec, 7, 0);
  quantizeBlocks(in.subspan(2 * 96), out.subspan(2 * 96), 4, 96, 96, BlockAxis::Row, spec, 7,
                 2 * 96);
  EXPECT_EQ(std::memcmp(whole.data(), split.data(), whole.size() * sizeof(float)), 0);
  std::vector<float> otherSeed(src.size());
  quantizeBlocks(src, otherSeed, 6, 96, 96, BlockAxis::Row, spec, 8, 0);
  EXPECT_NE(std::memcmp(whole.data(), otherSeed.data(), whole.size() * sizeof(float)), 0);
  // Each result is X times a neighbour of x / X on the E2M1 grid.
  const RefMatrix nearest = refMxRows(m, "fp4-e2m1");
  for (std::size_t i = 0; i < src.size(); ++i) {
    const double x = src[i];
    if (whole[i] == nearest.v[i]) continue;
    EXPECT_TRUE((whole[i] - x) * (nearest.v[i] - x) <= 0.0) << x << ": " << whole[i];
  }
}

TEST(MxInt8, GridIsSymmetricTwosComplementOverSixtyFour) {
  const ElementFormat int8 = parseBlockElement("int8");
  EXPECT_TRUE(int8.isInteger);
  EXPECT_EQ(int8.maxMagnitude(), 127.0 / 64.0);
  EXPECT_EQ(int8.maxExponent(), 0);
  const Rounder rne(RoundingSpec{int8.grid, RoundingMode::NearestEven, OverflowMode::Saturate});
  for (int k = -127; k <= 127; ++k) {
    EXPECT_EQ(rne.round(k / 64.0f), k / 64.0f) << k;
    const float tie = (k + 0.5f) / 64.0f;  // between k and k + 1: to the even one
    const int even = k % 2 == 0 ? k : k + 1;
    if (k < 127) {
      EXPECT_EQ(rne.round(tie), std::min(even, 127) / 64.0f) << k;
    }
  }
  EXPECT_EQ(rne.round(-2.0f), -127.0f / 64.0f);  // -128 / 64 is never produced
  EXPECT_EQ(rne.round(100.0f), 127.0f / 64.0f);
  EXPECT_FALSE(std::signbit(rne.round(-0.001f)));  // no negative zero
}

TEST(MxElementExponents, MatchTheSpecificationTable) {
  for (const auto& [name, emax] : std::vector<std::pair<std::string, int>>{{"fp8-e4m3", 8},
                                                                           {"fp8-e5m2", 15},
                                                                           {"fp6-e3m2", 4},
                                                                           {"fp6-e2m3", 2},
                                                                           {"fp4-e2m1", 2},
                                                                           {"int8", 0}})
    EXPECT_EQ(parseBlockElement(name).maxExponent(), emax) << name;
}

}  // namespace
}  // namespace paritylab::numerics
