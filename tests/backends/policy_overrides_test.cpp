// Per-layer and per-product overrides: which layers a pattern names, which products an override
// replaces, how the JSON reads and writes them, and the refusals.
#include "core/backends/policy_overrides.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace {

using namespace paritylab::backends;
using nlohmann::json;

std::string errorOf(const auto& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

LayerPlace layer(std::string_view name, LayerKind kind = LayerKind::Linear, bool first = false,
                 bool last = false) {
  return {name, kind, first, last};
}

TEST(LayerPattern, NamesLayersByGlobAlternativesAndPlace) {
  EXPECT_TRUE(layerPatternMatches("conv1", layer("conv1")));
  EXPECT_FALSE(layerPatternMatches("conv1", layer("conv10")));
  EXPECT_FALSE(layerPatternMatches("conv1", layer("conv")));
  EXPECT_TRUE(layerPatternMatches("h*.attn.qkv", layer("h0.attn.qkv")));
  EXPECT_TRUE(layerPatternMatches("h*.attn.qkv", layer("h12.attn.qkv")));
  EXPECT_FALSE(layerPatternMatches("h*.attn.qkv", layer("h0.attn.proj")));
  EXPECT_TRUE(layerPatternMatches("*", layer("anything")));
  EXPECT_TRUE(layerPatternMatches("*.proj", layer("h1.mlp.proj")));
  EXPECT_TRUE(layerPatternMatches("h*.*.proj", layer("h1.mlp.proj")));
  EXPECT_FALSE(layerPatternMatches("h*.*.proj", layer("h1.mlp.fc")));
  EXPECT_TRUE(layerPatternMatches("conv1|fc2", layer("fc2")));
  EXPECT_TRUE(layerPatternMatches("first|last", layer("fc2", LayerKind::Linear, false, true)));
  EXPECT_TRUE(layerPatternMatches("first", layer("conv1", LayerKind::Conv, true)));
  EXPECT_FALSE(layerPatternMatches("first|last", layer("fc1")));
  // "first" is a place, not a name: a layer called "first" is matched by its place only.
  EXPECT_FALSE(layerPatternMatches("first", layer("first")));
}

TEST(PolicyOverrides, ReplaceOnlyTheSelectedProductsOfTheNamedLayers) {
  const PrecisionPolicy p = policyFromJson(json::parse(R"({
      "preset": "cpu-fp32",
      "overrides": [
        {"layers": "fc*", "products": "wgrad", "policy": {"operands": "bf16"}},
        {"layers": "last", "policy": "gpu-amp-bf16"}]})"));
  ASSERT_EQ(p.overrides.size(), 2u);
  const PrecisionPolicy amp = presetPolicy("gpu-amp-bf16");

  const ProductPolicy fc1 = productsFor(p, layer("fc1"));
  EXPECT_FALSE(fc1.forward.operands);
  EXPECT_FALSE(fc1.backwardData.operands);
  ASSERT_TRUE(fc1.backwardWeight.operands);
  EXPECT_EQ(fc1.backwardWeight.operands->format.name, "bf16");
  EXPECT_FALSE(fc1.backwardWeight.output);  // the written product starts from fp32

  // The later override wins: the last layer takes autocast's products, all three.
  const ProductPolicy fc2 = productsFor(p, layer("fc2", LayerKind::Linear, false, true));
  EXPECT_EQ(json(policyToJson(p)["overrides"][1]["linear"]), json(policyToJson(amp)["linear"]));
  ASSERT_TRUE(fc2.forward.output && fc2.backwardWeight.operands);
  EXPECT_EQ(fc2.forward.output->format.name, "bf16");

  // A convolution named by neither pattern keeps the policy's conv products.
  const ProductPolicy conv1 = productsFor(p, layer("conv1", LayerKind::Conv, true));
  EXPECT_FALSE(conv1.forward.operands || conv1.backwardWeight.operands);
  EXPECT_TRUE(overridden(p, layer("fc1")));
  EXPECT_FALSE(overridden(p, layer("conv1", LayerKind::Conv, true)));
}

TEST(PolicyOverrides, APresetGivesItsProductsForTheLayersKind) {
  // gpu-tf32 rounds convolutions to TF32 and leaves linear layers in fp32.
  const PrecisionPolicy p = policyFromJson(json::parse(
      R"({"preset": "cpu-fp32", "overrides": [{"layers": "*", "policy": "gpu-tf32"}]})"));
  EXPECT_TRUE(productsFor(p, layer("conv2", LayerKind::Conv)).forward.operands);
  EXPECT_FALSE(productsFor(p, layer("fc1", LayerKind::Linear)).forward.operands);
}

TEST(PolicyOverrides, SurviveTheJsonRoundTripWithTheirProductsSpelledOut) {
  const PrecisionPolicy p = policyFromJson(json::parse(R"({
      "preset": "fp8-e4m3",
      "overrides": [{"layers": "first|last", "products": "forward|dgrad",
                     "policy": "gpu-amp-bf16"}]})"));
  const json written = policyToJson(p);
  ASSERT_TRUE(written.contains("overrides"));
  EXPECT_EQ(written["overrides"][0]["products"], "forward|dgrad");
  EXPECT_EQ(written["overrides"][0]["preset"], "gpu-amp-bf16");
  const PrecisionPolicy back = policyFromJson(written);
  EXPECT_EQ(policyToJson(back), written);
  ASSERT_EQ(back.overrides.size(), 1u);
  EXPECT_FALSE(back.overrides[0].backwardWeight);
  // A policy without overrides writes none: what it wrote before overrides existed.
  EXPECT_FALSE(policyToJson(presetPolicy("tpu-bf16")).contains("overrides"));
}

TEST(PolicyOverrides, RefuseWhatCannotBeAppliedNamingTheField) {
  const auto refusal = [](const char* text) {
    return errorOf([&] { policyFromJson(json::parse(text)); });
  };
  EXPECT_NE(refusal(R"({"overrides": [{"policy": "gpu-tf32"}]})").find("overrides[0].layers"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"overrides": [{"layers": "fc1||fc2", "policy": "gpu-tf32"}]})")
                .find("overrides[0].layers"),
            std::string::npos);
  const std::string product =
      refusal(R"({"overrides": [{"layers": "fc1", "products": "wgard", "policy": "gpu-tf32"}]})");
  EXPECT_NE(product.find("overrides[0].products"), std::string::npos) << product;
  EXPECT_NE(product.find("'wgard'"), std::string::npos) << product;
  const std::string preset = refusal(R"({"overrides": [{"layers": "fc1", "policy": "gpu-tf33"}]})");
  EXPECT_NE(preset.find("overrides[0].policy"), std::string::npos) << preset;
  EXPECT_NE(preset.find("gpu-tf33"), std::string::npos) << preset;
  EXPECT_NE(refusal(R"({"overrides": [{"layers": "fc1"}]})").find("either"), std::string::npos);
  // fp8 products without their delayed scales would be a policy nobody runs.
  EXPECT_NE(
      refusal(R"({"overrides": [{"layers": "fc1", "policy": "fp8-e4m3"}]})").find("fp8.enabled"),
      std::string::npos);
  // Block scaling and delayed per-tensor scaling cannot both scale a product.
  const std::string both =
      refusal(R"({"preset": "fp8-e4m3", "overrides": [{"layers": "fc1", "policy": "mxfp8"}]})");
  EXPECT_NE(both.find("overrides[0].linear.forward"), std::string::npos) << both;
  EXPECT_NE(refusal(R"({"overrides": [{"layers": "fc1", "policy": {"operand": "bf16"}}]})")
                .find("overrides[0].policy.operand"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"overrides": {"layers": "fc1"}})").find("overrides"), std::string::npos);
}

TEST(PolicyOverrides, APatternThatNamesNoLayerIsRefusedWithTheLayersThereAre) {
  const PrecisionPolicy p = policyFromJson(json::parse(
      R"({"name": "mine", "overrides": [{"layers": "h*.atn.qkv", "policy": "gpu-tf32"}]})"));
  const std::vector<LayerPlace> layers = {layer("h0.attn.qkv", LayerKind::Linear, true),
                                          layer("h0.attn.qk", LayerKind::Attention),
                                          layer("lm_head", LayerKind::Linear, false, true)};
  const std::string e = errorOf([&] { checkOverridesMatch(p, layers, "gpt"); });
  EXPECT_NE(e.find("overrides[0].layers"), std::string::npos) << e;
  EXPECT_NE(e.find("'h*.atn.qkv'"), std::string::npos) << e;
  EXPECT_NE(e.find("h0.attn.qkv, h0.attn.qk, lm_head"), std::string::npos) << e;
  EXPECT_NO_THROW(checkOverridesMatch(
      policyFromJson(json::parse(R"({"overrides": [{"layers": "last", "policy": "gpu-tf32"}]})")),
      layers, "gpt"));
}

}  // namespace
