#include "core/nn/layer_norm.h"

#include <cmath>
#include <stdexcept>

namespace paritylab::nn {

LayerNorm::LayerNorm(ModelBuilder& builder, const std::string& name, int features, double eps)
    : features_(features), eps_(eps), statisticsXray_(xrayLayerName(name) + ".stats") {
  weight_ = builder.addParam(name + ".weight", {features});
  bias_ = builder.addParam(name + ".bias", {features});
  site_ = builder.nextSite++;
}

Shape LayerNorm::outputShape(const Shape& in) const {
  if (in.rank < 2 || in[in.rank - 1] != features_)
    throw std::invalid_argument("LayerNorm: input's last dimension is " +
                                std::to_string(in.rank > 0 ? in[in.rank - 1] : 0) + ", expected " +
                                std::to_string(features_));
  return in;
}

void LayerNorm::init(ParamStore& params, RandomStream& /*rng*/) {
  std::fill_n(params.master(weight_), features_, 1.0f);
  std::fill_n(params.master(bias_), features_, 0.0f);
}

Tensor& LayerNorm::forward(const Tensor& x, StepContext& ctx) {
  x_ = &x;
  y_.resize(outputShape(x.shape()));
  const std::size_t c = std::size_t(features_);
  const std::size_t rows = x.size() / c;
  mean_.resize(rows);
  invStd_.resize(rows);
  const float* w = ctx.params->value(weight_);
  const float* b = ctx.params->value(bias_);
  const auto& held = ctx.policy->elementwise.layerNormStatistics;
  for (std::size_t r = 0; r < rows; ++r) {
    const float* in = x.data() + r * c;
    float* out = y_.data() + r * c;
    double sum = 0.0;
    for (std::size_t i = 0; i < c; ++i) sum += in[i];
    float mean = float(sum / double(c));
    ctx.holdIn(held, &mean, 1, site_, r * 3, &statisticsXray_, "mean");
    double sq = 0.0;
    for (std::size_t i = 0; i < c; ++i) {
      const double d = double(in[i]) - double(mean);
      sq += d * d;
    }
    float invStd = float(1.0 / std::sqrt(sq / double(c) + eps_));
    if (held || ctx.xray) {  // the variance, then 1 / sqrt(variance + eps), each held
      auto variance = float(sq / double(c));
      ctx.holdIn(held, &variance, 1, site_, r * 3 + 1, &statisticsXray_, "variance");
      if (held) invStd = float(1.0 / std::sqrt(double(variance) + eps_));
      float heldInvStd = invStd;
      ctx.holdIn(held, &heldInvStd, 1, site_, r * 3 + 2, &statisticsXray_, "rstd");
      if (held) invStd = heldInvStd;
    }
    mean_[r] = mean;
    invStd_[r] = invStd;
    for (std::size_t i = 0; i < c; ++i) out[i] = (in[i] - mean) * invStd * w[i] + b[i];
  }
  return y_;
}

const Tensor& LayerNorm::backward(const Tensor& dy, StepContext& ctx) {
  const Tensor& x = *x_;
  const std::size_t c = std::size_t(features_);
  const std::size_t rows = x.size() / c;
  const float* w = ctx.params->value(weight_);
  if (needInputGrad_) dx_.resize(x.shape());
  // Per row, with xhat = (x - mean) / std and g = dy * weight:
  // dx = (g - mean(g) - xhat * mean(g * xhat)) / std. The weight's and bias's gradients summed
  // over the batch, or over each replica shard of it.
  ctx.forEachGradientShard(
      rows, x.dim(0), [&](std::size_t first, std::size_t count, const ParamGradients& grads) {
        float* dw = grads(weight_);
        float* db = grads(bias_);
        std::fill_n(dw, c, 0.0f);
        std::fill_n(db, c, 0.0f);
        for (std::size_t r = first; r < first + count; ++r) {
          const float* in = x.data() + r * c;
          const float* g = dy.data() + r * c;
          const float mean = mean_[r], inv = invStd_[r];
          double sumG = 0.0, sumGx = 0.0;
          for (std::size_t i = 0; i < c; ++i) {
            const float xhat = (in[i] - mean) * inv;
            dw[i] += g[i] * xhat;
            db[i] += g[i];
            const float gw = g[i] * w[i];
            sumG += gw;
            sumGx += double(gw) * xhat;
          }
          if (!needInputGrad_) continue;
          const float meanG = float(sumG / double(c)), meanGx = float(sumGx / double(c));
          float* out = dx_.data() + r * c;
          for (std::size_t i = 0; i < c; ++i) {
            const float xhat = (in[i] - mean) * inv;
            out[i] = (g[i] * w[i] - meanG - xhat * meanGx) * inv;
          }
        }
        ctx.storeGradient(dw, c, site_);
        ctx.storeGradient(db, c, site_);
      });
  if (needInputGrad_) ctx.storeGradient(dx_.data(), dx_.size(), site_);
  return dx_;
}

}  // namespace paritylab::nn
