#include "core/nn/fp64_conv_layers.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/nn/fp64_layer_impl.h"

namespace paritylab::nn {

using fp64::ConstMatrix;
using fp64::Matrix;

Fp64Conv2d::Fp64Conv2d(int site, const Geometry& geometry, int weight, int bias)
    : site_(site), g_(geometry), weight_(weight), bias_(bias) {}

std::vector<int> Fp64Conv2d::paramIds() const {
  if (bias_ < 0) return {weight_};
  return {weight_, bias_};
}

void Fp64Conv2d::sites(Fp64Sites& into) const {
  into.set(site_, &y_.values, &dx_.values);
}

void Fp64Conv2d::gather(const DoubleTensor& x, int n) {
  const int h = x.shape[2], w = x.shape[3], k = g_.kernel;
  const std::size_t plane = std::size_t(outH_) * outW_;
  const double* image = x.data() + std::size_t(n) * g_.in * h * w;
  for (int c = 0; c < g_.in; ++c)
    for (int ky = 0; ky < k; ++ky)
      for (int kx = 0; kx < k; ++kx) {
        double* row = columns_.data() + (std::size_t(c * k + ky) * k + kx) * plane;
        for (int oy = 0; oy < outH_; ++oy) {
          const int iy = oy * g_.stride - g_.padding + ky;
          for (int ox = 0; ox < outW_; ++ox) {
            const int ix = ox * g_.stride - g_.padding + kx;
            const bool inside = iy >= 0 && iy < h && ix >= 0 && ix < w;
            row[oy * outW_ + ox] = inside ? image[(std::size_t(c) * h + iy) * w + ix] : 0.0;
          }
        }
      }
}

void Fp64Conv2d::scatter(int n) {
  const int h = dx_.shape[2], w = dx_.shape[3], k = g_.kernel;
  const std::size_t plane = std::size_t(outH_) * outW_;
  double* image = dx_.data() + std::size_t(n) * g_.in * h * w;
  for (int c = 0; c < g_.in; ++c)
    for (int ky = 0; ky < k; ++ky)
      for (int kx = 0; kx < k; ++kx) {
        const double* row = columns_.data() + (std::size_t(c * k + ky) * k + kx) * plane;
        for (int oy = 0; oy < outH_; ++oy) {
          const int iy = oy * g_.stride - g_.padding + ky;
          if (iy < 0 || iy >= h) continue;
          for (int ox = 0; ox < outW_; ++ox) {
            const int ix = ox * g_.stride - g_.padding + kx;
            if (ix >= 0 && ix < w)
              image[(std::size_t(c) * h + iy) * w + ix] += row[oy * outW_ + ox];
          }
        }
      }
}

const DoubleTensor& Fp64Conv2d::forward(const DoubleTensor& x, Fp64Params& params) {
  if (x.shape.rank != 4 || x.shape[1] != g_.in)
    throw std::logic_error("the fp64 reference: a convolution's input channels");
  x_ = &x;
  const int batch = x.shape[0];
  outH_ = (x.shape[2] + 2 * g_.padding - g_.kernel) / g_.stride + 1;
  outW_ = (x.shape[3] + 2 * g_.padding - g_.kernel) / g_.stride + 1;
  const int plane = outH_ * outW_, rows = g_.in * g_.kernel * g_.kernel;
  columns_.resize(std::size_t(rows) * plane);
  y_.resize(Shape{batch, g_.out, outH_, outW_});
  const ConstMatrix w(params.value(weight_), g_.out, rows);
  for (int n = 0; n < batch; ++n) {
    gather(x, n);
    Matrix y(y_.data() + std::size_t(n) * g_.out * plane, g_.out, plane);
    y.noalias() = w * ConstMatrix(columns_.data(), rows, plane);
    if (bias_ >= 0) y.colwise() += Eigen::Map<const Eigen::VectorXd>(params.value(bias_), g_.out);
  }
  return y_;
}

const DoubleTensor& Fp64Conv2d::backward(const DoubleTensor& dy, Fp64Params& params) {
  const DoubleTensor& x = *x_;
  const int batch = x.shape[0];
  const int plane = outH_ * outW_, rows = g_.in * g_.kernel * g_.kernel;
  Matrix dw(params.grad(weight_), g_.out, rows);
  dw.setZero();
  Eigen::Map<Eigen::VectorXd> db(bias_ >= 0 ? params.grad(bias_) : nullptr,
                                 bias_ >= 0 ? g_.out : 0);
  db.setZero();
  if (needInputGrad_) {
    dx_.resize(x.shape);
    std::fill(dx_.values.begin(), dx_.values.end(), 0.0);
  }
  const ConstMatrix w(params.value(weight_), g_.out, rows);
  for (int n = 0; n < batch; ++n) {
    const ConstMatrix g(dy.data() + std::size_t(n) * g_.out * plane, g_.out, plane);
    if (bias_ >= 0) db += g.rowwise().sum();
    gather(x, n);
    // dW [out, rows] += dY_n [out, plane] columns^T [plane, rows]
    dw.noalias() += g * ConstMatrix(columns_.data(), rows, plane).transpose();
    if (!needInputGrad_) continue;
    // the column gradient [rows, plane] = W^T dY_n, back onto the pixels it read
    Matrix(columns_.data(), rows, plane).noalias() = w.transpose() * g;
    scatter(n);
  }
  return dx_;
}

Fp64MaxPool2d::Fp64MaxPool2d(int kernel) : kernel_(kernel) {}

const DoubleTensor& Fp64MaxPool2d::forward(const DoubleTensor& x, Fp64Params& /*params*/) {
  inShape_ = x.shape;
  const int h = x.shape[2], w = x.shape[3], oh = h / kernel_, ow = w / kernel_;
  y_.resize(Shape{x.shape[0], x.shape[1], oh, ow});
  taken_.resize(y_.size());
  const std::size_t planes = std::size_t(x.shape[0]) * x.shape[1];
  for (std::size_t p = 0; p < planes; ++p)
    for (int oy = 0; oy < oh; ++oy)
      for (int ox = 0; ox < ow; ++ox) {
        const std::size_t corner =
            (p * h + std::size_t(oy) * kernel_) * w + std::size_t(ox) * kernel_;
        std::size_t at = corner;
        double best = x.values[at];
        for (int ky = 0; ky < kernel_; ++ky)
          for (int kx = 0; kx < kernel_; ++kx) {
            const std::size_t i = corner + std::size_t(ky) * w + kx;
            const double v = x.values[i];
            if (v > best || (std::isnan(v) && !std::isnan(best))) {  // as MaxPool2d's take()
              best = v;
              at = i;
            }
          }
        const std::size_t o = (p * oh + oy) * ow + ox;
        y_.values[o] = best;
        taken_[o] = at;
      }
  return y_;
}

const DoubleTensor& Fp64MaxPool2d::backward(const DoubleTensor& dy, Fp64Params& /*params*/) {
  dx_.resize(inShape_);
  std::fill(dx_.values.begin(), dx_.values.end(), 0.0);
  for (std::size_t o = 0; o < dy.size(); ++o) dx_.values[taken_[o]] += dy.values[o];
  return dx_;
}

const DoubleTensor& Fp64GlobalAvgPool::forward(const DoubleTensor& x, Fp64Params& /*params*/) {
  inShape_ = x.shape;
  const std::size_t plane = std::size_t(x.shape[2]) * x.shape[3];
  y_.resize(Shape{x.shape[0], x.shape[1]});
  for (std::size_t p = 0; p < y_.size(); ++p)
    y_.values[p] =
        fp64::ConstArray(x.data() + p * plane, Eigen::Index(plane)).sum() / double(plane);
  return y_;
}

const DoubleTensor& Fp64GlobalAvgPool::backward(const DoubleTensor& dy, Fp64Params& /*params*/) {
  dx_.resize(inShape_);
  const std::size_t plane = std::size_t(inShape_[2]) * inShape_[3];
  for (std::size_t p = 0; p < dy.size(); ++p)
    std::fill_n(dx_.data() + p * plane, plane, dy.values[p] / double(plane));
  return dx_;
}

}  // namespace paritylab::nn
