#include "core/nn/fp64_transformer_layers.h"

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include "core/nn/fp64_layer_impl.h"

namespace paritylab::nn {

using fp64::Array;
using fp64::ConstArray;

Fp64TokenPositionEmbedding::Fp64TokenPositionEmbedding(int vocab, int embd, int tokenWeight,
                                                       int positionWeight)
    : vocab_(vocab), embd_(embd), wte_(tokenWeight), wpe_(positionWeight) {}

const DoubleTensor& Fp64TokenPositionEmbedding::forward(const DoubleTensor& x, Fp64Params& params) {
  positions_ = x.shape[1];
  if (std::size_t(positions_) * std::size_t(embd_) > params.size(wpe_))
    throw std::invalid_argument("the fp64 reference: " + std::to_string(positions_) +
                                " positions, more than the position table has");
  const auto c = std::size_t(embd_);
  ids_.resize(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double v = x.values[i];
    if (!(v >= 0.0 && v < double(vocab_)) || v != std::floor(v))
      throw std::invalid_argument("the fp64 reference: token id " + std::to_string(v) + " at " +
                                  std::to_string(i) + " is not an integer in [0, " +
                                  std::to_string(vocab_) + ")");
    ids_[i] = std::size_t(v);
  }
  y_.resize(Shape{x.shape[0], positions_, embd_});
  const double* wte = params.value(wte_);
  const double* wpe = params.value(wpe_);
  for (std::size_t i = 0; i < ids_.size(); ++i)
    Array(y_.data() + i * c, Eigen::Index(c)) =
        ConstArray(wte + ids_[i] * c, Eigen::Index(c)) +
        ConstArray(wpe + (i % std::size_t(positions_)) * c, Eigen::Index(c));
  return y_;
}

const DoubleTensor& Fp64TokenPositionEmbedding::backward(const DoubleTensor& dy,
                                                         Fp64Params& params) {
  const auto c = std::size_t(embd_);
  double* dwte = params.grad(wte_);
  double* dwpe = params.grad(wpe_);
  std::fill_n(dwte, params.size(wte_), 0.0);
  std::fill_n(dwpe, params.size(wpe_), 0.0);
  for (std::size_t i = 0; i < ids_.size(); ++i) {
    const ConstArray g(dy.data() + i * c, Eigen::Index(c));
    Array(dwte + ids_[i] * c, Eigen::Index(c)) += g;
    Array(dwpe + (i % std::size_t(positions_)) * c, Eigen::Index(c)) += g;
  }
  return none_;
}

Fp64LayerNorm::Fp64LayerNorm(int features, double eps, int weight, int bias)
    : features_(features), eps_(eps), weight_(weight), bias_(bias) {}

const DoubleTensor& Fp64LayerNorm::forward(const DoubleTensor& x, Fp64Params& params) {
  x_ = &x;
  const auto c = std::size_t(features_);
  const std::size_t rows = x.size() / c;
  mean_.resize(rows);
  invStd_.resize(rows);
  y_.resize(x.shape);
  const ConstArray w(params.value(weight_), Eigen::Index(c));
  const ConstArray b(params.value(bias_), Eigen::Index(c));
  for (std::size_t r = 0; r < rows; ++r) {
    const ConstArray in(x.data() + r * c, Eigen::Index(c));
    const double mean = in.sum() / double(c);
    const double variance = (in - mean).square().sum() / double(c);
    const double inv = 1.0 / std::sqrt(variance + eps_);
    mean_[r] = mean;
    invStd_[r] = inv;
    Array(y_.data() + r * c, Eigen::Index(c)) = (in - mean) * inv * w + b;
  }
  return y_;
}

const DoubleTensor& Fp64LayerNorm::backward(const DoubleTensor& dy, Fp64Params& params) {
  const DoubleTensor& x = *x_;
  const auto c = std::size_t(features_);
  const std::size_t rows = x.size() / c;
  const ConstArray w(params.value(weight_), Eigen::Index(c));
  Array dw(params.grad(weight_), Eigen::Index(c)), db(params.grad(bias_), Eigen::Index(c));
  dw.setZero();
  db.setZero();
  if (needInputGrad_) dx_.resize(x.shape);
  // Per row, with xhat = (x - mean) / std and g = dy * weight:
  // dx = (g - mean(g) - xhat * mean(g * xhat)) / std.
  for (std::size_t r = 0; r < rows; ++r) {
    const ConstArray g(dy.data() + r * c, Eigen::Index(c));
    const Eigen::ArrayXd xhat =
        (ConstArray(x.data() + r * c, Eigen::Index(c)) - mean_[r]) * invStd_[r];
    dw += g * xhat;
    db += g;
    if (!needInputGrad_) continue;
    const Eigen::ArrayXd gw = g * w;
    const double meanG = gw.sum() / double(c), meanGx = (gw * xhat).sum() / double(c);
    Array(dx_.data() + r * c, Eigen::Index(c)) = (gw - meanG - xhat * meanGx) * invStd_[r];
  }
  return dx_;
}

namespace {

const double kGeluTanhScale = std::sqrt(2.0 / std::numbers::pi);
constexpr double kGeluCubic = 0.044715;

}  // namespace

const DoubleTensor& Fp64Gelu::forward(const DoubleTensor& x, Fp64Params& /*params*/) {
  x_ = &x;
  y_.resize(x.shape);
  tanh_.resize(x.size());
  const ConstArray v(x.data(), Eigen::Index(x.size()));
  Array t(tanh_.data(), Eigen::Index(x.size()));
  t = (kGeluTanhScale * (v + kGeluCubic * v.cube())).tanh();
  Array(y_.data(), Eigen::Index(y_.size())) = 0.5 * v * (1.0 + t);
  return y_;
}

const DoubleTensor& Fp64Gelu::backward(const DoubleTensor& dy, Fp64Params& /*params*/) {
  const ConstArray v(x_->data(), Eigen::Index(x_->size()));
  const ConstArray t(tanh_.data(), Eigen::Index(tanh_.size()));
  dx_.resize(x_->shape);
  // d/dx = 0.5 (1 + t) + 0.5 x (1 - t^2) sqrt(2/pi) (1 + 3 * 0.044715 x^2)
  Array(dx_.data(), Eigen::Index(dx_.size())) =
      ConstArray(dy.data(), Eigen::Index(dy.size())) *
      (0.5 * (1.0 + t) +
       0.5 * v * (1.0 - t.square()) * kGeluTanhScale * (1.0 + 3.0 * kGeluCubic * v.square()));
  return dx_;
}

}  // namespace paritylab::nn
