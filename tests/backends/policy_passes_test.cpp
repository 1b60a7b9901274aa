// The policy JSON writes "passes" only for XLA's multi-pass bf16 products; a
// single-pass product (fp32, tf32, bf16 or fp8 operands alike) has none, where it used to say
// "bf16" even for fp32 policies. "none" and the old "bf16" both read back as one pass. A named
// accumulation model (Hopper's fp8 fast accumulation) sets the fields it stands for.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/backends/precision_policy.h"

namespace {

using namespace paritylab::backends;
using nlohmann::json;

TEST(PolicyJsonPasses, WrittenOnlyForMultiPassProducts) {
  for (const PrecisionPolicy& p : presetPolicies()) {
    const json j = policyToJson(p);
    for (const auto& [kind, products] :
         {std::pair{"linear", &p.linear}, std::pair{"conv", &p.conv}})
      for (const auto& [product, gemm] : {std::pair{"forward", &products->forward},
                                          std::pair{"backwardData", &products->backwardData},
                                          std::pair{"backwardWeight", &products->backwardWeight}}) {
        const json& written = j.at(kind).at(product);
        if (gemm->passes == MultiPass::None)
          EXPECT_FALSE(written.contains("passes")) << p.name << " " << kind << "." << product;
        else
          EXPECT_EQ(written.at("passes"), gemm->passes == MultiPass::Bf16x3 ? "bf16x3" : "bf16x6")
              << p.name;
      }
  }
  EXPECT_FALSE(
      policyToJson(presetPolicy("cpu-fp32")).at("linear").at("forward").contains("passes"));
  EXPECT_FALSE(policyToJson(presetPolicy("gpu-tf32")).at("conv").at("forward").contains("passes"));
  EXPECT_EQ(policyToJson(presetPolicy("tpu-bf16x6")).at("conv").at("forward").at("passes"),
            "bf16x6");
}

TEST(PolicyJsonPasses, NoneAndTheOldBf16SpellingReadAsOnePass) {
  for (const char* onePass : {"none", "bf16"}) {
    const PrecisionPolicy p = policyFromJson(
        json{{"preset", "tpu-bf16x3"}, {"linear", {{"forward", {{"passes", onePass}}}}}});
    EXPECT_EQ(p.linear.forward.passes, MultiPass::None) << onePass;
    EXPECT_EQ(p.linear.backwardData.passes, MultiPass::Bf16x3);
  }
  try {
    policyFromJson(json{{"linear", {{"forward", {{"passes", "bf16x2"}}}}}});
    FAIL() << "bf16x2 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("linear.forward.passes"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("expected none, bf16x3 or bf16x6"), std::string::npos)
        << e.what();
  }
}

}  // namespace

TEST(PolicyJsonAccumulation, TheHopperFastAccumulationModelSetsItsFieldsAndIsWrittenOut) {
  const PrecisionPolicy p = policyFromJson(json::parse(
      R"({"preset": "fp8-e4m3", "linear": {"forward": {"accumulationModel": "hopper-fp8-fast"}}})"));
  const GemmPolicy& g = p.linear.forward;
  EXPECT_EQ(g.accumulationChunk, 128);
  ASSERT_TRUE(g.accumulation);
  EXPECT_EQ(g.accumulation->format.name, "e8m13");
  EXPECT_EQ(g.accumulation->mode, paritylab::numerics::RoundingMode::TowardZero);
  EXPECT_TRUE(g.fp32Promotion);
  // The operands the preset gave are kept: the model changes the accumulation only.
  ASSERT_TRUE(g.operands);
  EXPECT_EQ(g.operands->format.name, "fp8-e4m3");
  const json written = policyToJson(p);
  EXPECT_EQ(written["linear"]["forward"]["fp32Promotion"], true);
  EXPECT_EQ(policyToJson(policyFromJson(written)), written);
  // Fields beside the model adjust it.
  EXPECT_EQ(policyFromJson(json::parse(R"({"linear": {"forward": {
                "accumulationModel": "hopper-fp8-fast", "accumulationChunk": 32}}})"))
                .linear.forward.accumulationChunk,
            32);
  try {
    policyFromJson(json::parse(R"({"linear": {"forward": {"accumulationModel": "h100"}}})"));
    FAIL() << "an unknown accumulation model was read";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("linear.forward.accumulationModel"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("hopper-fp8-fast"), std::string::npos);
  }
}
