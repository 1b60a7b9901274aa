#include "core/nn/gelu.h"

#include <Eigen/Core>
#include <algorithm>

namespace paritylab::nn {

namespace {

constexpr float kSqrt2OverPi = 0.7978845608028654f;
constexpr float kCubic = 0.044715f;

// Elementwise work in chunks of 16 values held in aligned local arrays (the last one padded), so
// that every value goes through the same packet code. Over a whole array Eigen computes the values
// before the first aligned address with its scalar path, whose last bit can differ (exp; a sum of
// products the compiler may fuse): a run's bits would depend on where the allocator put a tensor.
constexpr std::size_t kChunk = 16;
using Chunk = Eigen::Array<float, kChunk, 1>;

template <typename Body>
void inChunks(std::size_t n, Body body) {
  for (std::size_t i = 0; i < n; i += kChunk) body(i, std::min(kChunk, n - i));
}

Chunk load(const float* from, std::size_t count) {
  Chunk c = Chunk::Zero();
  std::copy_n(from, count, c.data());
  return c;
}

// tanh(u) = sign(u) (1 - e) / (1 + e) with e = exp(-2|u|), through Eigen's vectorised exp (within
// about 1 ulp; its vectorised tanh needs EIGEN_FAST_MATH, which the build turns off). A libm tanhf
// per element was a third of a GPT step. Near u = 0 the result is within a few fp32 ulps of 1 in
// absolute terms, which is what GELU's (1 + t) and (1 - t^2) read.
// GCC 12 reports the AVX-512 intrinsics' own _mm512_undefined_ps inside Eigen's packet exp as
// uninitialised (a false positive of those headers); silenced here only.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
Chunk tanhOf(const Chunk& u) {
  const Chunk e = (-2.0f * u.abs()).exp();
  return (u < 0.0f).select(-(1.0f - e) / (1.0f + e), (1.0f - e) / (1.0f + e));
}
#pragma GCC diagnostic pop

}  // namespace

Tensor& Gelu::forward(const Tensor& x, StepContext& /*ctx*/) {
  x_ = &x;
  y_.resize(x.shape());
  tanh_.resize(x.size());
  inChunks(x.size(), [&](std::size_t i, std::size_t m) {
    const Chunk v = load(x.data() + i, m);
    const Chunk t = tanhOf(kSqrt2OverPi * (v + kCubic * v.cube()));
    const Chunk y = 0.5f * v * (1.0f + t);
    std::copy_n(t.data(), m, tanh_.data() + i);
    std::copy_n(y.data(), m, y_.data() + i);
  });
  return y_;
}

const Tensor& Gelu::backward(const Tensor& dy, StepContext& /*ctx*/) {
  const Tensor& x = *x_;
  dx_.resize(x.shape());
  // d/dx = 0.5 (1 + t) + 0.5 x (1 - t^2) sqrt(2/pi) (1 + 3 * 0.044715 x^2), t as in forward.
  inChunks(x.size(), [&](std::size_t i, std::size_t m) {
    const Chunk v = load(x.data() + i, m), t = load(tanh_.data() + i, m);
    const Chunk inner = kSqrt2OverPi * (1.0f + 3.0f * kCubic * v.square());
    const Chunk dx =
        load(dy.data() + i, m) * (0.5f * (1.0f + t) + 0.5f * v * (1.0f - t.square()) * inner);
    std::copy_n(dx.data(), m, dx_.data() + i);
  });
  return dx_;
}

}  // namespace paritylab::nn
