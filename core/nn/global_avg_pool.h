#pragma once
// Global average pooling (torch.nn.AdaptiveAvgPool2d(1) + flatten): [N, C, H, W] -> [N, C].

#include "core/nn/layer.h"

namespace paritylab::nn {

class GlobalAvgPool : public Layer {
 public:
  Shape outputShape(const Shape& in) const override;
  Tensor& forward(const Tensor& x, StepContext& ctx) override;
  const Tensor& backward(const Tensor& dy, StepContext& ctx) override;

 private:
  Shape inShape_;
  Tensor y_, dx_;
};

}  // namespace paritylab::nn
