// The fp8 scaling recipes (current per-tensor, rowwise, blockwise 1 x 128 and 128 x 128) with
// fp32 and power-of-two scales, against the equations written out in block_reference.h: random
// tensors of several magnitudes, zeros, non-finite values (NaN stays, infinity saturates, neither
// moves the scale), tiny amax (the scale's range), and the column axis against transposed rows.

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
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

// The reference: groups of rowsPer x colsPer (the whole tensor, a row, a tile) along rows.
RefMatrix refRecipe(const RefMatrix& m, const BlockScaling& spec) {
  std::int64_t rowsPer = 1, colsPer = m.cols;
  if (spec.kind == BlockScalingKind::PerTensor) rowsPer = m.rows;
  if (spec.kind == BlockScalingKind::Blockwise) {
    colsPer = spec.blockSize;
    rowsPer = spec.squareBlocks ? spec.blockSize : 1;
  }
  RefMatrix out = m;
  for (std::int64_t r0 = 0; r0 < m.rows; r0 += rowsPer) {
    for (std::int64_t c0 = 0; c0 < m.cols; c0 += colsPer) {
      const std::int64_t r1 = std::min(r0 + rowsPer, m.rows);
      const std::int64_t c1 = std::min(c0 + colsPer, m.cols);
      std::vector<double> xs;
      for (std::int64_t r = r0; r < r1; ++r)
        for (std::int64_t c = c0; c < c1; ++c) xs.push_back(m.at(r, c));
      const auto ys = testing::refFp8Group(xs, spec.element.name, spec.scale == ScaleFormat::E8M0);
      std::size_t i = 0;
      for (std::int64_t r = r0; r < r1; ++r)
        for (std::int64_t c = c0; c < c1; ++c) out.at(r, c) = ys[i++];
    }
  }
  return out;
}

RefMatrix quantizeRecipe(const RefMatrix& m, const BlockScaling& spec, BlockScalingStats* stats) {
  std::vector<float> src(m.v.begin(), m.v.end()), dst(m.v.size());
  quantizeBlocks(src, dst, m.rows, m.cols, m.cols, BlockAxis::Row, spec, 0, 0, stats);
  return RefMatrix{m.rows, m.cols, std::vector<double>(dst.begin(), dst.end())};
}

void expectSameRecipe(const RefMatrix& got, const RefMatrix& want, const std::string& what) {
  int failures = 0;
  for (std::size_t i = 0; i < want.v.size() && failures < 5; ++i) {
    if (!sameValue(got.v[i], want.v[i])) {
      ++failures;
      ADD_FAILURE() << what << " element " << i << ": got " << got.v[i] << ", want " << want.v[i];
    }
  }
}

// Every recipe x scale format x fp8 element.
std::vector<BlockScaling> scalingRecipes() {
  std::vector<BlockScaling> list;
  for (auto kind :
       {BlockScalingKind::PerTensor, BlockScalingKind::Rowwise, BlockScalingKind::Blockwise}) {
    for (ScaleFormat scale : {ScaleFormat::Fp32, ScaleFormat::E8M0}) {
      for (const char* element : {"fp8-e4m3", "fp8-e5m2", "fp8-e4m3fnuz"}) {
        for (bool square : {false, true}) {
          if (square && kind != BlockScalingKind::Blockwise) continue;
          BlockScaling spec = defaultBlockScaling(kind);
          spec.scale = scale;
          spec.element = parseBlockElement(element);
          spec.squareBlocks = square;
          list.push_back(spec);
        }
      }
    }
  }
  return list;
}

std::string recipeNameOf(const BlockScaling& spec) {
  return std::string(toString(spec.kind)) + (spec.squareBlocks ? " 128x128 " : " ") +
         spec.element.name + " " + std::string(toString(spec.scale));
}

TEST(Fp8Recipes, RandomTensorsMatchTheEquations) {
  for (const BlockScaling& spec : scalingRecipes()) {
    for (double magnitude : {1e-38, 1e-5, 1.0, 1e6, 1e37}) {
      for (int spread : {0, 12}) {
        const RefMatrix m = randomMatrix(130, 300, 17, magnitude, spread);  // partial tiles
        BlockScalingStats stats;
        expectSameRecipe(quantizeRecipe(m, spec, &stats), refRecipe(m, spec),
                         recipeNameOf(spec) + " magnitude " + std::to_string(magnitude));
        const std::int64_t groups = spec.kind == BlockScalingKind::PerTensor ? 1
                                    : spec.kind == BlockScalingKind::Rowwise ? 130
                                    : spec.squareBlocks                      ? 2 * 3
                                                                             : 130 * 3;
        EXPECT_EQ(stats.blocks, groups) << recipeNameOf(spec);
      }
    }
  }
}

TEST(Fp8Recipes, ZerosNonFiniteAndTinyAmax) {
  const double inf = std::numeric_limits<double>::infinity();
  RefMatrix m{4, 256, std::vector<double>(4 * 256, 0.0)};
  for (int c = 0; c < 256; ++c) {
    m.at(1, c) = std::ldexp(1.0, -149) * (c % 5);  // fp32 subnormals: the scale saturates
    m.at(2, c) = (c - 100) * 0.37;
    m.at(3, c) = std::ldexp(1.0, c % 60 - 30);
  }
  m.at(0, 7) = -0.0;
  m.at(2, 3) = testing::kRefNaN;
  m.at(2, 200) = -inf;
  m.at(3, 0) = inf;
  for (double& x : m.v) x = static_cast<float>(x);
  for (const BlockScaling& spec : scalingRecipes()) {
    BlockScalingStats stats;
    const RefMatrix got = quantizeRecipe(m, spec, &stats);
    expectSameRecipe(got, refRecipe(m, spec), recipeNameOf(spec) + " specials");
    EXPECT_EQ(stats.nanBlocks, 0);
    EXPECT_TRUE(std::isnan(got.at(2, 3)));
    EXPECT_LT(got.at(2, 200), -1.0);  // saturated, not NaN
    if (spec.kind != BlockScalingKind::PerTensor && !spec.squareBlocks &&
        spec.scale == ScaleFormat::Fp32) {
      EXPECT_GE(stats.saturatedScales, 1) << recipeNameOf(spec);  // 448 / 2^-147 is past fp32
    }
  }
}

TEST(Fp8Recipes, ColumnAxisEqualsTransposedRows) {
  const RefMatrix b = randomMatrix(300, 5, 3, 1.0, 10);  // B [k, n]
  std::vector<float> strided(b.v.begin(), b.v.end());
  std::vector<float> transposed(b.v.size());
  for (std::int64_t r = 0; r < 300; ++r)
    for (std::int64_t c = 0; c < 5; ++c)
      transposed[static_cast<std::size_t>(c * 300 + r)] = static_cast<float>(b.at(r, c));
  for (const BlockScaling& spec : scalingRecipes()) {
    std::vector<float> byColumn(strided.size()), byRow(transposed.size());
    quantizeBlocks(strided, byColumn, 300, 5, 5, BlockAxis::Column, spec);
    quantizeBlocks(transposed, byRow, 5, 300, 300, BlockAxis::Row, spec);
    for (std::int64_t r = 0; r < 300; ++r)
      for (std::int64_t c = 0; c < 5; ++c)
        ASSERT_EQ(std::bit_cast<std::uint32_t>(byColumn[static_cast<std::size_t>(r * 5 + c)]),
                  std::bit_cast<std::uint32_t>(byRow[static_cast<std::size_t>(c * 300 + r)]))
            << recipeNameOf(spec);
  }
}

// A power-of-two scale is the largest that keeps amax x scale within the element's max, even
// when max / amax lands just above a power of two in fp32.
TEST(Fp8Recipes, PowerOfTwoScaleNeverPushesAmaxPastMax) {
  BlockScaling spec = defaultBlockScaling(BlockScalingKind::PerTensor);
  spec.scale = ScaleFormat::E8M0;
  for (float amax : {448.0f, 448.00003f, 447.99997f, 1.0f, 0.875f, 3.5f, 1e-20f}) {
    std::vector<float> v{amax, -amax / 3};
    BlockScalingStats stats;
    quantizeBlocks(v, v, 1, 2, 2, BlockAxis::Row, spec, 0, 0, &stats);
    const double scale = 1.0 / stats.minScale;  // the encode scale
    int exponent = 0;
    EXPECT_EQ(std::frexp(scale, &exponent), 0.5) << amax;  // a power of two
    EXPECT_LE(double(amax) * scale, 448.0) << amax;
    EXPECT_GT(double(amax) * scale * 2, 448.0) << amax;
  }
}

}  // namespace
}  // namespace paritylab::numerics
