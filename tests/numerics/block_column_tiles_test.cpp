// Blocks along columns over a matrix large enough to be quantized in several windows of rows and
// several tiles of columns, with a row stride of 4 KiB: the same bits as the transposed matrix
// quantized along rows, for every recipe and both rounding modes, with and without stats.

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/numerics/block_scaling.h"

namespace paritylab::numerics {
namespace {

constexpr std::int64_t kRows = 300;  // k: the blocks' axis
constexpr std::int64_t kCols = 520;  // n
constexpr std::int64_t kLd = 1024;   // 4 KiB between rows

std::vector<BlockScaling> recipes() {
  std::vector<BlockScaling> specs;
  for (const char* element : {"fp8-e4m3", "fp4-e2m1", "int8"})
    specs.push_back(parseBlockScaling("mx", element));
  specs.push_back(parseBlockScaling("nvfp4"));
  BlockScaling nvfp4Square = parseBlockScaling("nvfp4");
  nvfp4Square.squareBlocks = true;
  specs.push_back(nvfp4Square);
  for (const char* recipe : {"current", "rowwise", "blockwise"})
    for (const char* scale : {"fp32", "e8m0"})
      specs.push_back(parseBlockScaling(recipe, "fp8-e4m3", std::nullopt, scale));
  BlockScaling blockwiseSquare = parseBlockScaling("blockwise", "fp8-e5m2");
  blockwiseSquare.squareBlocks = true;
  specs.push_back(blockwiseSquare);
  return specs;
}

std::string nameOf(const BlockScaling& spec) {
  return std::string(toString(spec.kind)) + " " + spec.element.name + " " +
         std::string(toString(spec.scale)) + (spec.squareBlocks ? " square" : "") + " " +
         std::string(toString(spec.rounding));
}

TEST(BlockColumnAxis, ManyWindowsAndTilesEqualTransposedRows) {
  std::mt19937 gen(17);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> strided(static_cast<std::size_t>((kRows - 1) * kLd + kCols), 5.0f);
  for (std::int64_t r = 0; r < kRows; ++r) {
    for (std::int64_t c = 0; c < kCols; ++c) {
      const float x = gen() % 64 == 0 ? 0.0f : std::ldexp(normal(gen), int(gen() % 13) - 6);
      strided[static_cast<std::size_t>(r * kLd + c)] = x;
    }
  }
  for (std::int64_t r = 32; r < 64; ++r)  // a column block of zeros
    strided[static_cast<std::size_t>(r * kLd + 7)] = r % 2 == 0 ? 0.0f : -0.0f;
  strided[static_cast<std::size_t>(200 * kLd + 300)] = std::numeric_limits<float>::infinity();
  std::vector<float> transposed(static_cast<std::size_t>(kRows * kCols));
  for (std::int64_t r = 0; r < kRows; ++r)
    for (std::int64_t c = 0; c < kCols; ++c)
      transposed[static_cast<std::size_t>(c * kRows + r)] =
          strided[static_cast<std::size_t>(r * kLd + c)];

  for (BlockScaling spec : recipes()) {
    for (RoundingMode mode : {RoundingMode::NearestEven, RoundingMode::Stochastic}) {
      spec.rounding = mode;
      std::vector<float> byColumn = strided;  // in place
      quantizeBlocks(byColumn, byColumn, kRows, kCols, kLd, BlockAxis::Column, spec, 5, 77);
      std::vector<float> byColumnWithStats(strided.size(), -7.0f);
      BlockScalingStats columnStats;
      quantizeBlocks(strided, byColumnWithStats, kRows, kCols, kLd, BlockAxis::Column, spec, 5, 77,
                     &columnStats);
      std::vector<float> byRow(transposed.size());
      BlockScalingStats rowStats;
      quantizeBlocks(transposed, byRow, kCols, kRows, kRows, BlockAxis::Row, spec, 5, 77,
                     &rowStats);
      for (std::int64_t r = 0; r < kRows; ++r) {
        for (std::int64_t c = 0; c < kCols; ++c) {
          const auto want = std::bit_cast<std::uint32_t>(byRow[std::size_t(c * kRows + r)]);
          ASSERT_EQ(std::bit_cast<std::uint32_t>(byColumn[std::size_t(r * kLd + c)]), want)
              << nameOf(spec) << " [" << r << ", " << c << "]";
          ASSERT_EQ(std::bit_cast<std::uint32_t>(byColumnWithStats[std::size_t(r * kLd + c)]), want)
              << nameOf(spec) << " with stats [" << r << ", " << c << "]";
        }
        for (std::int64_t c = kCols; c < kLd && r + 1 < kRows; ++c)  // padding not touched
          ASSERT_EQ(byColumnWithStats[std::size_t(r * kLd + c)], -7.0f) << nameOf(spec);
      }
      EXPECT_EQ(columnStats.blocks, rowStats.blocks) << nameOf(spec);
      EXPECT_EQ(columnStats.nanBlocks, rowStats.nanBlocks) << nameOf(spec);
      EXPECT_EQ(columnStats.signalEnergy, rowStats.signalEnergy) << nameOf(spec);
      EXPECT_EQ(columnStats.errorEnergy, rowStats.errorEnergy) << nameOf(spec);
      EXPECT_EQ(columnStats.minScale, rowStats.minScale) << nameOf(spec);
      EXPECT_EQ(columnStats.maxScale, rowStats.maxScale) << nameOf(spec);
    }
  }
}

// Square blocks (NVFP4's 16 x 16, blockwise's 128 x 128) are the same sets of values along either
// axis, with one scale each (and NVFP4's one tensor scale): with nearest rounding a matrix
// quantizes to the same bits along its rows as along its columns, short blocks at both edges
// included. A convolution's forward and data-gradient products share one quantization of the
// weights on that ground (StepOperandCache::squareWeights).
TEST(BlockColumnAxis, SquareBlocksQuantizeAMatrixAlikeAlongEitherAxis) {
  std::mt19937 gen(29);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> m(static_cast<std::size_t>(kRows * kCols));
  for (float& x : m) x = gen() % 64 == 0 ? 0.0f : std::ldexp(normal(gen), int(gen() % 13) - 6);
  for (BlockScaling spec : recipes()) {
    if (!spec.squareBlocks) continue;
    spec.rounding = RoundingMode::NearestEven;
    std::vector<float> byRow(m.size()), byColumn(m.size());
    quantizeBlocks(m, byRow, kRows, kCols, kCols, BlockAxis::Row, spec);
    quantizeBlocks(m, byColumn, kRows, kCols, kCols, BlockAxis::Column, spec);
    for (std::size_t i = 0; i < m.size(); ++i)
      ASSERT_EQ(std::bit_cast<std::uint32_t>(byRow[i]), std::bit_cast<std::uint32_t>(byColumn[i]))
          << nameOf(spec) << " at (" << i / std::size_t(kCols) << ", " << i % std::size_t(kCols)
          << ")";
  }
}

}  // namespace
}  // namespace paritylab::numerics
