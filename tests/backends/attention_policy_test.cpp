// Attention's own products in a precision policy: presets, gemmFor and the JSON of policies
// stored before the field existed.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/backends/precision_policy.h"

namespace {

using namespace paritylab::backends;
using nlohmann::json;

json productJson(const PrecisionPolicy& p, const char* kind) {
  return policyToJson(p).at(kind);
}

TEST(AttentionPolicy, EveryPresetButTheScaledRecipesRoundsAttentionAsItsLinearProducts) {
  for (const auto& p : presetPolicies()) {
    // fp8 and the block-scaled recipes run only te.Linear's GEMMs scaled (attention in bf16).
    if (p.fp8.enabled || p.linear.forward.blockScaled()) continue;
    EXPECT_EQ(productJson(p, "attention"), productJson(p, "linear")) << p.name;
  }
  // Transformer Engine's fp8 runs te.Linear's GEMMs in fp8 and attention in the bf16 autocast.
  const PrecisionPolicy fp8 = presetPolicy("fp8-e4m3");
  for (Product product : {Product::Forward, Product::BackwardData, Product::BackwardWeight}) {
    const GemmPolicy& g = fp8.gemmFor(LayerKind::Attention, product);
    ASSERT_TRUE(g.operands && g.output);
    EXPECT_EQ(g.operands->format.name, "bf16");
    EXPECT_EQ(g.output->format.name, "bf16");
    EXPECT_FALSE(g.operandsB);
  }
  EXPECT_EQ(fp8.linear.forward.operands->format.name, "fp8-e4m3");
  EXPECT_EQ(presetPolicy("gpu-amp-bf16").attention.forward.operands->format.name, "bf16");
  EXPECT_EQ(presetPolicy("tpu-bf16").attention.backwardWeight.operands->format.name, "bf16");
  EXPECT_FALSE(presetPolicy("gpu-tf32").attention.forward.operands);  // matmuls stay fp32
}

TEST(AttentionPolicy, GemmForPicksTheAttentionProducts) {
  PrecisionPolicy p;
  p.attention.forward.passes = MultiPass::Bf16x3;
  p.attention.backwardData.passes = MultiPass::Bf16x6;
  p.attention.backwardWeight.accumulationChunk = 7;
  EXPECT_EQ(p.gemmFor(LayerKind::Attention, Product::Forward).passes, MultiPass::Bf16x3);
  EXPECT_EQ(p.gemmFor(LayerKind::Attention, Product::BackwardData).passes, MultiPass::Bf16x6);
  EXPECT_EQ(p.gemmFor(LayerKind::Attention, Product::BackwardWeight).accumulationChunk, 7);
  EXPECT_EQ(p.gemmFor(LayerKind::Linear, Product::Forward).passes, MultiPass::None);
  EXPECT_EQ(p.gemmFor(LayerKind::Conv, Product::Forward).passes, MultiPass::None);
}

// A policy stored before attention had its own products meant attention = its linear products;
// it must keep meaning that when read back.
TEST(AttentionPolicy, PolicyWithoutAttentionReadsItAsItsLinearProducts) {
  for (const auto& preset : presetPolicies()) {
    json stored = policyToJson(preset);
    stored.erase("attention");
    const PrecisionPolicy older = policyFromJson(stored);
    EXPECT_EQ(productJson(older, "attention"), productJson(preset, "linear")) << preset.name;
  }
  const PrecisionPolicy custom = policyFromJson(
      json::parse(R"({"name": "mine", "linear": {"forward": {"operands": "bf16"}}, "conv": {}})"));
  ASSERT_TRUE(custom.attention.forward.operands);
  EXPECT_EQ(custom.attention.forward.operands->format.name, "bf16");
  EXPECT_FALSE(custom.attention.backwardData.operands);
}

// Adjusting a preset field by field keeps the preset's attention products, also where they differ
// from its linear ones (fp8's and the block-scaled recipes' bf16 attention).
TEST(AttentionPolicy, AnAdjustedPresetKeepsItsOwnAttention) {
  for (const auto& preset : presetPolicies()) {
    const PrecisionPolicy adjusted = policyFromJson(json{{"preset", preset.name}, {"replicas", 2}});
    EXPECT_EQ(productJson(adjusted, "attention"), productJson(preset, "attention")) << preset.name;
  }
  const PrecisionPolicy linearOnly = policyFromJson(
      json::parse(R"({"preset": "fp8-e4m3", "linear": {"forward": {"operands": "bf16"}}})"));
  EXPECT_EQ(linearOnly.attention.forward.operands->format.name, "bf16");
  EXPECT_EQ(linearOnly.attention.backwardData.operands->format.name, "bf16");
}

TEST(AttentionPolicy, AttentionFieldIsReadAndWrittenApartFromLinear) {
  const PrecisionPolicy p = policyFromJson(json::parse(
      R"({"preset": "gpu-amp-bf16", "attention": {"forward": {"operands": null, "output": null},
          "backwardData": {"operands": null, "output": null}}})"));
  EXPECT_EQ(p.linear.forward.operands->format.name, "bf16");
  EXPECT_FALSE(p.attention.forward.operands);
  EXPECT_FALSE(p.attention.forward.output);
  EXPECT_FALSE(p.attention.backwardData.operands);
  EXPECT_EQ(p.attention.backwardWeight.operands->format.name, "bf16");  // the preset's, untouched
  EXPECT_EQ(policyToJson(policyFromJson(policyToJson(p))), policyToJson(p));
  EXPECT_THROW(policyFromJson(json::parse(R"({"attention": {"forward": {"operands": "bf17"}}})")),
               std::invalid_argument);
}

}  // namespace
