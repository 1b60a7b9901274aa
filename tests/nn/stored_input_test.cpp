// A layer learns whether its input went through the store step
// (StepContext::inputStoredAs), which lets a conv under gpu-amp-* read its bf16-stored input as
// the already rounded operand it is. Sequential must say so only for inputs it stored itself (or
// that its own input was), never for a model's input, and restore the caller's value afterwards.
// That reading it as rounded changes no bit is pinned by resnet18_pinned_steps_test (gpu-amp-bf16)
// for convolutions, and below for a linear layer (a transformer's projections and MLP).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/backends/precision_policy.h"
#include "core/nn/gemm.h"
#include "core/nn/linear.h"
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

struct LinearPass {
  std::vector<float> y, dx, dw, db;
  bool operator==(const LinearPass&) const = default;
};

// One forward and backward of a linear layer under gpu-amp-bf16 on input x, told (or not) that x
// went through the store step as bf16.
LinearPass linearPass(const Tensor& x, bool toldStored) {
  testing::Fixture f;
  f.policy = backends::presetPolicy("gpu-amp-bf16");
  Linear layer(f.builder, "fc", 24, 10);
  f.params.finalize(false);
  RandomStream rng(7);
  layer.init(f.params, rng);
  StepContext ctx = f.ctx();
  ctx.inputStoredAs = toldStored ? &*f.policy.storage.activations : nullptr;
  const Tensor& y = layer.forward(x, ctx);
  LinearPass out;
  out.y.assign(y.data(), y.data() + y.size());
  const Tensor dy = testing::randomTensor(y.shape(), 11);
  const Tensor& dx = layer.backward(dy, ctx);
  out.dx.assign(dx.data(), dx.data() + dx.size());
  const float* dw = f.params.grad(layer.weightId());
  out.dw.assign(dw, dw + f.params.info(layer.weightId()).size);
  const float* db = f.params.grad(layer.biasId());
  out.db.assign(db, db + f.params.info(layer.biasId()).size);
  return out;
}

TEST(StoredInput, ALinearLayerReadsItsStoredInputAsItIsWithTheBitsOfRoundingIt) {
  ASSERT_TRUE(backends::presetPolicy("gpu-amp-bf16").storage.activations.has_value());
  Tensor x = testing::randomTensor({3, 5, 24}, 5);
  const LinearPass raw = linearPass(x, false);
  // As the store step leaves it: bf16 values.
  storeTensor(backends::presetPolicy("gpu-amp-bf16").storage.activations, x.data(), x.size());
  const LinearPass rounded = linearPass(x, false);
  EXPECT_EQ(rounded, raw) << "the products round x to bf16 themselves: the same bits";
  EXPECT_EQ(linearPass(x, true), rounded)
      << "told that x was stored as bf16, the products read it as it is: the same bits";
}

TEST(StoredInput, ALinearLayerToldItsInputWasStoredDoesNotRoundItAgain) {
  // An input that was not in fact stored, said to be: the forward product reads its fp32 values
  // as they are, so the output differs from the one that rounds them (the claim is what decides).
  const Tensor x = testing::randomTensor({3, 5, 24}, 5);
  EXPECT_NE(linearPass(x, true).y, linearPass(x, false).y);
}

}  // namespace
}  // namespace paritylab::nn
