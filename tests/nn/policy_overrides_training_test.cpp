// A policy's per-layer overrides in training: the named layers' chosen products, and only they,
// are computed by the override, every call site of the model is named as overrides name it, and a
// pattern that names no layer stops the run before it starts.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/backends/precision_policy.h"
#include "core/nn/model.h"
#include "core/nn/optimizer.h"
#include "core/nn/site_policies.h"
#include "core/nn/training_session.h"
#include "nn_test_support.h"

namespace paritylab::nn {
namespace {

using nlohmann::json;

const ModelSpec kSmallCnn{"small-cnn", 1, 12, 12, 4, 4, {}};

backends::PrecisionPolicy policy(const char* text) {
  return backends::policyFromJson(json::parse(text));
}

// The model's parameters after `steps` SGD steps under `p` on a fixed synthetic batch.
std::vector<float> trained(const backends::PrecisionPolicy& p, int steps,
                           TrainingSession** session = nullptr) {
  static std::unique_ptr<TrainingSession> kept;
  const data::Dataset set = testing::syntheticImages(16, 1, 12, 4, 5);
  kept = std::make_unique<TrainingSession>(kSmallCnn, p, 11);
  auto opt = makeOptimizer(OptimizerConfig{});
  const auto ranges = kept->model().params.weightRanges(false);
  for (int s = 0; s < steps; ++s)
    kept->step(set.images.data(), set.labels.data(), 16, std::uint64_t(s), *opt, 1e-2, ranges, 0.0);
  if (session) *session = kept.get();
  return kept->model().params.masterData();
}

TEST(PolicyOverridesTraining, ConvolutionsOverriddenToTf32TrainBitForBitAsGpuTf32) {
  // gpu-tf32 is cpu-fp32 with TF32 convolutions: the same model, reached by an override.
  const std::vector<float> preset = trained(backends::presetPolicy("gpu-tf32"), 3);
  EXPECT_EQ(trained(policy(R"({"preset": "cpu-fp32",
                               "overrides": [{"layers": "conv*", "policy": "gpu-tf32"}]})"),
                    3),
            preset);
  // A preset gives its products for each layer's own kind: "*" changes only the convolutions.
  EXPECT_EQ(trained(policy(R"({"preset": "cpu-fp32",
                               "overrides": [{"layers": "*", "policy": "gpu-tf32"}]})"),
                    3),
            preset);
  EXPECT_NE(trained(backends::presetPolicy("cpu-fp32"), 3), preset);
}

TEST(PolicyOverridesTraining, OnlyTheOverriddenProductChangesTheFirstStep) {
  // After one step every weight is the fp32 run's except the one whose gradient product rounds:
  // the last layer's weight gradient is computed from bf16 operands; its data gradient (what the
  // layers below receive) and its bias gradient (no product) are fp32 as before.
  TrainingSession* session = nullptr;
  const std::vector<float> fp32 = trained(backends::presetPolicy("cpu-fp32"), 1);
  const std::vector<float> over =
      trained(policy(R"({"overrides": [{"layers": "last", "products": "wgrad",
                                "policy": {"operands": "bf16"}}]})"),
              1, &session);
  const ParamStore& params = session->model().params;
  int changed = 0;
  for (const ParamInfo& info : params.infos()) {
    const auto from = fp32.begin() + std::ptrdiff_t(info.offset);
    const bool same = std::equal(from, from + std::ptrdiff_t(info.size),
                                 over.begin() + std::ptrdiff_t(info.offset));
    EXPECT_EQ(same, info.name != "fc2.weight") << info.name;
    changed += same ? 0 : 1;
  }
  EXPECT_EQ(changed, 1);
}

std::map<std::string, std::string> operandFormats(TrainingSession& s) {
  std::map<std::string, std::string> formats;  // "conv1.fwd input" -> "bf16"
  for (const XrayRecord& r : s.takeXray()) formats[r.site + " " + r.operand] = r.format;
  return formats;
}

TEST(PolicyOverridesTraining, Fp8WithTheFirstAndLastLayersInBf16RoundsEachLayerAsItsOverrideSays) {
  const backends::PrecisionPolicy p = policy(R"({"preset": "fp8-e4m3",
      "overrides": [{"layers": "first|last", "policy": "gpu-amp-bf16"}]})");
  const data::Dataset set = testing::syntheticImages(16, 1, 12, 4, 5);
  TrainingSession s(kSmallCnn, p, 11);
  s.enableXray(1);
  auto opt = makeOptimizer(OptimizerConfig{});
  s.step(set.images.data(), set.labels.data(), 16, 0, *opt, 1e-2,
         s.model().params.weightRanges(false), 0.0);
  const auto formats = operandFormats(s);
  EXPECT_EQ(formats.at("conv1.fwd input"), "bf16");
  EXPECT_EQ(formats.at("conv1.wgrad grad"), "bf16");
  EXPECT_EQ(formats.at("fc2.fwd weight"), "bf16");
  EXPECT_EQ(formats.at("fc2.dgrad grad"), "bf16");
  EXPECT_EQ(formats.at("conv2.fwd input"), "fp8-e4m3");
  EXPECT_EQ(formats.at("fc1.wgrad grad"), "fp8-e5m2");
  // The preset's own fp32 output where it decides; autocast's bf16 output where the override does.
  EXPECT_EQ(formats.at("fc1.fwd output"), "fp32");
  EXPECT_EQ(formats.at("fc2.fwd output"), "bf16");
}

TEST(PolicyOverridesTraining, EveryProductLayerIsNamedInOrderWithItsPlace) {
  const std::unique_ptr<Model> cnn = makeModel(kSmallCnn);
  std::vector<std::string> names;
  for (const backends::LayerPlace& l : productLayers(*cnn))
    names.push_back(std::string(l.name) + (l.first ? " first" : "") + (l.last ? " last" : ""));
  EXPECT_EQ(names, (std::vector<std::string>{"conv1 first", "conv2", "fc1", "fc2 last"}));

  ModelSpec gpt;
  gpt.name = "gpt";
  gpt.numClasses = 11;
  gpt.gpt = {1, 2, 8, 4, true};
  const std::unique_ptr<Model> lm = makeModel(gpt);
  names.clear();
  for (const backends::LayerPlace& l : productLayers(*lm))
    names.push_back(std::string(l.name) + (l.first ? " first" : "") + (l.last ? " last" : "") +
                    (l.kind == backends::LayerKind::Attention ? " attention" : ""));
  EXPECT_EQ(names, (std::vector<std::string>{"h0.attn.qkv first", "h0.attn.proj",
                                             "h0.attn.qk attention", "h0.attn.pv attention",
                                             "h0.mlp.fc", "h0.mlp.proj", "lm_head last"}));
}

TEST(PolicyOverridesTraining, APatternThatNamesNoLayerStopsTheRunBeforeItStarts) {
  const backends::PrecisionPolicy p =
      policy(R"({"overrides": [{"layers": "fc3", "policy": "gpu-amp-bf16"}]})");
  try {
    TrainingSession s(kSmallCnn, p, 1);
    FAIL() << "a session was built";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'fc3' names no layer of model 'small-cnn'"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace paritylab::nn
