#include "core/nn/relu.h"

#include "core/nn/tensor_array.h"

namespace paritylab::nn {

Tensor& ReLU::forward(const Tensor& x, StepContext& /*ctx*/) {
  y_.resize(x.shape());
  asArray(y_) = asArray(x).max(0.0f);
  return y_;
}

const Tensor& ReLU::backward(const Tensor& dy, StepContext& /*ctx*/) {
  dx_.resize(dy.shape());
  asArray(dx_) = (asArray(y_) > 0.0f).select(asArray(dy), 0.0f);
  return dx_;
}

}  // namespace paritylab::nn
