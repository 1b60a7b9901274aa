// The X-ray hook at the one GEMM entry. A product's operands are measured as
// the device is handed them (fp8 scales, loss scaling) against the format they are rounded to;
// every product site of a model is named after its layer; measuring changes no result.
#include "core/nn/gemm_xray.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <string>

#include "core/nn/gemm.h"
#include "core/nn/trainer.h"
#include "core/nn/training_session.h"
#include "nn_test_support.h"
#include "pinned_steps.h"

namespace paritylab::nn {
namespace {

using testing::syntheticImages;

backends::GemmPolicy operandPolicy(const char* format) {
  backends::GemmPolicy p;
  numerics::RoundingSpec spec;
  spec.format = *numerics::parseFormat(format);
  p.operands = spec;
  return p;
}

TEST(GemmXrayHook, MeasuresScaledOperandsAgainstTheirFormatAndTheOutput) {
  // A [2,3] x B [3,2] with fp16 operands. A holds 1e-8 (below half of fp16's min subnormal 2^-24:
  // flushed) and 1e-6 (an fp16 subnormal); B is scaled by 4 before rounding (as fp8 scales are),
  // so 20000 becomes 80000 > 65504: overflow.
  const std::vector<float> a = {1e-8f, 1e-6f, 1.0f, 2.0f, 0.0f, 3.0f};
  const std::vector<float> b = {20000.0f, 1.0f, 0.5f, 0.25f, 1.0f, 1.0f};
  std::vector<float> c(4, 0.0f);
  GemmWorkspace ws;
  GemmXraySlot slot;
  GemmExtras extras;
  extras.scaleB = 4.0f;
  extras.xray = &slot;
  gemm(operandPolicy("fp16"), Trans::No, Trans::No, 2, 2, 3, 1.0f, a.data(), 3, b.data(), 2, 0.0f,
       c.data(), 2, ws, extras);
  EXPECT_EQ(slot.formatA, "fp16");
  EXPECT_EQ(slot.formatB, "fp16");
  EXPECT_EQ(slot.formatOutput, "fp32");
  EXPECT_EQ(slot.a.count, 6);
  EXPECT_EQ(slot.a.zeros, 1);
  EXPECT_EQ(slot.a.flushed, 1);
  EXPECT_EQ(slot.a.subnormal, 1);
  EXPECT_EQ(slot.b.count, 6);
  EXPECT_EQ(slot.b.overflowed, 1);
  EXPECT_EQ(slot.b.amax, 80000.0);  // as the device sees it: scaled
  EXPECT_EQ(slot.output.count, 4);
  EXPECT_EQ(slot.output.nonFinite, 2);  // the fp16 inf reaches two outputs (one of them 0 * inf)

  // Off (no slot): the same product gives the same bits.
  std::vector<float> c2(4, 0.0f);
  extras.xray = nullptr;
  gemm(operandPolicy("fp16"), Trans::No, Trans::No, 2, 2, 3, 1.0f, a.data(), 3, b.data(), 2, 0.0f,
       c2.data(), 2, ws, extras);
  EXPECT_EQ(std::memcmp(c.data(), c2.data(), c.size() * sizeof(float)), 0);  // inf, NaN too
}

TEST(GemmXrayHook, OutputRoundingIsMeasuredBeforeAndAfter) {
  // bf16 output: 1 + 2^-8 (a tie) rounds to 1: SQNR and max relative error of the output.
  backends::GemmPolicy p;
  numerics::RoundingSpec bf16;
  bf16.format = *numerics::parseFormat("bf16");
  p.output = bf16;
  const std::vector<float> a = {1.0f + std::ldexp(1.0f, -8)}, b = {1.0f};
  std::vector<float> c(1, 0.0f);
  GemmWorkspace ws;
  GemmXraySlot slot;
  GemmExtras extras;
  extras.xray = &slot;
  gemm(p, Trans::No, Trans::No, 1, 1, 1, 1.0f, a.data(), 1, b.data(), 1, 0.0f, c.data(), 1, ws,
       extras);
  EXPECT_EQ(slot.formatOutput, "bf16");
  EXPECT_DOUBLE_EQ(slot.output.maxRelativeError, 1.0 / 257.0);
  EXPECT_EQ(slot.a.errorEnergy, 0.0);  // operands are not rounded by this policy
}

std::map<std::string, std::map<std::string, XrayRecord>> bySite(
    const std::vector<XrayRecord>& records) {
  std::map<std::string, std::map<std::string, XrayRecord>> out;
  for (const auto& r : records) out[r.site][r.operand] = r;
  return out;
}

TEST(GemmXrayHook, EverySiteOfSmallCnnIsNamedAndMeasuringChangesNothing) {
  const data::Dataset set = syntheticImages(16, 1, 8, 4, 1);
  const ModelSpec spec{"small-cnn", 1, 8, 8, 4, 4, {}};
  const auto seen = [](std::uint64_t step, const std::vector<XrayRecord>& records) {
    if (step == 1) {
      EXPECT_TRUE(records.empty());  // every 2 steps: 0 and 2
      return;
    }
    const auto sites = bySite(records);
    std::vector<std::string> names;
    for (const auto& [name, operands] : sites) names.push_back(name);
    // conv1 is the first layer: no data gradient. The loss's values are measured too.
    EXPECT_EQ(names,
              (std::vector<std::string>{"conv1.fwd", "conv1.wgrad", "conv2.dgrad", "conv2.fwd",
                                        "conv2.wgrad", "fc1.dgrad", "fc1.fwd", "fc1.wgrad",
                                        "fc2.dgrad", "fc2.fwd", "fc2.wgrad", "loss"}));
    const auto& wgrad = sites.at("conv2.wgrad");
    ASSERT_TRUE(wgrad.count("grad") && wgrad.count("input") && wgrad.count("output"));
    EXPECT_EQ(sites.at("conv2.dgrad").count("weight"), 1u);
    EXPECT_EQ(sites.at("fc1.fwd").at("weight").xray.count, 128 * 64 * 2 * 2);
    for (const auto& r : records) {
      EXPECT_EQ(r.format, "fp32") << r.site;
      EXPECT_EQ(r.xray.flushed, 0) << r.site;  // fp32: nothing flushed, no rounding error
      EXPECT_EQ(r.xray.errorEnergy, 0.0) << r.site;
    }
  };
  testing::expectXrayChangesNoBitOf(spec, backends::presetPolicy("cpu-fp32"), set, 16, 7, 3, seen);
}

TEST(GemmXrayHook, LossScaledGradientsAreMeasuredScaled) {
  // gpu-amp-fp16 multiplies the loss by 65536 before backward: the gradient operand the device
  // is handed is that much larger than under cpu-fp32 (same data, same init).
  const data::Dataset set = syntheticImages(16, 1, 8, 4, 1);
  const ModelSpec spec{"mlp", 1, 8, 8, 4, 4, {}};
  double amax[2] = {};
  int i = 0;
  for (const char* preset : {"cpu-fp32", "gpu-amp-fp16"}) {
    TrainingSession s(spec, backends::presetPolicy(preset), 7);
    s.enableXray(1);
    auto opt = makeOptimizer(OptimizerConfig{});
    s.step(set.images.data(), set.labels.data(), 16, 0, *opt, 1e-3,
           s.model().params.weightRanges(false), 0.0);
    for (const auto& r : s.takeXray())
      if (r.operand == "grad") amax[i] = std::max(amax[i], r.xray.amax);
    ++i;
  }
  ASSERT_GT(amax[0], 0.0);
  EXPECT_NEAR(amax[1] / amax[0], 65536.0, 65536.0 * 0.01);
}

}  // namespace
}  // namespace paritylab::nn
