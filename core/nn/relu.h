#pragma once
// torch.nn.ReLU: y = max(x, 0); dx = dy where y > 0.

#include "core/nn/layer.h"

namespace paritylab::nn {

class ReLU : public Layer {
 public:
  Shape outputShape(const Shape& in) const override { return in; }
  Tensor& forward(const Tensor& x, StepContext& ctx) override;
  const Tensor& backward(const Tensor& dy, StepContext& ctx) override;

 private:
  Tensor y_, dx_;
};

}  // namespace paritylab::nn
