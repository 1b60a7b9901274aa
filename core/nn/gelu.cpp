#include "core/nn/gelu.h"

#include <cmath>

namespace paritylab::nn {

namespace {

constexpr float kSqrt2OverPi = 0.7978845608028654f;
constexpr float kCubic = 0.044715f;

}  // namespace

Tensor& Gelu::forward(const Tensor& x, StepContext& /*ctx*/) {
  x_ = &x;
  y_.resize(x.shape());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const float v = x[i];
    const float t = std::tanh(kSqrt2OverPi * (v + kCubic * v * v * v));
    y_[i] = 0.5f * v * (1.0f + t);
  }
  return y_;
}

const Tensor& Gelu::backward(const Tensor& dy, StepContext& /*ctx*/) {
  const Tensor& x = *x_;
  dx_.resize(x.shape());
  // d/dx = 0.5 (1 + t) + 0.5 x (1 - t^2) sqrt(2/pi) (1 + 3 * 0.044715 x^2)
  for (std::size_t i = 0; i < x.size(); ++i) {
    const float v = x[i];
    const float t = std::tanh(kSqrt2OverPi * (v + kCubic * v * v * v));
    const float inner = kSqrt2OverPi * (1.0f + 3.0f * kCubic * v * v);
    dx_[i] = dy[i] * (0.5f * (1.0f + t) + 0.5f * v * (1.0f - t * t) * inner);
  }
  return dx_;
}

}  // namespace paritylab::nn
