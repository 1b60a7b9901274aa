// A layer learns whether its input went through the store step
// (StepContext::inputStoredAs), which lets a conv under gpu-amp-* read its bf16-stored input as
// the already rounded operand it is. Sequential must say so only for inputs it stored itself (or
// that its own input was), never for a model's input, and restore the caller's value afterwards.
// That reading it as rounded changes no bit is pinned by resnet18_pinned_steps_test (gpu-amp-bf16).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/backends/precision_policy.h"
#include "core/nn/sequential.h"
#include "nn_test_support.h"

namespace paritylab::nn {
namespace {

// Passes its input through and records what it was told about it.
class Probe : public Layer {
 public:
  explicit Probe(std::vector<const numerics::RoundingSpec*>* seen) : seen_(seen) {}
  Shape outputShape(const Shape& in) const override { return in; }
  Tensor& forward(const Tensor& x, StepContext& ctx) override {
    seen_->push_back(ctx.inputStoredAs);
    y_ = x;
    return y_;
  }
  const Tensor& backward(const Tensor& dy, StepContext&) override { return dy; }

 private:
  std::vector<const numerics::RoundingSpec*>* seen_;
  Tensor y_;
};

// What each of three probes (outer[0], inner[0], inner[1] of outer = [probe, [probe, probe]]) was
// told about its input: the format's name, or "" for nothing.
std::vector<std::string> probe(const std::string& preset) {
  testing::Fixture f;
  f.policy = backends::presetPolicy(preset);
  std::vector<const numerics::RoundingSpec*> seen;
  Sequential outer(f.builder);
  outer.add<Probe>(&seen);
  auto& inner = outer.add<Sequential>(f.builder);
  inner.add<Probe>(&seen);
  inner.add<Probe>(&seen);
  StepContext ctx = f.ctx();
  outer.forward(testing::randomTensor({2, 3}, 1), ctx);
  EXPECT_EQ(ctx.inputStoredAs, nullptr) << preset << ": the caller's value is restored";
  std::vector<std::string> names;
  for (const auto* s : seen) names.push_back(s ? s->format.name : "");
  return names;
}

TEST(StoredInput, SequentialSaysWhichInputsWentThroughTheStoreStep) {
  // gpu-amp-bf16 stores activations as bf16: every input after the model's input was stored.
  EXPECT_EQ(probe("gpu-amp-bf16"), (std::vector<std::string>{"", "bf16", "bf16"}))
      << "a model's input is not known to be stored; the inner Sequential's input is the outer's "
         "first output";
  // cpu-fp32 and gpu-tf32 keep activations in fp32: nothing is stored, nothing is said.
  for (const char* preset : {"cpu-fp32", "gpu-tf32"})
    EXPECT_EQ(probe(preset), (std::vector<std::string>{"", "", ""})) << preset;
}

}  // namespace
}  // namespace paritylab::nn
