#include "core/nn/fp64_dense_layers.h"

#include <stdexcept>
#include <string>

#include "core/nn/fp64_layer_impl.h"

namespace paritylab::nn {

using fp64::ConstArray;
using fp64::ConstMatrix;
using fp64::ConstRow;
using fp64::Matrix;
using fp64::Row;

const DoubleTensor& Fp64Flatten::forward(const DoubleTensor& x, Fp64Params& /*params*/) {
  inShape_ = x.shape;
  y_.shape = Shape{x.shape[0], int(x.shape.itemSize())};
  y_.values = x.values;
  return y_;
}

const DoubleTensor& Fp64Flatten::backward(const DoubleTensor& dy, Fp64Params& /*params*/) {
  dx_.shape = inShape_;
  dx_.values = dy.values;
  return dx_;
}

const DoubleTensor& Fp64Relu::forward(const DoubleTensor& x, Fp64Params& /*params*/) {
  y_.resize(x.shape);
  fp64::Array(y_.data(), Eigen::Index(y_.size())) =
      ConstArray(x.data(), Eigen::Index(x.size())).max(0.0);
  return y_;
}

const DoubleTensor& Fp64Relu::backward(const DoubleTensor& dy, Fp64Params& /*params*/) {
  dx_.resize(dy.shape);
  const ConstArray y(y_.data(), Eigen::Index(y_.size()));
  fp64::Array(dx_.data(), Eigen::Index(dx_.size())) =
      (y > 0.0).select(ConstArray(dy.data(), Eigen::Index(dy.size())), 0.0);
  return dx_;
}

Fp64Linear::Fp64Linear(int site, int in, int out, int weight, int bias)
    : site_(site), in_(in), out_(out), weight_(weight), bias_(bias) {}

std::vector<int> Fp64Linear::paramIds() const {
  if (bias_ < 0) return {weight_};
  return {weight_, bias_};
}

void Fp64Linear::sites(Fp64Sites& into) const {
  into.set(site_, &y_.values, &dx_.values);
}

const DoubleTensor& Fp64Linear::forward(const DoubleTensor& x, Fp64Params& params) {
  x_ = &x;
  const Shape& s = x.shape;
  Shape out;
  if (s.rank >= 2 && s[s.rank - 1] == in_) {
    out = s;
    out.dims[std::size_t(s.rank - 1)] = out_;
  } else if (s.rank >= 1 && s.itemSize() == std::size_t(in_)) {
    out = Shape{s[0], out_};
  } else {
    throw std::logic_error("the fp64 reference: a linear layer of " + std::to_string(in_) +
                           " inputs given another width");
  }
  const int rows = int(x.size() / std::size_t(in_));
  y_.resize(out);
  Matrix y(y_.data(), rows, out_);
  y.noalias() =
      ConstMatrix(x.data(), rows, in_) * ConstMatrix(params.value(weight_), out_, in_).transpose();
  if (bias_ >= 0) y.rowwise() += ConstRow(params.value(bias_), out_);
  return y_;
}

const DoubleTensor& Fp64Linear::backward(const DoubleTensor& dy, Fp64Params& params) {
  const DoubleTensor& x = *x_;
  const int rows = int(x.size() / std::size_t(in_));
  const ConstMatrix g(dy.data(), rows, out_);
  // dW[out, in] = dY^T[out, rows] X[rows, in]; db[out] = the column sums of dY
  Matrix(params.grad(weight_), out_, in_).noalias() =
      g.transpose() * ConstMatrix(x.data(), rows, in_);
  if (bias_ >= 0) Row(params.grad(bias_), out_) = g.colwise().sum();
  if (!needInputGrad_) return dx_;
  // dX[rows, in] = dY[rows, out] W[out, in]
  dx_.resize(x.shape);
  Matrix(dx_.data(), rows, in_).noalias() = g * ConstMatrix(params.value(weight_), out_, in_);
  return dx_;
}

}  // namespace paritylab::nn
