#include "core/nn/batchnorm.h"

#include <Eigen/Core>
#include <cmath>
#include <stdexcept>

#include "core/nn/reductions.h"

namespace paritylab::nn {

BatchNorm::BatchNorm(ModelBuilder& builder, const std::string& name, int channels, bool fusedRelu,
                     double momentum, double eps)
    : channels_(channels), relu_(fusedRelu), momentum_(momentum), eps_(eps) {
  weight_ = builder.addParam(name + ".weight", {channels});
  bias_ = builder.addParam(name + ".bias", {channels});
  runningMean_ = builder.addParam(name + ".running_mean", {channels}, ParamKind::Buffer);
  runningVar_ = builder.addParam(name + ".running_var", {channels}, ParamKind::Buffer);
  site_ = builder.nextSite++;
  mean_.resize(std::size_t(channels));
  invStd_.resize(std::size_t(channels));
}

Shape BatchNorm::outputShape(const Shape& in) const {
  if ((in.rank != 2 && in.rank != 4) || in[1] != channels_)
    throw std::invalid_argument("BatchNorm: expected [N, " + std::to_string(channels_) +
                                "(, H, W)] input");
  return in;
}

void BatchNorm::init(ParamStore& params, RandomStream& /*rng*/) {
  std::fill_n(params.master(weight_), channels_, 1.0f);
  std::fill_n(params.master(bias_), channels_, 0.0f);
  std::fill_n(params.master(runningMean_), channels_, 0.0f);
  std::fill_n(params.master(runningVar_), channels_, 1.0f);
}

void BatchNorm::computeStatistics(const Tensor& x, StepContext& ctx) {
  x_ = &x;
  trainedForward_ = ctx.training;
  const int n = x.batch();
  const std::size_t plane = x.shape().rank == 4 ? std::size_t(x.dim(2)) * x.dim(3) : 1;
  const double count = double(n) * double(plane);
  // Statistics narrower than fp32 when the policy keeps them in the activation format.
  const auto& statsFormat = ctx.policy->batchNormStatsFp32 ? std::optional<numerics::RoundingSpec>{}
                                                           : ctx.policy->storage.activations;
  if (ctx.training) {
    if (n * plane < 2)
      throw std::invalid_argument("BatchNorm: training needs more than one value per channel");
    for (int c = 0; c < channels_; ++c) {
      double sum = 0.0;
      for (int i = 0; i < n; ++i)
        sum += sumOf(x.data() + (std::size_t(i) * channels_ + c) * plane, plane);
      const float mean = float(sum / count);
      double sq = 0.0;
      for (int i = 0; i < n; ++i)
        sq += sumSquaredDeviation(x.data() + (std::size_t(i) * channels_ + c) * plane, plane, mean);
      mean_[std::size_t(c)] = mean;
      invStd_[std::size_t(c)] = float(sq / count);  // biased variance for now
    }
    storeTensor(statsFormat, mean_.data(), mean_.size());
    storeTensor(statsFormat, invStd_.data(), invStd_.size());
    if (ctx.replica == 0) {
      float* rm = ctx.params->master(runningMean_);
      float* rv = ctx.params->master(runningVar_);
      const float m = float(momentum_);
      const float unbias = float(count / (count - 1.0));
      for (int c = 0; c < channels_; ++c) {
        rm[c] = (1.0f - m) * rm[c] + m * mean_[std::size_t(c)];
        rv[c] = (1.0f - m) * rv[c] + m * (invStd_[std::size_t(c)] * unbias);
      }
      storeTensor(statsFormat, rm, std::size_t(channels_));
      storeTensor(statsFormat, rv, std::size_t(channels_));
    }
    for (int c = 0; c < channels_; ++c)
      invStd_[std::size_t(c)] = 1.0f / std::sqrt(invStd_[std::size_t(c)] + float(eps_));
  } else {
    const float* rm = ctx.params->master(runningMean_);
    const float* rv = ctx.params->master(runningVar_);
    for (int c = 0; c < channels_; ++c) {
      mean_[std::size_t(c)] = rm[c];
      invStd_[std::size_t(c)] = 1.0f / std::sqrt(rv[c] + float(eps_));
    }
  }
}

void BatchNorm::normalize(const Tensor& x, const float* residual, bool relu, Tensor& out,
                          StepContext& ctx, const std::optional<numerics::RoundingSpec>& stored) {
  const int n = x.batch();
  const std::size_t plane = x.shape().rank == 4 ? std::size_t(x.dim(2)) * x.dim(3) : 1;
  const float* gamma = ctx.params->value(weight_);
  const float* beta = ctx.params->value(bias_);
  out.resize(x.shape());
  for (int i = 0; i < n; ++i)
    for (int c = 0; c < channels_; ++c) {
      const std::size_t off = (std::size_t(i) * channels_ + c) * plane;
      const float scale = gamma[c] * invStd_[std::size_t(c)];
      const float shift = beta[c];
      const float mean = mean_[std::size_t(c)];
      Eigen::Map<const Eigen::ArrayXf> in(x.data() + off, Eigen::Index(plane));
      Eigen::Map<Eigen::ArrayXf> y(out.data() + off, Eigen::Index(plane));
      if (residual && stored) {  // bn(x) through the store step, then + residual, then the ReLU
        plane_.resize(plane);
        Eigen::Map<Eigen::ArrayXf> t(plane_.data(), Eigen::Index(plane));
        t = (in - mean) * scale + shift;
        storeTensor(stored, plane_.data(), plane);
        Eigen::Map<const Eigen::ArrayXf> r(residual + off, Eigen::Index(plane));
        y = (t + r).max(0.0f);
      } else if (residual) {  // bn(x) as a float, + residual, the ReLU: forward()'s operations
        Eigen::Map<const Eigen::ArrayXf> r(residual + off, Eigen::Index(plane));
        y = (((in - mean) * scale + shift) + r).max(0.0f);
      } else if (relu) {
        y = ((in - mean) * scale + shift).max(0.0f);
      } else {
        y = (in - mean) * scale + shift;
      }
    }
}

Tensor& BatchNorm::forward(const Tensor& x, StepContext& ctx) {
  computeStatistics(x, ctx);
  normalize(x, nullptr, relu_, y_, ctx);
  return y_;
}

void BatchNorm::forwardAddRelu(const Tensor& x, const Tensor& residual, Tensor& out,
                               StepContext& ctx,
                               const std::optional<numerics::RoundingSpec>& stored) {
  if (stored && stored->mode == numerics::RoundingMode::Stochastic)
    throw std::logic_error("BatchNorm::forwardAddRelu: stochastic storage draws over the tensor");
  computeStatistics(x, ctx);
  normalize(x, residual.data(), true, out, ctx, stored);
}

const Tensor& BatchNorm::backward(const Tensor& dy, StepContext& ctx) {
  // With the fused ReLU, the incoming gradient counts only where the output was not clamped:
  // masked on the fly (no staging pass). With unrounded activations, where bn(x) > 0 recomputed
  // from x with normalize's operations (the same mask, one stream fewer than reading y); else
  // from the stored y.
  if (relu_ && !ctx.policy->storage.activations) return backwardMasked(dy, nullptr, true, ctx);
  return backwardMasked(dy, relu_ ? y_.data() : nullptr, false, ctx);
}

const Tensor& BatchNorm::backwardThroughRelu(const Tensor& dy, const Tensor& reluOutput,
                                             StepContext& ctx) {
  return backwardMasked(dy, reluOutput.data(), false, ctx);
}

const Tensor& BatchNorm::backwardMasked(const Tensor& dy, const float* relu, bool reluOfSelf,
                                        StepContext& ctx) {
  const Tensor& x = *x_;
  const int n = x.batch();
  const std::size_t plane = x.shape().rank == 4 ? std::size_t(x.dim(2)) * x.dim(3) : 1;
  const float count = float(double(n) * double(plane));
  const float* gamma = ctx.params->value(weight_);
  const float* beta = ctx.params->value(bias_);
  float* dgamma = ctx.params->grad(weight_);
  float* dbeta = ctx.params->grad(bias_);
  dx_.resize(x.shape());
  const float* g = dy.data();
  for (int c = 0; c < channels_; ++c) {
    const float mean = mean_[std::size_t(c)];
    const float inv = invStd_[std::size_t(c)];
    double sumG = 0.0, sumGX = 0.0;
    for (int i = 0; i < n; ++i) {
      const std::size_t off = (std::size_t(i) * channels_ + c) * plane;
      float planeG = 0.0f, planeGX = 0.0f;
      if (reluOfSelf) {
        sumsOfReluGradient(g + off, x.data() + off, plane, mean, inv, gamma[c] * inv, beta[c],
                           planeG, planeGX);
      } else {
        sumsOfMaskedGradient(g + off, relu ? relu + off : nullptr, x.data() + off, plane, mean, inv,
                             planeG, planeGX);
      }
      sumG += planeG;
      sumGX += planeGX;
    }
    dgamma[c] = float(sumGX);
    dbeta[c] = float(sumG);
  }
  ctx.storeGradient(dgamma, std::size_t(channels_), site_);
  ctx.storeGradient(dbeta, std::size_t(channels_), site_);
  if (!needInputGrad_) return dx_;
  for (int c = 0; c < channels_; ++c) {
    const float mean = mean_[std::size_t(c)];
    const float inv = invStd_[std::size_t(c)];
    const float k = gamma[c] * inv;
    // Training: dx = gamma*inv * (g - mean(g) - xhat * mean(g*xhat)); eval: dx = gamma*inv * g.
    const float meanG = trainedForward_ ? float(double(dbeta[c]) / count) : 0.0f;
    const float meanGX = trainedForward_ ? float(double(dgamma[c]) / count) : 0.0f;
    for (int i = 0; i < n; ++i) {
      const std::size_t off = (std::size_t(i) * channels_ + c) * plane;
      Eigen::Map<const Eigen::ArrayXf> gi(g + off, Eigen::Index(plane));
      Eigen::Map<const Eigen::ArrayXf> xi(x.data() + off, Eigen::Index(plane));
      Eigen::Map<Eigen::ArrayXf> out(dx_.data() + off, Eigen::Index(plane));
      if (reluOfSelf) {  // normalize's output, as it computed it (scale k, shift beta)
        out = k * ((((xi - mean) * k + beta[c]) > 0.0f).select(gi, 0.0f) - meanG -
                   ((xi - mean) * inv) * meanGX);
      } else if (relu) {
        Eigen::Map<const Eigen::ArrayXf> yi(relu + off, Eigen::Index(plane));
        out = k * ((yi > 0.0f).select(gi, 0.0f) - meanG - ((xi - mean) * inv) * meanGX);
      } else {
        out = k * (gi - meanG - ((xi - mean) * inv) * meanGX);
      }
    }
  }
  ctx.storeGradient(dx_.data(), dx_.size(), site_);
  return dx_;
}

}  // namespace paritylab::nn
