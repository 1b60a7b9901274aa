#include "core/nn/relu.h"

namespace paritylab::nn {

Tensor& ReLU::forward(const Tensor& x, StepContext& /*ctx*/) {
  y_.resize(x.shape());
  y_.array() = x.array().max(0.0f);
  return y_;
}

const Tensor& ReLU::backward(const Tensor& dy, StepContext& /*ctx*/) {
  dx_.resize(dy.shape());
  dx_.array() = (y_.array() > 0.0f).select(dy.array(), 0.0f);
  return dx_;
}

}  // namespace paritylab::nn
