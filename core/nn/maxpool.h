#pragma once
// torch.nn.MaxPool2d(kernel, stride = kernel), no padding, floor mode: [N, C, H, W] ->
// [N, C, H/k, W/k]. Ties: the first maximum in row-major window order gets the gradient.

#include <cstdint>

#include "core/nn/layer.h"

namespace paritylab::nn {

class MaxPool2d : public Layer {
 public:
  explicit MaxPool2d(int kernel = 2);  // kernel in [1, 16]
  Shape outputShape(const Shape& in) const override;
  Tensor& forward(const Tensor& x, StepContext& ctx) override;
  const Tensor& backward(const Tensor& dy, StepContext& ctx) override;

  int kernel() const { return kernel_; }  // the window's side and the stride

 private:
  int kernel_;
  Shape inShape_;
  Tensor y_, dx_;
  // [N, C, outH, outW]: which element of its window each output took, ky * kernel + kx.
  std::vector<std::uint8_t> window_;
};

}  // namespace paritylab::nn
