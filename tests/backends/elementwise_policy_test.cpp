// The precision of what lies between the products (softmax, layer-norm statistics, loss, residual
// stream): what each preset says about it and why, and its JSON.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/backends/precision_policy.h"

namespace {

using namespace paritylab::backends;
using nlohmann::json;

bool allFp32(const ElementwisePolicy& e) {
  return !e.softmax && !e.layerNormStatistics && !e.loss && !e.residual;
}

// PyTorch's autocast lists softmax, log_softmax, layer_norm and cross_entropy among the ops that
// run in fp32; XLA's default precision and TF32 round only what the matrix units read.
TEST(ElementwisePolicy, AutocastTf32AndTpuPresetsKeepSoftmaxStatisticsLossAndResidualInFp32) {
  for (const char* name : {"cpu-fp32", "gpu-tf32", "gpu-amp-bf16", "gpu-amp-fp16", "tpu-bf16",
                           "tpu-bf16x3", "tpu-bf16x6", "fp8-e4m3"})
    EXPECT_TRUE(allFp32(presetPolicy(name).elementwise)) << name;
}

// model.to(torch.bfloat16) and torch_xla's XLA_USE_BF16 hold every tensor in bf16.
TEST(ElementwisePolicy, PureBf16HoldsSoftmaxStatisticsLossAndResidualInBf16) {
  const ElementwisePolicy e = presetPolicy("pure-bf16").elementwise;
  for (const auto* field : {&e.softmax, &e.layerNormStatistics, &e.loss, &e.residual}) {
    ASSERT_TRUE(*field);
    EXPECT_EQ((*field)->format.name, "bf16");
    EXPECT_EQ((*field)->mode, paritylab::numerics::RoundingMode::NearestEven);
  }
}

TEST(ElementwisePolicy, EveryPresetNamesWhereItsChoicesComeFrom) {
  for (const auto& p : presetPolicies()) {
    ASSERT_FALSE(p.sources.empty()) << p.name;
    for (const std::string& line : p.sources) EXPECT_GT(line.size(), 40u) << p.name;
  }
  const auto cites = [](const char* name, const std::string& what) {
    for (const std::string& line : presetPolicy(name).sources)
      if (line.find(what) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(cites("gpu-amp-bf16", "Autocast Op Reference"));
  EXPECT_TRUE(cites("pure-bf16", "XLA_USE_BF16"));
  EXPECT_TRUE(cites("fp8-e4m3", "DelayedScaling"));
  EXPECT_TRUE(cites("gpu-tf32", "allow_tf32"));
}

TEST(ElementwisePolicy, FieldsAndSourcesRoundTripThroughJson) {
  for (const auto& preset : presetPolicies()) {
    const json written = policyToJson(preset);
    EXPECT_EQ(policyToJson(policyFromJson(written)), written) << preset.name;
  }
  const PrecisionPolicy p = policyFromJson(json::parse(
      R"({"preset": "gpu-amp-bf16", "elementwise": {"softmax": "bf16",
          "loss": {"format": "fp16", "rounding": "toward-zero"}}})"));
  ASSERT_TRUE(p.elementwise.softmax && p.elementwise.loss);
  EXPECT_EQ(p.elementwise.softmax->format.name, "bf16");
  EXPECT_EQ(p.elementwise.loss->format.name, "fp16");
  EXPECT_EQ(p.elementwise.loss->mode, paritylab::numerics::RoundingMode::TowardZero);
  EXPECT_FALSE(p.elementwise.layerNormStatistics);
  EXPECT_FALSE(p.elementwise.residual);
  // An adjusted preset keeps its sources and says that it was adjusted.
  EXPECT_EQ(p.sources.size(), presetPolicy("gpu-amp-bf16").sources.size() + 1);
  EXPECT_NE(p.sources.back().find("Adjusted"), std::string::npos);
}

// A policy stored before the fields existed computed all four in fp32.
TEST(ElementwisePolicy, PolicyWithoutTheFieldsReadsThemAsFp32) {
  json stored = policyToJson(presetPolicy("pure-bf16"));
  stored.erase("elementwise");
  EXPECT_TRUE(allFp32(policyFromJson(stored).elementwise));
}

TEST(ElementwisePolicy, UnknownOrMalformedFieldIsRefusedByName) {
  const auto message = [](const char* text) {
    try {
      policyFromJson(json::parse(text));
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message(R"({"elementwise": {"softmx": "bf16"}})").find("elementwise.softmx"),
            std::string::npos);
  EXPECT_NE(message(R"({"elementwise": {"loss": "bf17"}})").find("elementwise.loss"),
            std::string::npos);
  EXPECT_NE(message(R"({"sources": "a line"})").find("sources"), std::string::npos);
  EXPECT_NE(message(R"({"sources": ["ok", 3]})").find("sources[1]"), std::string::npos);
}

}  // namespace
