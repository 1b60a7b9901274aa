#pragma once
// torch.nn.GELU(approximate='tanh'), as GPT-2 and nanoGPT's MLP use it, elementwise on any shape:
// y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), computed in fp32 (the tanh kept for the
// backward).

#include "core/nn/layer.h"

namespace paritylab::nn {

class Gelu : public Layer {
 public:
  Shape outputShape(const Shape& in) const override { return in; }
  Tensor& forward(const Tensor& x, StepContext& ctx) override;
  const Tensor& backward(const Tensor& dy, StepContext& ctx) override;

 private:
  const Tensor* x_ = nullptr;
  Tensor y_, dx_;
  std::vector<float> tanh_;  // of the last forward, per element
};

}  // namespace paritylab::nn
