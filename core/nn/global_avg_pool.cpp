#include "core/nn/global_avg_pool.h"

#include <stdexcept>

#include "core/nn/reductions.h"

namespace paritylab::nn {

Shape GlobalAvgPool::outputShape(const Shape& in) const {
  if (in.rank != 4) throw std::invalid_argument("GlobalAvgPool: expected [N, C, H, W] input");
  return {in[0], in[1]};
}

Tensor& GlobalAvgPool::forward(const Tensor& x, StepContext& /*ctx*/) {
  inShape_ = x.shape();
  y_.resize(outputShape(x.shape()));
  const std::size_t plane = std::size_t(x.dim(2)) * x.dim(3);
  for (std::size_t p = 0; p < y_.size(); ++p)
    y_[p] = sumOf(x.data() + p * plane, plane) / float(plane);
  return y_;
}

const Tensor& GlobalAvgPool::backward(const Tensor& dy, StepContext& ctx) {
  dx_.resize(inShape_);
  const std::size_t plane = std::size_t(inShape_[2]) * inShape_[3];
  for (std::size_t p = 0; p < dy.size(); ++p)
    std::fill_n(dx_.data() + p * plane, plane, dy[p] / float(plane));
  ctx.storeGradient(dx_.data(), dx_.size(), 0x20000);
  return dx_;
}

}  // namespace paritylab::nn
