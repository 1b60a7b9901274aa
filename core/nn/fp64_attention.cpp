#include "core/nn/fp64_attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "core/nn/fp64_layer_impl.h"

namespace paritylab::nn {

using fp64::ConstMatrix;
using fp64::ConstStridedMatrix;
using fp64::Matrix;
using fp64::StridedMatrix;

Fp64CausalSelfAttention::Fp64CausalSelfAttention(int embd, int heads, const Sites& sites,
                                                 std::unique_ptr<Fp64Linear> qkv,
                                                 std::unique_ptr<Fp64Linear> projection)
    : embd_(embd),
      heads_(heads),
      headDim_(embd / heads),
      sites_(sites),
      qkv_(std::move(qkv)),
      projection_(std::move(projection)) {}

std::vector<int> Fp64CausalSelfAttention::paramIds() const {
  std::vector<int> ids = qkv_->paramIds();
  const std::vector<int> more = projection_->paramIds();
  ids.insert(ids.end(), more.begin(), more.end());
  return ids;
}

void Fp64CausalSelfAttention::sites(Fp64Sites& into) const {
  qkv_->sites(into);
  projection_->sites(into);
  into.set(sites_.qk, &p_.values, &dqkv_.values);
  into.set(sites_.pv, &o_.values, &dp_.values);
}

const DoubleTensor& Fp64CausalSelfAttention::forward(const DoubleTensor& x, Fp64Params& params) {
  if (x.shape.rank != 3 || x.shape[2] != embd_)
    throw std::logic_error("the fp64 reference: attention's input width");
  const int b = x.shape[0], t = x.shape[1], c = embd_, h = heads_, d = headDim_;
  const DoubleTensor& qkv = qkv_->forward(x, params);
  qkvOut_ = &qkv;
  p_.resize(Shape{b, h, t, t});
  o_.resize(Shape{b, t, c});
  const double scale = 1.0 / std::sqrt(double(d));
  const std::size_t tt = std::size_t(t) * t;
  for (int bh = 0; bh < b * h; ++bh) {
    const double* rows = qkv.data() + std::size_t(bh / h) * t * 3 * c + std::size_t(bh % h) * d;
    const ConstStridedMatrix q(rows, t, d, Eigen::OuterStride<>(3 * c));
    const ConstStridedMatrix k(rows + c, t, d, Eigen::OuterStride<>(3 * c));
    const ConstStridedMatrix v(rows + 2 * c, t, d, Eigen::OuterStride<>(3 * c));
    Matrix p(p_.data() + std::size_t(bh) * tt, t, t);
    p.noalias() = scale * (q * k.transpose());
    // The causal softmax of each row over j <= i; 0 above the diagonal.
    for (int i = 0; i < t; ++i) {
      auto row = p.row(i);
      const double top = row.head(i + 1).maxCoeff();
      row.head(i + 1) = (row.head(i + 1).array() - top).exp().matrix();
      row.head(i + 1) /= row.head(i + 1).sum();
      row.tail(t - i - 1).setZero();
    }
    StridedMatrix o(o_.data() + std::size_t(bh / h) * t * c + std::size_t(bh % h) * d, t, d,
                    Eigen::OuterStride<>(c));
    o.noalias() = p * v;
  }
  return projection_->forward(o_, params);
}

const DoubleTensor& Fp64CausalSelfAttention::backward(const DoubleTensor& dy, Fp64Params& params) {
  const DoubleTensor& qkv = *qkvOut_;
  const int b = p_.shape[0], h = heads_, t = p_.shape[2], c = embd_, d = headDim_;
  const DoubleTensor& dout = projection_->backward(dy, params);  // dO [B, T, C]
  dp_.resize(p_.shape);
  dqkv_.resize(qkv.shape);
  ds_.resize(std::size_t(t) * t);
  const double scale = 1.0 / std::sqrt(double(d));
  const std::size_t tt = std::size_t(t) * t;
  for (int bh = 0; bh < b * h; ++bh) {
    const std::size_t at = std::size_t(bh / h) * t * 3 * c + std::size_t(bh % h) * d;
    const ConstStridedMatrix q(qkv.data() + at, t, d, Eigen::OuterStride<>(3 * c));
    const ConstStridedMatrix k(qkv.data() + at + c, t, d, Eigen::OuterStride<>(3 * c));
    const ConstStridedMatrix v(qkv.data() + at + 2 * c, t, d, Eigen::OuterStride<>(3 * c));
    const ConstStridedMatrix dO(dout.data() + std::size_t(bh / h) * t * c + std::size_t(bh % h) * d,
                                t, d, Eigen::OuterStride<>(c));
    const ConstMatrix p(p_.data() + std::size_t(bh) * tt, t, t);
    Matrix dp(dp_.data() + std::size_t(bh) * tt, t, t);
    // Through O = P V: dP = dO V^T, dV = P^T dO.
    dp.noalias() = dO * v.transpose();
    StridedMatrix(dqkv_.data() + at + 2 * c, t, d, Eigen::OuterStride<>(3 * c)).noalias() =
        p.transpose() * dO;
    // Through the softmax and the scale: dS = scale P (dP - sum_j dP P) (0 where P is).
    Matrix ds(ds_.data(), t, t);
    const Eigen::VectorXd dots = (dp.array() * p.array()).rowwise().sum();
    ds = scale * (p.array() * (dp.array().colwise() - dots.array())).matrix();
    // Through S = Q K^T: dQ = dS K, dK = dS^T Q.
    StridedMatrix(dqkv_.data() + at, t, d, Eigen::OuterStride<>(3 * c)).noalias() = ds * k;
    StridedMatrix(dqkv_.data() + at + c, t, d, Eigen::OuterStride<>(3 * c)).noalias() =
        ds.transpose() * q;
  }
  qkv_->setNeedInputGrad(needInputGrad_);
  return qkv_->backward(dqkv_, params);
}

}  // namespace paritylab::nn
