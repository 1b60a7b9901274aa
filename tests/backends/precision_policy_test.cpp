// Backend presets, their descriptions, JSON adjustment and error messages.
#include "core/backends/precision_policy.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace {

using namespace paritylab::backends;
using nlohmann::json;

std::string policyErrorOf(const auto& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Presets, NamesInDisplayOrderWithEmulationDescriptions) {
  const std::vector<std::string> expected = {
      "cpu-fp32",   "gpu-tf32",   "gpu-amp-bf16", "gpu-amp-fp16", "tpu-bf16",
      "tpu-bf16x3", "tpu-bf16x6", "pure-bf16",    "fp8-e4m3",     "fp8-e4m3fnuz",
      "mxfp8",      "mxfp6",      "mxfp4",        "nvfp4"};
  EXPECT_EQ(presetNames(), expected);
  for (const auto& p : presetPolicies()) {
    EXPECT_FALSE(p.description.empty()) << p.name;
    if (p.name != "cpu-fp32") {
      EXPECT_EQ(p.description.rfind("Emulates", 0), 0u) << p.name;
    }
  }
}

// AMD MI300's fp8: the same hybrid recipe as fp8-e4m3 in the fnuz types (largest values 240 and
// 57344), which the delayed scales are computed against.
TEST(Presets, Fp8FnuzIsTheHybridRecipeInAmdsTypes) {
  const auto ocp = presetPolicy("fp8-e4m3");
  const auto fnuz = presetPolicy("fp8-e4m3fnuz");
  EXPECT_TRUE(fnuz.fp8.enabled);
  EXPECT_EQ(fnuz.fp8.amaxHistoryLength, ocp.fp8.amaxHistoryLength);
  ASSERT_TRUE(fnuz.linear.forward.operands && fnuz.linear.backwardWeight.operandsB);
  EXPECT_EQ(fnuz.linear.forward.operands->format.name, "fp8-e4m3fnuz");
  EXPECT_EQ(fnuz.linear.forward.operands->format.maxFinite(), 240.0);
  EXPECT_EQ(fnuz.linear.backwardWeight.operands->format.name, "fp8-e5m2fnuz");  // the gradient
  EXPECT_EQ(fnuz.linear.backwardWeight.operands->format.maxFinite(), 57344.0);
  EXPECT_EQ(fnuz.linear.backwardWeight.operandsB->format.name, "fp8-e4m3fnuz");
  EXPECT_EQ(fnuz.conv.backwardData.operandsB->format.name, "fp8-e5m2fnuz");
  EXPECT_EQ(fnuz.linear.forward.operands->overflow, paritylab::numerics::OverflowMode::Saturate);
  EXPECT_EQ(policyToJson(fnuz)["attention"], policyToJson(ocp)["attention"]);
  EXPECT_EQ(policyToJson(fnuz)["storage"], policyToJson(ocp)["storage"]);
}

TEST(Presets, WhereEachBackendRounds) {
  const auto cpu = presetPolicy("cpu-fp32");
  EXPECT_FALSE(cpu.conv.forward.operands);
  EXPECT_FALSE(cpu.linear.forward.operands);

  const auto tf32 = presetPolicy("gpu-tf32");
  ASSERT_TRUE(tf32.conv.backwardWeight.operands);
  EXPECT_EQ(tf32.conv.forward.operands->format.name, "tf32");
  EXPECT_EQ(tf32.conv.forward.operands->mode, paritylab::numerics::RoundingMode::NearestAway);
  EXPECT_FALSE(tf32.linear.forward.operands);  // torch.backends.cuda.matmul.allow_tf32 = False

  const auto tpu = presetPolicy("tpu-bf16");
  EXPECT_EQ(tpu.topology.replicas, 8);
  EXPECT_EQ(tpu.gemmFor(LayerKind::Linear, Product::BackwardData).operands->format.name, "bf16");
  EXPECT_EQ(presetPolicy("tpu-bf16x6").linear.forward.passes, MultiPass::Bf16x6);
  EXPECT_EQ(presetPolicy("tpu-bf16x3").conv.backwardWeight.passes, MultiPass::Bf16x3);

  const auto fp16 = presetPolicy("gpu-amp-fp16");
  EXPECT_EQ(fp16.lossScaling.kind, LossScalingKind::Dynamic);
  EXPECT_EQ(fp16.lossScaling.initialScale, 65536.0);
  EXPECT_EQ(fp16.lossScaling.growthInterval, 2000);
  EXPECT_EQ(fp16.conv.forward.output->format.name, "fp16");
  EXPECT_TRUE(fp16.storage.fp32MasterWeights);

  const auto pure = presetPolicy("pure-bf16");
  EXPECT_FALSE(pure.storage.fp32MasterWeights);
  EXPECT_EQ(pure.storage.optimizerState->format.name, "bf16");

  const auto fp8 = presetPolicy("fp8-e4m3");
  EXPECT_TRUE(fp8.fp8.enabled);
  EXPECT_EQ(fp8.fp8.amaxHistoryLength, 16);
  EXPECT_EQ(fp8.linear.forward.operands->format.name, "fp8-e4m3");
  EXPECT_EQ(fp8.linear.backwardData.operands->format.name, "fp8-e5m2");   // A = dY
  EXPECT_EQ(fp8.linear.backwardData.operandsB->format.name, "fp8-e4m3");  // B = W
  EXPECT_EQ(fp8.conv.backwardData.operandsB->format.name, "fp8-e5m2");    // B = dY
}

TEST(Presets, UnknownNameListsPresets) {
  const std::string msg = policyErrorOf([] { presetPolicy("tpu-fp64"); });
  EXPECT_NE(msg.find("'tpu-fp64'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("gpu-amp-bf16"), std::string::npos) << msg;
}

TEST(PolicyJson, EveryPresetRoundTrips) {
  for (const auto& p : presetPolicies()) {
    const json j = policyToJson(p);
    const auto back = policyFromJson(j);
    EXPECT_EQ(policyToJson(back), j) << p.name;
    EXPECT_EQ(policyFromJson(json::parse(j.dump())).name, p.name);
    EXPECT_EQ(policyToJson(policyFromJson(json(p.name))), j) << "by name: " << p.name;
  }
}

TEST(PolicyJson, PresetAdjustedFieldByField) {
  auto p = policyFromJson(json::parse(R"({"preset": "tpu-bf16", "replicas": 1})"));
  EXPECT_EQ(p.topology.replicas, 1);
  EXPECT_EQ(p.linear.forward.operands->format.name, "bf16");

  p = policyFromJson(json::parse(
      R"({"preset": "gpu-tf32",
          "conv": {"forward": {"operands": {"format": "bf16", "rounding": "nearest-even"}}}})"));
  EXPECT_EQ(p.conv.forward.operands->format.name, "bf16");
  EXPECT_EQ(p.conv.backwardData.operands->format.name, "tf32");  // untouched

  p = policyFromJson(json::parse(
      R"({"name": "mine", "linear": {"forward": {"operands": "e5m2", "accumulationChunk": 64,
          "accumulation": "fp16"}}, "storage": {"weights": null}})"));
  EXPECT_EQ(p.name, "mine");
  EXPECT_EQ(p.linear.forward.operands->format.mantissaBits, 2);
  EXPECT_EQ(p.linear.forward.accumulationChunk, 64);
  EXPECT_EQ(policyToJson(policyFromJson(policyToJson(p))), policyToJson(p));
}

// "addend" is written only where a product rounds its bias, so the JSON of a policy stored before
// the field existed reads back as it was: an autocast policy of an older database keeps its fp32
// bias, and resuming that study trains its remaining runs as its first ones.
TEST(PolicyJson, BiasCastIsWrittenOnlyWhereAProductRoundsIt) {
  const json amp = policyToJson(presetPolicy("gpu-amp-bf16"));
  EXPECT_EQ(amp.at("linear").at("forward").at("addend").at("format"), "bf16");
  EXPECT_EQ(amp.at("conv").at("forward").at("addend").at("format"), "bf16");
  EXPECT_FALSE(amp.at("linear").at("backwardData").contains("addend"));
  EXPECT_FALSE(policyToJson(presetPolicy("tpu-bf16")).at("conv").at("forward").contains("addend"));

  json stored = amp;
  for (const char* kind : {"linear", "conv"}) stored[kind]["forward"].erase("addend");
  const PrecisionPolicy older = policyFromJson(stored);
  EXPECT_FALSE(older.linear.forward.addend);
  EXPECT_FALSE(older.conv.forward.addend);
  EXPECT_EQ(policyToJson(older), stored);
}

TEST(PolicyJson, ErrorsNameFieldPathAndValue) {
  auto msg = policyErrorOf([] {
    policyFromJson(json::parse(R"({"preset":"gpu-tf32","conv":{"forward":{"operands":"bf17"}}})"));
  });
  EXPECT_NE(msg.find("conv.forward.operands"), std::string::npos) << msg;
  EXPECT_NE(msg.find("bf17"), std::string::npos) << msg;

  msg = policyErrorOf([] { policyFromJson(json::parse(R"({"replicas": 0})")); });
  EXPECT_NE(msg.find("'replicas'"), std::string::npos) << msg;

  msg = policyErrorOf([] { policyFromJson(json::parse(R"({"linear": {"fwd": {}}})")); });
  EXPECT_NE(msg.find("linear.fwd"), std::string::npos) << msg;

  msg = policyErrorOf(
      [] { policyFromJson(json::parse(R"({"lossScaling": {"kind": "sometimes"}})")); });
  EXPECT_NE(msg.find("lossScaling.kind"), std::string::npos) << msg;
  EXPECT_NE(msg.find("sometimes"), std::string::npos) << msg;

  msg = policyErrorOf([] {
    policyFromJson(json::parse(R"({"conv": {"forward": {"operands": {"format": "bf16",
        "rounding": "nearest-odd"}}}})"));
  });
  EXPECT_NE(msg.find("conv.forward.operands.rounding"), std::string::npos) << msg;

  msg = policyErrorOf([] { policyFromJson(json::parse(R"({"preset": "gpu-v100"})")); });
  EXPECT_NE(msg.find("gpu-v100"), std::string::npos) << msg;
}

}  // namespace

namespace paritylab::backends {
namespace {

// Block scaling in a policy file: a recipe name or an object; every product of a preset says its
// recipes back; refusals name the field and the value, and nothing is half-applied.
TEST(PolicyJson, BlockScalingIsReadWrittenAndRefusedByField) {
  const PrecisionPolicy p = policyFromJson(nlohmann::json::parse(
      R"({"preset": "gpu-amp-bf16", "linear": {"forward": {"scaling": "mx",
          "scalingB": {"recipe": "nvfp4", "square": true}, "hadamard": true}}})"));
  ASSERT_TRUE(p.linear.forward.scalingA && p.linear.forward.scalingB);
  EXPECT_EQ(p.linear.forward.scalingA->kind, numerics::BlockScalingKind::MX);
  EXPECT_EQ(p.linear.forward.scalingA->element.name, "fp8-e4m3");
  EXPECT_EQ(p.linear.forward.scalingA->blockSize, 32);
  EXPECT_EQ(p.linear.forward.scalingB->kind, numerics::BlockScalingKind::NVFP4);
  EXPECT_TRUE(p.linear.forward.scalingB->squareBlocks);
  EXPECT_TRUE(p.linear.forward.hadamard);
  EXPECT_FALSE(p.conv.forward.blockScaled());
  const PrecisionPolicy again = policyFromJson(policyToJson(p));
  EXPECT_EQ(policyToJson(again), policyToJson(p));

  const auto refused = [](const char* text) {
    return policyErrorOf([&] { policyFromJson(nlohmann::json::parse(text)); });
  };
  EXPECT_NE(
      refused(R"({"linear": {"forward": {"scaling": "mx9"}}})").find("linear.forward.scaling"),
      std::string::npos);
  EXPECT_NE(refused(R"({"linear": {"forward": {"scaling": {"recipe": "mx", "block": 0}}}})")
                .find("linear.forward.scaling.block"),
            std::string::npos);
  EXPECT_NE(refused(R"({"linear": {"forward": {"scaling": {"recipe": "nvfp4",
                "element": "fp8-e4m3"}}}})")
                .find("fp8-e4m3"),
            std::string::npos);
  EXPECT_NE(
      refused(R"({"linear": {"forward": {"scaling": {"element": "fp4-e2m1"}}}})").find("recipe"),
      std::string::npos);
  EXPECT_NE(refused(R"({"preset": "fp8-e4m3", "linear": {"forward": {"scaling": "mx"}}})")
                .find("fp8.enabled"),
            std::string::npos);
  EXPECT_NE(
      refused(R"({"linear": {"forward": {"scaling": "mx", "passes": "bf16x3"}}})").find("passes"),
      std::string::npos);
}

TEST(Presets, BlockScaledPresetsScaleEveryLinearAndConvProductAndKeepAttentionBf16) {
  for (const char* name : {"mxfp8", "mxfp6", "mxfp4", "nvfp4"}) {
    const PrecisionPolicy p = presetPolicy(name);
    for (LayerKind kind : {LayerKind::Linear, LayerKind::Conv})
      for (Product product : {Product::Forward, Product::BackwardData, Product::BackwardWeight}) {
        const GemmPolicy& g = p.gemmFor(kind, product);
        EXPECT_TRUE(g.scalingA && g.scalingB) << name;
        EXPECT_EQ(g.output->format.name, "bf16") << name;
      }
    EXPECT_FALSE(p.attention.forward.blockScaled()) << name;
    EXPECT_FALSE(p.sources.empty()) << name;
  }
  const PrecisionPolicy nv = presetPolicy("nvfp4");
  EXPECT_TRUE(nv.linear.forward.scalingB->squareBlocks);  // weights 16x16
  EXPECT_EQ(nv.linear.backwardData.scalingA->rounding, numerics::RoundingMode::Stochastic);
  EXPECT_TRUE(nv.linear.backwardWeight.hadamard);
  EXPECT_FALSE(nv.linear.forward.hadamard);
  EXPECT_EQ(presetPolicy("mxfp6").linear.forward.scalingA->element.name, "fp6-e3m2");
}

}  // namespace
}  // namespace paritylab::backends
