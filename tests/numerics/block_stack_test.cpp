// A tensor of matrices quantized as one (quantizeBlockStack: a convolution's activations
// [N, C, H*W] with blocks along C at each pixel). Along rows, matrices stacked one after another
// are one taller matrix: the stack must give the bits of quantizeBlocks on it, tensor-wide scales
// (NVFP4, per tensor) and stochastic draws included. Down the columns a block must stop at its
// matrix's last row: each matrix then quantizes as quantizeBlocks would on its own, with the
// stack's tensor-wide scale (NVFP4: checked by scaling one matrix far above the others).

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <random>
#include <vector>

#include "core/numerics/block_scaling.h"

namespace paritylab::numerics {
namespace {

constexpr std::int64_t kStackCount = 3, kStackRows = 40,
                       kStackCols = 48;  // 40 rows: a block of 32 and of 8

std::vector<float> stackValues() {
  std::mt19937 gen(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> v(std::size_t(kStackCount * kStackRows * kStackCols));
  for (float& x : v) x = normal(gen);
  // the last matrix 2^10 larger: NVFP4's tensor scale comes from it
  for (std::size_t i = std::size_t(2 * kStackRows * kStackCols); i < v.size(); ++i) v[i] *= 1024.0f;
  return v;
}

std::vector<BlockScaling> stackRecipes() {
  std::vector<BlockScaling> specs{parseBlockScaling("mx", "fp8-e4m3"),
                                  parseBlockScaling("mx", "fp4-e2m1"), parseBlockScaling("nvfp4"),
                                  parseBlockScaling("current", "fp8-e4m3")};
  BlockScaling stochastic = parseBlockScaling("nvfp4");
  stochastic.rounding = RoundingMode::Stochastic;
  specs.push_back(stochastic);
  return specs;
}

void expectSameBits(const std::vector<float>& got, const std::vector<float>& want,
                    const BlockScaling& spec) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(std::bit_cast<std::uint32_t>(got[i]), std::bit_cast<std::uint32_t>(want[i]))
        << toString(spec.kind) << " " << spec.element.name << " at " << i;
}

TEST(BlockStack, AlongRowsAStackIsOneTallerMatrix) {
  const std::vector<float> src = stackValues();
  for (const BlockScaling& spec : stackRecipes()) {
    std::vector<float> stacked(src.size()), tall(src.size());
    quantizeBlockStack(src, stacked, kStackCount, kStackRows, kStackCols, BlockAxis::Row, spec, 11,
                       5);
    quantizeBlocks(src, tall, kStackCount * kStackRows, kStackCols, kStackCols, BlockAxis::Row,
                   spec, 11, 5);
    expectSameBits(stacked, tall, spec);
  }
}

TEST(BlockStack, DownTheColumnsEachMatrixKeepsItsBlocksAndSharesTheTensorScale) {
  const std::vector<float> src = stackValues();
  const std::size_t size = std::size_t(kStackRows * kStackCols);
  for (const BlockScaling& spec : stackRecipes()) {
    std::vector<float> stacked(src.size());
    quantizeBlockStack(src, stacked, kStackCount, kStackRows, kStackCols, BlockAxis::Column, spec,
                       11, 5);
    // Each matrix on its own. With a tensor-wide scale only the last matrix, which holds the
    // stack's amax, quantizes as it would alone; the others must not.
    for (std::int64_t m = 0; m < kStackCount; ++m) {
      std::vector<float> one(src.begin() + std::ptrdiff_t(m * size),
                             src.begin() + std::ptrdiff_t((m + 1) * size));
      std::vector<float> want(one.size());
      if (spec.kind == BlockScalingKind::NVFP4 || spec.kind == BlockScalingKind::PerTensor) {
        if (m + 1 == kStackCount) {
          quantizeBlocks(one, want, kStackRows, kStackCols, kStackCols, BlockAxis::Column, spec, 11,
                         5 + std::uint64_t(m) * size);
        } else {
          std::vector<float> alone(one.size());
          quantizeBlocks(one, alone, kStackRows, kStackCols, kStackCols, BlockAxis::Column, spec,
                         11, 5 + std::uint64_t(m) * size);
          const std::vector<float> part(stacked.begin() + std::ptrdiff_t(m * size),
                                        stacked.begin() + std::ptrdiff_t((m + 1) * size));
          EXPECT_NE(part, alone) << toString(spec.kind) << ": matrix " << m
                                 << " took its own tensor scale";
          continue;
        }
      } else {
        quantizeBlocks(one, want, kStackRows, kStackCols, kStackCols, BlockAxis::Column, spec, 11,
                       5 + std::uint64_t(m) * size);
      }
      const std::vector<float> part(stacked.begin() + std::ptrdiff_t(m * size),
                                    stacked.begin() + std::ptrdiff_t((m + 1) * size));
      expectSameBits(part, want, spec);
    }
  }
}

}  // namespace
}  // namespace paritylab::numerics
