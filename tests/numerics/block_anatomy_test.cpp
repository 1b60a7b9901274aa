// One block taken apart: the shared scale as the format stores it and each element's code, worked
// by hand from the OCP MX and NVFP4 equations (docs/block-formats.md).
#include "core/numerics/block_anatomy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/input/number_input.h"

namespace paritylab::numerics {
namespace {

// MX FP4: amax 3 gives 2^(floor(log2 3) - 2) = 2^-1. Elements value / 0.5 rounded to E2M1 (bias 1):
// 1.5 -> 3 = 0 10 1; 0.1 -> 0.2 -> 0; -3 -> -6 = 1 11 1 (E2M1's largest).
TEST(BlockAnatomy, MxSharesAPowerOfTwoScaleAndShowsEachElementsCode) {
  const std::vector<float> values = {1.5f, 0.1f, -3.0f};
  const BlockAnatomy a = dissectBlock(values, *namedBlockFormat("mxfp4"));
  EXPECT_EQ(a.scale, 0.5);
  EXPECT_EQ(a.scaleExponent, -1);
  ASSERT_EQ(a.elements.size(), 3u);
  EXPECT_EQ(a.elements[0].bits, "0 10 1");
  EXPECT_EQ(a.elements[0].element, 3.0);
  EXPECT_EQ(a.elements[0].decoded, 1.5);
  EXPECT_EQ(a.elements[1].bits, "0 00 0");
  EXPECT_EQ(a.elements[1].decoded, 0.0);
  EXPECT_EQ(a.elements[2].bits, "1 11 1");
  EXPECT_EQ(a.elements[2].element, -6.0);
  EXPECT_EQ(a.elements[2].decoded, -3.0);
}

// NVFP4: s_t = amax / (448 x 6) = 1/448, the block's E4M3 scale 6 / (6 s_t) = 448 = 0 1111 110.
TEST(BlockAnatomy, Nvfp4ShowsItsE4m3BlockScaleAndFp32TensorScale) {
  const std::vector<float> values = {1.0f, 2.0f, 3.0f, 6.0f};
  const BlockAnatomy a = dissectBlock(values, *namedBlockFormat("nvfp4"));
  EXPECT_EQ(a.blockScale, 448.0);
  EXPECT_EQ(a.blockScaleBits, "0 1111 110");
  EXPECT_EQ(a.tensorScale, double(float(6.0 / (448.0 * 6.0))));
  EXPECT_EQ(a.elements[3].bits, "0 11 1");  // 6
  EXPECT_EQ(a.elements[2].element, 3.0);
}

// An all-zero MX block stores the smallest E8M0 scale, 2^-127 (docs/block-formats.md: amax = 0);
// a NaN in a block makes it all NaN, with no scale to show.
TEST(BlockAnatomy, AllZeroBlocksStoreTheSmallestScaleAndNaNBlocksNone) {
  const std::vector<float> zeros = {0.0f, -0.0f};
  const BlockAnatomy z = dissectBlock(zeros, *namedBlockFormat("mxfp8"));
  EXPECT_EQ(z.scaleExponent, -127);
  EXPECT_EQ(z.elements[0].decoded, 0.0);
  const std::vector<float> nan = {1.0f, std::nanf("")};
  const BlockAnatomy a = dissectBlock(nan, *namedBlockFormat("mxfp8"));
  EXPECT_TRUE(a.nanBlock);
  EXPECT_TRUE(std::isnan(a.elements[0].decoded));
}

TEST(BlockAnatomy, MxInt8ElementsAreTwosComplementSixtyFourths) {
  const std::vector<float> values = {1.0f, -1.0f, 0.5f};
  const BlockAnatomy a = dissectBlock(values, *namedBlockFormat("mxint8"));
  EXPECT_EQ(a.scale, 1.0);                    // 2^(floor(log2 1) - 0)
  EXPECT_EQ(a.elements[1].bits, "11000000");  // -64
  EXPECT_EQ(a.elements[2].bits, "00100000");  // 32
}

TEST(BlockAnatomy, NamesAndRefusals) {
  EXPECT_EQ(blockFormatNames().size(), 7u);
  EXPECT_FALSE(namedBlockFormat("bf16"));
  EXPECT_EQ(namedBlockFormat("mxfp6-e2m3")->element.name, "fp6-e2m3");
  const std::vector<float> many(33, 1.0f);
  EXPECT_THROW(dissectBlock(many, *namedBlockFormat("mxfp4")), input::InputError);
  EXPECT_THROW(dissectBlock({}, *namedBlockFormat("mxfp4")), input::InputError);
}

}  // namespace
}  // namespace paritylab::numerics
