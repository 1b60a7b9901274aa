// NVFP4 block quantization against NVIDIA's recipe written out in block_reference.h: 1 x 16 and
// 16 x 16 blocks, random and adversarial tensors, the column axis against the transposed rows,
// stochastic rounding (reproducible, independent of how rows are split, unbiased).

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/numerics/block_scaling.h"
#include "tests/numerics/block_reference.h"

namespace paritylab::numerics {
namespace {

using testing::randomMatrix;
using testing::RefMatrix;
using testing::sameValue;

// The reference with blocks of `block` x 1 along rows, or block x block tiles when square.
RefMatrix refNvfp4(const RefMatrix& m, bool square, int block = 16) {
  const double st = testing::refNvfp4TensorScale(m);
  RefMatrix out = m;
  const std::int64_t rowStep = square ? block : 1;
  for (std::int64_t r0 = 0; r0 < m.rows; r0 += rowStep) {
    const std::int64_t r1 = std::min<std::int64_t>(r0 + rowStep, m.rows);
    for (std::int64_t c0 = 0; c0 < m.cols; c0 += block) {
      const std::int64_t c1 = std::min<std::int64_t>(c0 + block, m.cols);
      std::vector<double> xs;
      for (std::int64_t r = r0; r < r1; ++r)
        for (std::int64_t c = c0; c < c1; ++c) xs.push_back(m.at(r, c));
      const std::vector<double> ys = testing::refNvfp4Block(xs, st);
      std::size_t i = 0;
      for (std::int64_t r = r0; r < r1; ++r)
        for (std::int64_t c = c0; c < c1; ++c) out.at(r, c) = ys[i++];
    }
  }
  return out;
}

// Quantized in place along rows. With stats, also without them (the quantizer takes another way
// when it need not measure each block's error): the same bits either way.
RefMatrix quantize(const RefMatrix& m, const BlockScaling& spec, BlockScalingStats* stats = nullptr,
                   std::uint64_t seed = 0) {
  std::vector<float> buffer(m.v.begin(), m.v.end());
  const std::vector<float> input = buffer;
  quantizeBlocks(buffer, buffer, m.rows, m.cols, m.cols, BlockAxis::Row, spec, seed, 0, stats);
  if (stats) {
    std::vector<float> unmeasured = input;
    quantizeBlocks(unmeasured, unmeasured, m.rows, m.cols, m.cols, BlockAxis::Row, spec, seed, 0);
    EXPECT_EQ(std::memcmp(unmeasured.data(), buffer.data(), buffer.size() * sizeof(float)), 0)
        << "measured and unmeasured quantization differ";
  }
  return RefMatrix{m.rows, m.cols, std::vector<double>(buffer.begin(), buffer.end())};
}

void expectSameNvfp4(const RefMatrix& got, const RefMatrix& want, const std::string& what) {
  int failures = 0;
  for (std::size_t i = 0; i < want.v.size() && failures < 5; ++i) {
    if (!sameValue(got.v[i], want.v[i])) {
      ++failures;
      ADD_FAILURE() << what << " element " << i << ": got " << got.v[i] << ", want " << want.v[i];
    }
  }
}

BlockScaling nvfp4(bool square = false) {
  BlockScaling spec = defaultBlockScaling(BlockScalingKind::NVFP4);
  spec.squareBlocks = square;
  return spec;
}

TEST(Nvfp4, RandomTensorsMatchTheRecipe) {
  for (bool square : {false, true}) {
    for (unsigned seed : {1u, 2u, 3u}) {
      for (double magnitude : {1e-40, 1e-20, 1e-3, 1.0, 7e4, 1e35}) {
        for (int spread : {0, 5, 30}) {
          const RefMatrix m = randomMatrix(37, 53, seed, magnitude, spread);  // partial blocks
          BlockScalingStats stats;
          expectSameNvfp4(quantize(m, nvfp4(square), &stats), refNvfp4(m, square),
                          std::string(square ? "16x16" : "1x16") + " seed " + std::to_string(seed) +
                              " magnitude " + std::to_string(magnitude) + " spread " +
                              std::to_string(spread));
          EXPECT_EQ(stats.blocks, square ? 3 * 4 : 37 * 4);
          EXPECT_EQ(stats.tensorScale, testing::refNvfp4TensorScale(m));
        }
      }
    }
  }
}

// Lines long enough for the vectorised amax (sixteen blocks at a time) and a tail, unmeasured;
// a NaN in the vectorised part sends its line the general way.
TEST(Nvfp4, LongRowsMatchTheRecipe) {
  for (double magnitude : {1e-40, 1e-3, 1.0, 1e35}) {
    for (int spread : {0, 5, 30}) {
      RefMatrix m = randomMatrix(3, 16 * 16 * 2 + 13, 5, magnitude, spread);
      expectSameNvfp4(quantize(m, nvfp4()), refNvfp4(m, false),
                      "long rows, magnitude " + std::to_string(magnitude) + " spread " +
                          std::to_string(spread));
      m.v[m.cols + 200] = std::numeric_limits<double>::quiet_NaN();
      expectSameNvfp4(quantize(m, nvfp4()), refNvfp4(m, false), "long rows with a NaN");
    }
  }
}

TEST(Nvfp4, AdversarialBlocksMatchTheRecipe) {
  const double inf = std::numeric_limits<double>::infinity();
  const double tiny = std::numeric_limits<float>::denorm_min();
  RefMatrix m{8, 16, std::vector<double>(8 * 16, 0.0)};
  m.at(0, 5) = -0.0;                                         // row 0: zeros
  for (int c = 0; c < 16; ++c) m.at(1, c) = 1e-3 * (c + 1);  // row 1: tiny beside row 2's max
  m.at(2, 0) = 3e38;                                         // row 2: the tensor's max
  for (int c = 1; c < 16; ++c) m.at(2, c) = 1e30 * c;
  for (int c = 0; c < 16; ++c) m.at(3, c) = tiny * c;  // row 3: fp32 subnormals
  for (int c = 0; c < 16; ++c) m.at(4, c) = c - 7.5;   // row 4: a NaN
  m.at(4, 9) = testing::kRefNaN;
  for (int c = 0; c < 16; ++c) m.at(5, c) = c;  // row 5: an infinity
  m.at(5, 2) = -inf;
  for (int c = 0; c < 16; ++c) m.at(6, c) = (c % 2 ? -1 : 1) * 6.0 * (1 + c);  // exact multiples
  for (int c = 0; c < 16; ++c) m.at(7, c) = 3e38 / (c + 1);
  for (double& x : m.v) x = static_cast<float>(x);
  BlockScalingStats stats;
  expectSameNvfp4(quantize(m, nvfp4(), &stats), refNvfp4(m, false), "adversarial");
  EXPECT_EQ(stats.nanBlocks, 2);
  EXPECT_GE(stats.underflowedScales, 2);  // rows 1 and 3 vanish beside 3e38
  // A tensor of zeros; a tensor whose amax is an fp32 subnormal (s_t clamps to 2^-149).
  RefMatrix zeros{2, 20, std::vector<double>(40, 0.0)};
  zeros.v[3] = -0.0;
  expectSameNvfp4(quantize(zeros, nvfp4()), refNvfp4(zeros, false), "zeros");
  RefMatrix subnormal{1, 16, {}};
  for (int c = 0; c < 16; ++c) subnormal.v.push_back(tiny * c * (c % 3 ? 1 : -1));
  expectSameNvfp4(quantize(subnormal, nvfp4()), refNvfp4(subnormal, false), "subnormal tensor");
  // Values at exactly the block max: 6 x block scale x s_t comes back exactly when the block
  // scale is exact in E4M3.
  RefMatrix exact{1, 16, {}};
  for (int c = 0; c < 16; ++c) exact.v.push_back(c == 0 ? 2688.0 : (c % 7) * 64.0);
  const RefMatrix got = quantize(exact, nvfp4());
  EXPECT_EQ(got.v[0], 2688.0);  // s_t = 1, block scale 448
  expectSameNvfp4(got, refNvfp4(exact, false), "exact max");
  // Every midpoint between E2M1 values, exactly: s_t = 1 (the tensor's amax 2688), the second
  // block's scale 4 (its amax 24), so x / scale = 0.25, 0.75, ..., 5, each a tie.
  RefMatrix ties{1, 32, std::vector<double>(32, 0.0)};
  ties.v[0] = 2688.0;
  const double midpoints[] = {1, 3, 5, 7, 10, 14, 20};  // 4 x (0.25, 0.75, ..., 5)
  ties.v[16] = 24.0;
  for (int i = 0; i < 7; ++i) {
    ties.v[17 + i] = midpoints[i];
    ties.v[24 + i] = -midpoints[i];
  }
  ties.v[31] = 2.0;  // x / scale = 0.5, on the grid
  const RefMatrix tied = quantize(ties, nvfp4());
  expectSameNvfp4(tied, refNvfp4(ties, false), "ties");
  const double even[] = {0, 4, 4, 8, 8, 16, 16};  // each tie to the even code
  for (int i = 0; i < 7; ++i) {
    EXPECT_EQ(tied.v[17 + i], even[i]) << "tie at " << midpoints[i];
    EXPECT_EQ(tied.v[24 + i], -even[i]) << "tie at " << -midpoints[i];
  }
}

// Blocks down the columns are the rows' blocks of the transposed matrix, bit for bit, draws
// included (element (r, c) draws as position r of line c): narrow and wide matrices, a row stride
// past the columns, an offset, a column of zeros, a column whose blocks' scales underflow E4M3
// (far below the tensor's amax), a block of every midpoint between E2M1 values (as in the
// adversarial blocks: s_t = 1, block scale 4), and a NaN or an infinity in one block.
TEST(Nvfp4, ColumnAxisEqualsTransposedRows) {
  struct Case {
    std::int64_t rows, cols, ld;
    float special;  // put at (17, 3) unless 0
  };
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const Case k : {Case{45, 7, 7, 0.0f}, Case{45, 70, 75, 0.0f}, Case{32, 67, 67, nan},
                       Case{40, 33, 40, inf}}) {
    const RefMatrix b = randomMatrix(k.rows, k.cols, 5, 2.0, 6);  // B [k, n], |b| < 2688
    std::vector<float> strided(std::size_t(k.rows * k.ld), 0.0f);
    for (std::int64_t r = 0; r < k.rows; ++r) {
      for (std::int64_t c = 0; c < k.cols; ++c) {
        float v = static_cast<float>(b.at(r, c));
        if (c == 1) v = 0.0f;
        if (c == 2) v *= 1e-30f;
        strided[std::size_t(r * k.ld + c)] = v;
      }
    }
    strided[0] = 2688.0f;
    if (k.rows >= 32 && k.cols > 4) {
      const float midpoints[] = {1, 3, 5, 7, 10, 14, 20};  // 4 x (0.25, 0.75, ..., 5)
      strided[std::size_t(16 * k.ld + 4)] = 24.0f;
      for (int i = 0; i < 14; ++i)
        strided[std::size_t((17 + i) * k.ld + 4)] = (i < 7 ? 1.0f : -1.0f) * midpoints[i % 7];
      strided[std::size_t(31 * k.ld + 4)] = 2.0f;
    }
    if (k.special != 0.0f) strided[std::size_t(17 * k.ld + 3)] = k.special;
    std::vector<float> transposed(std::size_t(k.rows * k.cols));
    for (std::int64_t r = 0; r < k.rows; ++r)
      for (std::int64_t c = 0; c < k.cols; ++c)
        transposed[std::size_t(c * k.rows + r)] = strided[std::size_t(r * k.ld + c)];
    for (bool square : {false, true}) {
      for (RoundingMode mode : {RoundingMode::NearestEven, RoundingMode::Stochastic}) {
        BlockScaling spec = nvfp4(square);
        spec.rounding = mode;
        std::vector<float> byColumn(strided.size()), byRow(transposed.size());
        quantizeBlocks(strided, k.ld, byColumn, k.ld, k.rows, k.cols, BlockAxis::Column, spec, 3,
                       1000);
        quantizeBlocks(transposed, byRow, k.cols, k.rows, k.rows, BlockAxis::Row, spec, 3, 1000);
        for (std::int64_t r = 0; r < k.rows; ++r) {
          for (std::int64_t c = 0; c < k.cols; ++c) {
            ASSERT_EQ(std::bit_cast<std::uint32_t>(byColumn[std::size_t(r * k.ld + c)]),
                      std::bit_cast<std::uint32_t>(byRow[std::size_t(c * k.rows + r)]))
                << "(" << r << ", " << c << ") of [" << k.rows << ", " << k.cols << "]"
                << (square ? " square" : "")
                << (mode == RoundingMode::Stochastic ? " stochastic" : " nearest");
          }
        }
      }
    }
  }
}

// Stochastic rounding of the elements: reproducible under a seed, the same when the rows are
// quantized in two calls (same tensor amax in both halves, offset = first row x cols), each value
// one of its two grid neighbours, and unbiased on average.
// Unmeasured lines take the vectorised scales and measured ones the general path: the same scales
// and the same draws, so the same bits, a NaN's line included.
TEST(Nvfp4Stochastic, UnmeasuredLinesDrawAsMeasuredOnes) {
  BlockScaling spec = nvfp4();
  spec.rounding = RoundingMode::Stochastic;
  for (double magnitude : {1e-40, 1.0, 1e30}) {  // no value past fp32's largest
    RefMatrix m = randomMatrix(3, 16 * 16 * 2 + 13, 8, magnitude, 12);
    m.v[m.cols + 100] = std::numeric_limits<double>::quiet_NaN();
    BlockScalingStats stats;
    quantize(m, spec, &stats, 77);  // compares the two
    EXPECT_EQ(stats.nanBlocks, 1);
  }
}

TEST(Nvfp4Stochastic, ReproducibleSplitIndependentAndUnbiased) {
  RefMatrix m = randomMatrix(8, 64, 6, 1.0, 2);
  m.at(0, 0) = 50.0;  // the same amax in both halves
  m.at(5, 3) = -50.0;
  std::vector<float> src(m.v.begin(), m.v.end());
  BlockScaling spec = nvfp4();
  spec.rounding = RoundingMode::Stochastic;
  std::vector<float> whole(src.size()), split(src.size());
  quantizeBlocks(src, whole, 8, 64, 64, BlockAxis::Row, spec, 21, 0);
  const std::span<const float> in(src);
  const std::span<float> out(split);
  quantizeBlocks(in.first(4 * 64), out.first(4 * 64), 4, 64, 64, BlockAxis::Row, spec, 21, 0);
  quantizeBlocks(in.subspan(4 * 64), out.subspan(4 * 64), 4, 64, 64, BlockAxis::Row, spec, 21,
                 4 * 64);
  EXPECT_EQ(std::memcmp(whole.data(), split.data(), whole.size() * sizeof(float)), 0);
  const RefMatrix nearest = refNvfp4(m, false);
  for (std::size_t i = 0; i < src.size(); ++i) {
    if (whole[i] != nearest.v[i]) {
      EXPECT_LE((whole[i] - src[i]) * (nearest.v[i] - src[i]), 0.0) << src[i];
    }
  }
  // Blocks of equal values between two grid points: the mean of many draws is the value. The
  // tensor amax 2688 makes s_t = 1, each block's 2688 makes its scale 448: 582.4 / 448 = 1.3.
  constexpr int kRows = 4000;
  std::vector<float> same(static_cast<std::size_t>(kRows * 16), 582.4f);
  for (int r = 0; r < kRows; ++r) same[static_cast<std::size_t>(r) * 16] = 2688.0f;
  std::vector<float> drawn(same.size());
  quantizeBlocks(same, drawn, kRows, 16, 16, BlockAxis::Row, spec, 9, 0);
  double sum = 0;
  int count = 0;
  for (int r = 0; r < kRows; ++r) {
    for (int c = 1; c < 16; ++c) {
      const float v = drawn[static_cast<std::size_t>(r) * 16 + static_cast<std::size_t>(c)];
      ASSERT_TRUE(v == 448.0f || v == 672.0f) << v;
      sum += v;
      ++count;
    }
  }
  const double sigma = 224.0 * std::sqrt(0.6 * 0.4 / count);
  EXPECT_NEAR(sum / count, 582.4f, 5 * sigma);
}

}  // namespace
}  // namespace paritylab::numerics
