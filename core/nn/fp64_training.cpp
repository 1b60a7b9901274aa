#include "core/nn/fp64_training.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/nn/flatten.h"
#include "core/nn/linear.h"
#include "core/nn/optimizer_update_impl.h"
#include "core/nn/relu.h"
#include "core/nn/sequential.h"

namespace paritylab::nn {
namespace {

using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Matrix = Eigen::Map<RowMajor>;
using ConstMatrix = Eigen::Map<const RowMajor>;
using ConstRow = Eigen::Map<const Eigen::RowVectorXd>;

const std::vector<double> kNone;

}  // namespace

Fp64Training::Fp64Training(const Model& model, const OptimizerConfig& optimizer)
    : ranges_(model.params.weightRanges(false)),
      config_(optimizer),
      inputSize_(int(model.input.itemSize())),
      master_(model.params.masterData().begin(), model.params.masterData().end()),
      grads_(master_.size(), 0.0),
      outputAt_(std::size_t(model.gemmSites), 0),
      inputGradients_(std::size_t(model.gemmSites)) {
  if (config_.kind != "adamw" && config_.kind != "sgd")
    throw std::invalid_argument("the fp64 reference: unknown optimizer '" + config_.kind + "'");
  bool productBefore = false;
  const auto walk = [&](const Sequential& net, const auto& self) -> void {
    for (const auto& layer : net.layers()) {
      Step s;
      if (const auto* inner = dynamic_cast<const Sequential*>(layer.get())) {
        self(*inner, self);
        continue;
      }
      if (dynamic_cast<const Flatten*>(layer.get())) {
        s.kind = Kind::Flatten;
      } else if (dynamic_cast<const ReLU*>(layer.get())) {
        s.kind = Kind::Relu;
      } else if (const auto* linear = dynamic_cast<const Linear*>(layer.get())) {
        s.kind = Kind::Linear;
        s.site = linear->site();
        s.in = linear->inFeatures();
        s.out = linear->outFeatures();
        s.weight = linear->weightId();
        s.bias = linear->biasId();
        s.passesGradient = productBefore;
        productBefore = true;
      } else {
        throw std::invalid_argument(
            "the fp64 reference computes models made of flatten, linear and ReLU layers (the "
            "mlp); model '" +
            model.name + "' has other layers: compare it with a backend as the reference instead");
      }
      steps_.push_back(s);
      if (s.kind == Kind::Linear) outputAt_[std::size_t(s.site)] = steps_.size();  // its output
    }
  };
  walk(*model.net, walk);
  for (const ParamInfo& info : model.params.infos()) offsets_.push_back(info.offset);
  values_.resize(steps_.size() + 1);
}

const std::vector<double>& Fp64Training::output(int site) const {
  const bool known =
      site >= 0 && std::size_t(site) < outputAt_.size() && outputAt_[std::size_t(site)];
  return known ? values_[outputAt_[std::size_t(site)]] : kNone;
}

const std::vector<double>& Fp64Training::inputGradient(int site) const {
  return site >= 0 && std::size_t(site) < inputGradients_.size()
             ? inputGradients_[std::size_t(site)]
             : kNone;
}

void Fp64Training::forward(int n) {
  int width = inputSize_;
  for (std::size_t i = 0; i < steps_.size(); ++i) {
    const Step& s = steps_[i];
    const std::vector<double>& x = values_[i];
    std::vector<double>& y = values_[i + 1];
    switch (s.kind) {
      case Kind::Flatten:
        y = x;
        break;
      case Kind::Relu:
        y.resize(x.size());
        std::transform(x.begin(), x.end(), y.begin(), [](double v) { return v > 0.0 ? v : 0.0; });
        break;
      case Kind::Linear: {
        if (width != s.in) throw std::logic_error("the fp64 reference: a linear layer's width");
        y.resize(std::size_t(n) * std::size_t(s.out));
        const ConstMatrix w(master_.data() + offsets_[std::size_t(s.weight)], s.out, s.in);
        Matrix out(y.data(), n, s.out);
        out.noalias() = ConstMatrix(x.data(), n, s.in) * w.transpose();
        if (s.bias >= 0)
          out.rowwise() += ConstRow(master_.data() + offsets_[std::size_t(s.bias)], s.out);
        width = s.out;
        break;
      }
    }
  }
}

void Fp64Training::backward(int n) {
  for (std::size_t i = steps_.size(); i-- > 0;) {
    const Step& s = steps_[i];
    if (s.kind == Kind::Relu) {  // through where the output is positive, as ReLU::backward
      const std::vector<double>& y = values_[i + 1];
      for (std::size_t j = 0; j < gradient_.size(); ++j)
        if (!(y[j] > 0.0)) gradient_[j] = 0.0;
    }
    if (s.kind != Kind::Linear) continue;
    const ConstMatrix dy(gradient_.data(), n, s.out);
    // dW[out, in] = dY^T[out, n] X[n, in]; db[out] = the column sums of dY
    Matrix(grads_.data() + offsets_[std::size_t(s.weight)], s.out, s.in).noalias() =
        dy.transpose() * ConstMatrix(values_[i].data(), n, s.in);
    if (s.bias >= 0)
      Eigen::Map<Eigen::RowVectorXd>(grads_.data() + offsets_[std::size_t(s.bias)], s.out) =
          dy.colwise().sum();
    if (!s.passesGradient) break;  // no parameter below
    // dX[n, in] = dY[n, out] W[out, in]
    nextGradient_.resize(std::size_t(n) * std::size_t(s.in));
    Matrix(nextGradient_.data(), n, s.in).noalias() =
        dy * ConstMatrix(master_.data() + offsets_[std::size_t(s.weight)], s.out, s.in);
    inputGradients_[std::size_t(s.site)] = nextGradient_;
    gradient_.swap(nextGradient_);
  }
}

void Fp64Training::update(double lr) {
  using Map = detail::ArrayMap<double>;
  const auto map = [](std::vector<double>& v, const ParamStore::Range& r) {
    return Map(v.data() + r.offset, Eigen::Index(r.size));
  };
  Fp64OptimizerState& o = optimizer_;
  if (config_.kind == "adamw") {
    if (o.m.empty()) {
      o.m.assign(master_.size(), 0.0);
      o.v.assign(master_.size(), 0.0);
    }
    ++o.t;
    const detail::AdamWUpdate<double> step(config_, o.t, lr);
    for (const ParamStore::Range& r : ranges_) {
      Map p = map(master_, r), g = map(grads_, r), m = map(o.m, r), v = map(o.v, r);
      step.moments(p, g, m, v);
      step.apply(p, m, v);
    }
    return;
  }
  const detail::SgdUpdate<double> step(config_, lr);
  if (step.hasMomentum() && o.buf.empty()) o.buf.assign(master_.size(), 0.0);
  for (const ParamStore::Range& r : ranges_) {
    Map p = map(master_, r), g = map(grads_, r);
    if (!step.hasMomentum()) {
      step.decayAndStep(p, g);
      continue;
    }
    step.decay(p, g);
    Map b = map(o.buf, r);
    step.momentum(g, b, o.first);
    step.apply(p, g, b);
  }
  o.first = false;
}

double Fp64Training::step(const float* items, const std::int32_t* labels, int n, double lr,
                          double clipNorm) {
  values_[0].assign(items, items + std::size_t(n) * std::size_t(inputSize_));
  forward(n);
  // The mean softmax cross-entropy over the n items and its gradient (p - onehot) / n.
  const std::vector<double>& logits = values_.back();
  const std::size_t k = logits.size() / std::size_t(n);
  gradient_.resize(logits.size());
  double total = 0.0;
  for (int i = 0; i < n; ++i) {
    const double* z = logits.data() + std::size_t(i) * k;
    const double top = *std::max_element(z, z + k);
    double sum = 0.0;
    for (std::size_t j = 0; j < k; ++j) sum += std::exp(z[j] - top);
    const double logSum = std::log(sum);
    const auto label = std::size_t(labels[i]);
    total += logSum - (z[label] - top);
    double* g = gradient_.data() + std::size_t(i) * k;
    for (std::size_t j = 0; j < k; ++j)
      g[j] = (std::exp(z[j] - top - logSum) - (j == label ? 1.0 : 0.0)) / n;
  }
  const double loss = total / n;
  if (!std::isfinite(loss)) return loss;
  backward(n);
  if (clipNorm > 0.0) {  // as clipGradNorm: scaled by clip / (norm + 1e-6) when that is below 1
    double squares = 0.0;
    for (const ParamStore::Range& r : ranges_)
      for (std::size_t j = r.offset; j < r.offset + r.size; ++j) squares += grads_[j] * grads_[j];
    const double coef = clipNorm / (std::sqrt(squares) + 1e-6);
    if (coef < 1.0)
      for (const ParamStore::Range& r : ranges_)
        for (std::size_t j = r.offset; j < r.offset + r.size; ++j) grads_[j] *= coef;
  }
  update(lr);
  return loss;
}

}  // namespace paritylab::nn
