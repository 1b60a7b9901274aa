#pragma once
// torch.nn.Flatten: [N, ...] -> [N, prod(...)]. Same memory order, so a copy of the values.

#include "core/nn/layer.h"

namespace paritylab::nn {

class Flatten : public Layer {
 public:
  Shape outputShape(const Shape& in) const override { return {in[0], int(in.itemSize())}; }
  Tensor& forward(const Tensor& x, StepContext& /*ctx*/) override {
    inShape_ = x.shape();
    y_.resize(outputShape(x.shape()));
    std::copy(x.data(), x.data() + x.size(), y_.data());
    return y_;
  }
  const Tensor& backward(const Tensor& dy, StepContext& /*ctx*/) override {
    dx_.resize(inShape_);
    std::copy(dy.data(), dy.data() + dy.size(), dx_.data());
    return dx_;
  }

 private:
  Shape inShape_;
  Tensor y_, dx_;
};

}  // namespace paritylab::nn
