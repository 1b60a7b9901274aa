#include "core/nn/maxpool.h"

#include <cmath>
#include <stdexcept>

namespace paritylab::nn {

Shape MaxPool2d::outputShape(const Shape& in) const {
  if (in.rank != 4 || in[2] < kernel_ || in[3] < kernel_)
    throw std::invalid_argument("MaxPool2d: expected [N, C, H, W] input of at least the kernel");
  return {in[0], in[1], in[2] / kernel_, in[3] / kernel_};
}

namespace {

// First maximum in window order; NaN wins (as torch). Compare/select, no branches: random data
// defeats branch prediction, and the 2x2 loop below vectorises.
inline void take(float v, std::uint8_t at, float& best, std::uint8_t& code) {
  const bool t = (v > best) | ((v != v) & (best == best));
  best = t ? v : best;
  code = t ? at : code;
}

// 2x2, stride 2: rows r0, r1 of the input -> one output row and its window codes.
void pool2x2Row(const float* r0, const float* r1, int ow, float* out, std::uint8_t* codes) {
  for (int ox = 0; ox < ow; ++ox) {
    float best = r0[2 * ox];
    std::uint8_t code = 0;
    take(r0[2 * ox + 1], 1, best, code);
    take(r1[2 * ox], 2, best, code);
    take(r1[2 * ox + 1], 3, best, code);
    out[ox] = best;
    codes[ox] = code;
  }
}

// The gradient of one output row back to its two input rows (every element written).
void unpool2x2Row(const float* g, const std::uint8_t* codes, int ow, float* d0, float* d1) {
  for (int ox = 0; ox < ow; ++ox) {
    const float v = g[ox];
    const std::uint8_t c = codes[ox];
    d0[2 * ox] = c == 0 ? v : 0.0f;
    d0[2 * ox + 1] = c == 1 ? v : 0.0f;
    d1[2 * ox] = c == 2 ? v : 0.0f;
    d1[2 * ox + 1] = c == 3 ? v : 0.0f;
  }
}

}  // namespace

MaxPool2d::MaxPool2d(int kernel) : kernel_(kernel) {
  if (kernel < 1 || kernel > 16)
    throw std::invalid_argument("MaxPool2d: kernel must be in [1, 16], got " +
                                std::to_string(kernel));
}

Tensor& MaxPool2d::forward(const Tensor& x, StepContext& /*ctx*/) {
  inShape_ = x.shape();
  const Shape out = outputShape(x.shape());
  y_.resize(out);
  window_.resize(out.numel());
  const int h = x.dim(2), w = x.dim(3), oh = out[2], ow = out[3];
  const std::size_t planes = std::size_t(out[0]) * out[1];
  for (std::size_t p = 0; p < planes; ++p) {
    const float* src = x.data() + p * std::size_t(h) * w;
    float* dst = y_.data() + p * std::size_t(oh) * ow;
    std::uint8_t* codes = window_.data() + p * std::size_t(oh) * ow;
    if (kernel_ == 2) {  // the hot case
      for (int oy = 0; oy < oh; ++oy) {
        const float* r0 = src + std::size_t(2 * oy) * w;
        pool2x2Row(r0, r0 + w, ow, dst + std::size_t(oy) * ow, codes + std::size_t(oy) * ow);
      }
      continue;
    }
    for (int oy = 0; oy < oh; ++oy) {
      for (int ox = 0; ox < ow; ++ox) {
        const float* corner = src + std::size_t(oy * kernel_) * w + std::size_t(ox * kernel_);
        float best = corner[0];
        std::uint8_t code = 0;
        for (int ky = 0; ky < kernel_; ++ky) {
          for (int kx = 0; kx < kernel_; ++kx) {
            if (ky | kx)
              take(corner[std::size_t(ky) * w + kx], std::uint8_t(ky * kernel_ + kx), best, code);
          }
        }
        dst[oy * ow + ox] = best;
        codes[oy * ow + ox] = code;
      }
    }
  }
  return y_;
}

const Tensor& MaxPool2d::backward(const Tensor& dy, StepContext& /*ctx*/) {
  dx_.resize(inShape_);
  const int h = inShape_[2], w = inShape_[3], oh = dy.dim(2), ow = dy.dim(3);
  const std::size_t inPlane = std::size_t(h) * w;
  const std::size_t outPlane = std::size_t(oh) * ow;
  const std::size_t planes = std::size_t(dy.dim(0)) * dy.dim(1);
  const bool covered = kernel_ == 2 && h == 2 * oh && w == 2 * ow;  // every input in one window
  if (!covered) dx_.setZero();
  for (std::size_t p = 0; p < planes; ++p) {
    float* dst = dx_.data() + p * inPlane;
    const float* g = dy.data() + p * outPlane;
    const std::uint8_t* codes = window_.data() + p * outPlane;
    if (kernel_ == 2) {
      for (int oy = 0; oy < oh; ++oy) {
        float* d0 = dst + std::size_t(2 * oy) * w;
        unpool2x2Row(g + std::size_t(oy) * ow, codes + std::size_t(oy) * ow, ow, d0, d0 + w);
      }
      continue;
    }
    for (int oy = 0; oy < oh; ++oy) {
      for (int ox = 0; ox < ow; ++ox) {
        const int c = codes[oy * ow + ox];
        const int y = oy * kernel_ + c / kernel_, x = ox * kernel_ + c % kernel_;
        dst[std::size_t(y) * w + x] += g[oy * ow + ox];
      }
    }
  }
  return dx_;
}

}  // namespace paritylab::nn
