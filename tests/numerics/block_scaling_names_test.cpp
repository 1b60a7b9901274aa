// Block scaling specs from names (as JSON will give them): defaults, the element formats a recipe
// allows, and refusals whose message names the field and the value.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/input/number_input.h"
#include "core/numerics/block_scaling.h"

namespace paritylab::numerics {
namespace {

// The message of the InputError `work` throws ("" when it throws none).
template <typename Work>
std::string refusal(Work work) {
  try {
    work();
  } catch (const input::InputError& e) {
    // One error base for the project, and a standard invalid_argument.
    EXPECT_NE(dynamic_cast<const Error*>(&e), nullptr);
    EXPECT_NE(dynamic_cast<const std::invalid_argument*>(&e), nullptr);
    return e.what();
  }
  return "";
}

bool mentions(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(BlockScalingNames, DefaultsOfEveryRecipe) {
  const BlockScaling mx = parseBlockScaling("mx");
  EXPECT_EQ(mx.kind, BlockScalingKind::MX);
  EXPECT_EQ(mx.element.name, "fp8-e4m3");
  EXPECT_EQ(mx.blockSize, 32);
  EXPECT_EQ(mx.scale, ScaleFormat::E8M0);
  const BlockScaling nvfp4 = parseBlockScaling("nvfp4");
  EXPECT_EQ(nvfp4.element.name, "fp4-e2m1");
  EXPECT_EQ(nvfp4.blockSize, 16);
  EXPECT_EQ(nvfp4.scale, ScaleFormat::E4M3);
  EXPECT_EQ(parseBlockScaling("current").kind, BlockScalingKind::PerTensor);
  EXPECT_EQ(parseBlockScaling("rowwise").scale, ScaleFormat::Fp32);
  EXPECT_EQ(parseBlockScaling("blockwise").blockSize, 128);
  const BlockScaling custom = parseBlockScaling("mx", "fp4-e2m1", 64, "e8m0");
  EXPECT_EQ(custom.element.name, "fp4-e2m1");
  EXPECT_EQ(custom.blockSize, 64);
  EXPECT_EQ(parseBlockScaling("blockwise", "fp8-e5m2", std::nullopt, "e8m0").scale,
            ScaleFormat::E8M0);
  for (auto kind : {BlockScalingKind::MX, BlockScalingKind::NVFP4, BlockScalingKind::PerTensor,
                    BlockScalingKind::Rowwise, BlockScalingKind::Blockwise}) {
    EXPECT_EQ(parseBlockScalingKind(toString(kind)), kind);
    EXPECT_NO_THROW(validateBlockScaling(defaultBlockScaling(kind)));
  }
  for (auto scale : {ScaleFormat::Fp32, ScaleFormat::E8M0, ScaleFormat::E4M3})
    EXPECT_EQ(parseScaleFormat(toString(scale)), scale);
  EXPECT_EQ(parseBlockAxis("column"), BlockAxis::Column);
  EXPECT_EQ(parseBlockElement("fp4-e2m1").grid.name, "fp4-e2m1");
  EXPECT_EQ(blockElementFormats().size(), 8u);
}

TEST(BlockScalingNames, RefusalsNameTheFieldAndTheValue) {
  std::string m = refusal([] { parseBlockScaling("mxfp9"); });
  EXPECT_TRUE(mentions(m, "recipe") && mentions(m, "'mxfp9'") && mentions(m, "nvfp4")) << m;
  m = refusal([] { parseBlockElement("fp3"); });
  EXPECT_TRUE(mentions(m, "element") && mentions(m, "'fp3'") && mentions(m, "int8")) << m;
  m = refusal([] { parseBlockScaling("nvfp4", "fp6-e3m2"); });
  EXPECT_TRUE(mentions(m, "element") && mentions(m, "'fp6-e3m2'") && mentions(m, "'nvfp4'") &&
              mentions(m, "fp4-e2m1"))
      << m;
  m = refusal([] { parseBlockScaling("mx", "fp8-e4m3fnuz"); });
  EXPECT_TRUE(mentions(m, "'fp8-e4m3fnuz'") && mentions(m, "'mx'")) << m;
  m = refusal([] { parseBlockScaling("mx", "", 0); });
  EXPECT_TRUE(mentions(m, "blockSize") && mentions(m, "0")) << m;
  m = refusal([] { parseBlockScaling("blockwise", "", -128); });
  EXPECT_TRUE(mentions(m, "blockSize") && mentions(m, "-128")) << m;
  m = refusal([] { parseBlockScaling("mx", "", std::nullopt, "fp32"); });
  EXPECT_TRUE(mentions(m, "scale") && mentions(m, "'fp32'") && mentions(m, "'mx'") &&
              mentions(m, "e8m0"))
      << m;
  m = refusal([] { parseBlockScaling("current", "", std::nullopt, "e4m3"); });
  EXPECT_TRUE(mentions(m, "scale") && mentions(m, "'e4m3'") && mentions(m, "'current'")) << m;
  m = refusal([] { parseBlockScaling("rowwise", "", std::nullopt, "e9m0"); });
  EXPECT_TRUE(mentions(m, "scale") && mentions(m, "'e9m0'")) << m;
  m = refusal([] {
    BlockScaling spec = defaultBlockScaling(BlockScalingKind::MX);
    spec.squareBlocks = true;
    validateBlockScaling(spec);
  });
  EXPECT_TRUE(mentions(m, "squareBlocks") && mentions(m, "'mx'")) << m;
  m = refusal([] {
    BlockScaling spec = defaultBlockScaling(BlockScalingKind::NVFP4);
    spec.rounding = RoundingMode::TowardZero;
    validateBlockScaling(spec);
  });
  EXPECT_TRUE(mentions(m, "rounding") && mentions(m, "'toward-zero'")) << m;
  // A matrix the spans cannot hold.
  std::vector<float> small(10);
  m = refusal([&] {
    quantizeBlocks(small, small, 3, 4, 4, BlockAxis::Row,
                   defaultBlockScaling(BlockScalingKind::MX));
  });
  EXPECT_TRUE(mentions(m, "[3, 4]") && mentions(m, "12")) << m;
  m = refusal([&] {
    quantizeBlocks(small, small, 2, 4, 3, BlockAxis::Row,
                   defaultBlockScaling(BlockScalingKind::MX));
  });
  EXPECT_TRUE(mentions(m, "row stride 3")) << m;
}

// Two specs quantize alike when every field that decides a quantized value agrees: a copy does,
// and changing any one of the recipe, element, block size, scale format, block shape or rounding
// mode does not.
TEST(BlockScalingNames, SpecsAreTheSameOnlyWhenEveryFieldAgrees) {
  const BlockScaling nvfp4 = parseBlockScaling("nvfp4");
  EXPECT_TRUE(sameBlockScaling(nvfp4, parseBlockScaling("nvfp4")));
  std::vector<BlockScaling> others(6, nvfp4);
  others[0].kind = BlockScalingKind::MX;
  others[1].element = parseBlockScaling("mx", "fp8-e4m3").element;
  others[2].blockSize = 32;
  others[3].scale = ScaleFormat::E8M0;
  others[4].squareBlocks = true;
  others[5].rounding = RoundingMode::Stochastic;
  for (std::size_t i = 0; i < others.size(); ++i)
    EXPECT_FALSE(sameBlockScaling(nvfp4, others[i])) << "field " << i;
}

}  // namespace
}  // namespace paritylab::numerics
