#include "core/nn/fp64_residual_layers.h"

#include <cmath>
#include <stdexcept>

#include "core/nn/fp64_layer_impl.h"

namespace paritylab::nn {

using fp64::Array;
using fp64::ConstArray;

namespace {

// Values per channel of an [N, C, H, W] or [N, C] tensor in one item.
std::size_t planeOf(const Shape& s) {
  return s.rank == 4 ? std::size_t(s[2]) * s[3] : 1;
}

}  // namespace

Fp64BatchNorm::Fp64BatchNorm(int channels, bool fusedRelu, double momentum, double eps,
                             const Ids& ids)
    : channels_(channels),
      relu_(fusedRelu),
      momentum_(momentum),
      eps_(eps),
      ids_(ids),
      mean_(std::size_t(channels)),
      invStd_(std::size_t(channels)) {}

std::vector<int> Fp64BatchNorm::paramIds() const {
  return {ids_.weight, ids_.bias, ids_.runningMean, ids_.runningVar};
}

void Fp64BatchNorm::normalize(const DoubleTensor& x, bool relu, Fp64Params& params) {
  if (x.shape[1] != channels_) throw std::logic_error("the fp64 reference: batch norm's channels");
  x_ = &x;
  const int n = x.shape[0];
  const std::size_t plane = planeOf(x.shape);
  const double count = double(n) * double(plane);
  const double* gamma = params.value(ids_.weight);
  const double* beta = params.value(ids_.bias);
  double* runningMean = params.value(ids_.runningMean);
  double* runningVar = params.value(ids_.runningVar);
  y_.resize(x.shape);
  for (int c = 0; c < channels_; ++c) {
    const auto planeAt = [&](int i) {
      return ConstArray(x.data() + (std::size_t(i) * channels_ + c) * plane, Eigen::Index(plane));
    };
    double sum = 0.0;
    for (int i = 0; i < n; ++i) sum += planeAt(i).sum();
    const double mean = sum / count;
    double squares = 0.0;
    for (int i = 0; i < n; ++i) squares += (planeAt(i) - mean).square().sum();
    const double variance = squares / count;  // biased: the one it normalises with
    runningMean[c] = (1.0 - momentum_) * runningMean[c] + momentum_ * mean;
    runningVar[c] =
        (1.0 - momentum_) * runningVar[c] + momentum_ * variance * count / (count - 1.0);
    const double inv = 1.0 / std::sqrt(variance + eps_);
    mean_[std::size_t(c)] = mean;
    invStd_[std::size_t(c)] = inv;
    for (int i = 0; i < n; ++i) {
      Array y(y_.data() + (std::size_t(i) * channels_ + c) * plane, Eigen::Index(plane));
      y = (planeAt(i) - mean) * (gamma[c] * inv) + beta[c];
      if (relu) y = y.max(0.0);
    }
  }
}

const DoubleTensor& Fp64BatchNorm::forward(const DoubleTensor& x, Fp64Params& params) {
  normalize(x, relu_, params);
  return y_;
}

const DoubleTensor& Fp64BatchNorm::forwardAddRelu(const DoubleTensor& x,
                                                  const DoubleTensor& residual,
                                                  Fp64Params& params) {
  normalize(x, false, params);
  Array y(y_.data(), Eigen::Index(y_.size()));
  y = (y + ConstArray(residual.data(), Eigen::Index(residual.size()))).max(0.0);
  return y_;
}

const DoubleTensor& Fp64BatchNorm::backward(const DoubleTensor& dy, Fp64Params& params) {
  return backwardOf(dy, relu_, params);
}

const DoubleTensor& Fp64BatchNorm::backwardUnmasked(const DoubleTensor& dy, Fp64Params& params) {
  return backwardOf(dy, false, params);
}

const DoubleTensor& Fp64BatchNorm::backwardOf(const DoubleTensor& dy, bool masked,
                                              Fp64Params& params) {
  const DoubleTensor& x = *x_;
  const int n = x.shape[0];
  const std::size_t plane = planeOf(x.shape);
  const double count = double(n) * double(plane);
  const double* gamma = params.value(ids_.weight);
  double* dgamma = params.grad(ids_.weight);
  double* dbeta = params.grad(ids_.bias);
  if (needInputGrad_) dx_.resize(x.shape);
  // g: dy where the output is positive (with the ReLU), else dy; xhat = (x - mean) inv.
  // dgamma = sum g xhat, dbeta = sum g, dx = gamma inv (g - mean(g) - xhat mean(g xhat)).
  for (int c = 0; c < channels_; ++c) {
    const double mean = mean_[std::size_t(c)], inv = invStd_[std::size_t(c)];
    const auto at = [&](int i) { return (std::size_t(i) * channels_ + c) * plane; };
    const auto gradient = [&](int i) {
      const ConstArray g(dy.data() + at(i), Eigen::Index(plane));
      const ConstArray y(y_.data() + at(i), Eigen::Index(plane));
      if (!masked) return Eigen::ArrayXd(g);
      return Eigen::ArrayXd((y > 0.0).select(g, 0.0));
    };
    const auto xhat = [&](int i) {
      return ((ConstArray(x.data() + at(i), Eigen::Index(plane)) - mean) * inv).eval();
    };
    double sumG = 0.0, sumGX = 0.0;
    for (int i = 0; i < n; ++i) {
      const Eigen::ArrayXd g = gradient(i);
      sumG += g.sum();
      sumGX += (g * xhat(i)).sum();
    }
    dgamma[c] = sumGX;
    dbeta[c] = sumG;
    if (!needInputGrad_) continue;
    for (int i = 0; i < n; ++i)
      Array(dx_.data() + at(i), Eigen::Index(plane)) =
          gamma[c] * inv * (gradient(i) - sumG / count - xhat(i) * (sumGX / count));
  }
  return dx_;
}

Fp64BasicBlock::Fp64BasicBlock(std::unique_ptr<Fp64Sequential> mainPath,
                               std::unique_ptr<Fp64BatchNorm> bn2,
                               std::unique_ptr<Fp64Sequential> projection)
    : main_(std::move(mainPath)), bn2_(std::move(bn2)), projection_(std::move(projection)) {}

std::vector<int> Fp64BasicBlock::paramIds() const {
  std::vector<int> ids = main_->paramIds();
  for (const std::vector<int>& more :
       {bn2_->paramIds(), projection_ ? projection_->paramIds() : std::vector<int>{}})
    ids.insert(ids.end(), more.begin(), more.end());
  return ids;
}

void Fp64BasicBlock::sites(Fp64Sites& into) const {
  main_->sites(into);
  if (projection_) projection_->sites(into);
}

void Fp64BasicBlock::setNeedInputGrad(bool need) {
  needInputGrad_ = need;
  main_->setNeedInputGrad(need);
  if (projection_) projection_->setNeedInputGrad(need);
}

const DoubleTensor& Fp64BasicBlock::forward(const DoubleTensor& x, Fp64Params& params) {
  x_ = &x;
  const DoubleTensor& h = main_->forward(x, params);
  const DoubleTensor& shortcut = projection_ ? projection_->forward(x, params) : x;
  y_ = &bn2_->forwardAddRelu(h, shortcut, params);
  return *y_;
}

const DoubleTensor& Fp64BasicBlock::backward(const DoubleTensor& dy, Fp64Params& params) {
  // The block's gradient counts where its output is positive; both branches take it so.
  masked_.resize(dy.shape);
  const ConstArray y(y_->data(), Eigen::Index(y_->size()));
  Array(masked_.data(), Eigen::Index(masked_.size())) =
      (y > 0.0).select(ConstArray(dy.data(), Eigen::Index(dy.size())), 0.0);
  const DoubleTensor& dMain = main_->backward(bn2_->backwardUnmasked(masked_, params), params);
  const DoubleTensor* dShortcut = projection_ ? &projection_->backward(masked_, params) : &masked_;
  if (!needInputGrad_) return dx_;
  dx_.resize(x_->shape);
  Array(dx_.data(), Eigen::Index(dx_.size())) =
      ConstArray(dMain.data(), Eigen::Index(dMain.size())) +
      ConstArray(dShortcut->data(), Eigen::Index(dShortcut->size()));
  return dx_;
}

}  // namespace paritylab::nn
