#include "core/nn/maxpool.h"

#include <cmath>
#include <stdexcept>

namespace paritylab::nn {

Shape MaxPool2d::outputShape(const Shape& in) const {
  if (in.rank != 4 || in[2] < kernel_ || in[3] < kernel_)
    throw std::invalid_argument("MaxPool2d: expected [N, C, H, W] input of at least the kernel");
  return {in[0], in[1], in[2] / kernel_, in[3] / kernel_};
}

Tensor& MaxPool2d::forward(const Tensor& x, StepContext& /*ctx*/) {
  inShape_ = x.shape();
  const Shape out = outputShape(x.shape());
  y_.resize(out);
  argmax_.resize(out.numel());
  const int h = x.dim(2), w = x.dim(3), oh = out[2], ow = out[3];
  const std::size_t planes = std::size_t(out[0]) * out[1];
  for (std::size_t p = 0; p < planes; ++p) {
    const float* src = x.data() + p * std::size_t(h) * w;
    float* dst = y_.data() + p * std::size_t(oh) * ow;
    std::int32_t* arg = argmax_.data() + p * std::size_t(oh) * ow;
    if (kernel_ == 2) {  // the hot case: two rows at a time, branch-light
      for (int oy = 0; oy < oh; ++oy) {
        const float* r0 = src + std::size_t(2 * oy) * w;
        const float* r1 = r0 + w;
        for (int ox = 0; ox < ow; ++ox) {
          const int c = 2 * ox;
          // First maximum in window order (r0[c], r0[c+1], r1[c], r1[c+1]); NaN wins.
          float best = r0[c];
          int idx = 2 * oy * w + c;
          // Branch-free: compare/select (random data defeats branch prediction).
          auto take = [&best, &idx](float v, int at) {
            const bool t = (v > best) | ((v != v) & (best == best));
            best = t ? v : best;
            idx = t ? at : idx;
          };
          take(r0[c + 1], idx + 1);
          take(r1[c], 2 * oy * w + c + w);
          take(r1[c + 1], 2 * oy * w + c + w + 1);
          dst[oy * ow + ox] = best;
          arg[oy * ow + ox] = idx;
        }
      }
      continue;
    }
    for (int oy = 0; oy < oh; ++oy)
      for (int ox = 0; ox < ow; ++ox) {
        int best = (oy * kernel_) * w + ox * kernel_;
        float bestValue = src[best];
        for (int ky = 0; ky < kernel_; ++ky)
          for (int kx = 0; kx < kernel_; ++kx) {
            const int idx = (oy * kernel_ + ky) * w + ox * kernel_ + kx;
            const float v = src[idx];
            // NaN propagates like torch: a NaN is taken as the maximum.
            if (v > bestValue || (std::isnan(v) && !std::isnan(bestValue))) {
              bestValue = v;
              best = idx;
            }
          }
        dst[oy * ow + ox] = bestValue;
        arg[oy * ow + ox] = best;
      }
  }
  return y_;
}

const Tensor& MaxPool2d::backward(const Tensor& dy, StepContext& /*ctx*/) {
  dx_.resize(inShape_);
  dx_.setZero();
  const std::size_t inPlane = std::size_t(inShape_[2]) * inShape_[3];
  const std::size_t outPlane = std::size_t(dy.dim(2)) * dy.dim(3);
  const std::size_t planes = std::size_t(dy.dim(0)) * dy.dim(1);
  for (std::size_t p = 0; p < planes; ++p) {
    float* dst = dx_.data() + p * inPlane;
    const float* src = dy.data() + p * outPlane;
    const std::int32_t* arg = argmax_.data() + p * outPlane;
    for (std::size_t i = 0; i < outPlane; ++i) dst[arg[i]] += src[i];
  }
  return dx_;
}

}  // namespace paritylab::nn
