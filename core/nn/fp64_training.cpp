#include "core/nn/fp64_training.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/nn/fp64_model_layers.h"
#include "core/nn/optimizer_update_impl.h"

namespace paritylab::nn {
namespace {

const std::vector<double> kNoTensor;

}  // namespace

Fp64Training::Fp64Training(const Model& model, const OptimizerConfig& optimizer)
    : ranges_(model.params.weightRanges(false)),
      config_(optimizer),
      input_(model.input),
      targetsPerItem_(model.targetsPerItem) {
  if (config_.kind != "adamw" && config_.kind != "sgd")
    throw std::invalid_argument("the fp64 reference: unknown optimizer '" + config_.kind + "'");
  net_ = fp64LayersOf(model);
  net_->sites(sites_);
  params_.values.assign(model.params.masterData().begin(), model.params.masterData().end());
  params_.grads.assign(params_.values.size(), 0.0);
  for (const ParamInfo& info : model.params.infos()) {
    params_.offsets.push_back(info.offset);
    params_.sizes.push_back(info.size);
  }
}

Fp64Training::~Fp64Training() = default;

const std::vector<double>& Fp64Training::output(int site) const {
  const bool known =
      site >= 0 && std::size_t(site) < sites_.outputs.size() && sites_.outputs[std::size_t(site)];
  return known ? *sites_.outputs[std::size_t(site)] : kNoTensor;
}

const std::vector<double>& Fp64Training::inputGradient(int site) const {
  const bool known = site >= 0 && std::size_t(site) < sites_.inputGradients.size() &&
                     sites_.inputGradients[std::size_t(site)];
  return known ? *sites_.inputGradients[std::size_t(site)] : kNoTensor;
}

void Fp64Training::update(double lr) {
  using Map = detail::ArrayMap<double>;
  const auto map = [](std::vector<double>& v, const ParamStore::Range& r) {
    return Map(v.data() + r.offset, Eigen::Index(r.size));
  };
  std::vector<double>& master = params_.values;
  std::vector<double>& grads = params_.grads;
  Fp64OptimizerState& o = optimizer_;
  if (config_.kind == "adamw") {
    if (o.m.empty()) {
      o.m.assign(master.size(), 0.0);
      o.v.assign(master.size(), 0.0);
    }
    ++o.t;
    const detail::AdamWUpdate<double> step(config_, o.t, lr);
    for (const ParamStore::Range& r : ranges_) {
      Map p = map(master, r), g = map(grads, r), m = map(o.m, r), v = map(o.v, r);
      step.moments(p, g, m, v);
      step.apply(p, m, v);
    }
    return;
  }
  const detail::SgdUpdate<double> step(config_, lr);
  if (step.hasMomentum() && o.buf.empty()) o.buf.assign(master.size(), 0.0);
  for (const ParamStore::Range& r : ranges_) {
    Map p = map(master, r), g = map(grads, r);
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
  items_.resize(input_.withBatch(n));
  std::copy(items, items + items_.size(), items_.values.begin());
  const DoubleTensor& logits = net_->forward(items_, params_);
  // The mean softmax cross-entropy over the n * targets rows and its gradient (p - onehot) / rows.
  const std::size_t rows = std::size_t(n) * std::size_t(targetsPerItem_);
  const std::size_t k = logits.size() / rows;
  dlogits_.resize(logits.shape);
  double total = 0.0;
  for (std::size_t i = 0; i < rows; ++i) {
    const double* z = logits.data() + i * k;
    const double top = *std::max_element(z, z + k);
    double sum = 0.0;
    for (std::size_t j = 0; j < k; ++j) sum += std::exp(z[j] - top);
    const double logSum = std::log(sum);
    const auto label = std::size_t(labels[i]);
    total += logSum - (z[label] - top);
    double* g = dlogits_.data() + i * k;
    for (std::size_t j = 0; j < k; ++j)
      g[j] = (std::exp(z[j] - top - logSum) - (j == label ? 1.0 : 0.0)) / double(rows);
  }
  const double loss = total / double(rows);
  if (!std::isfinite(loss)) return loss;
  net_->backward(dlogits_, params_);
  std::vector<double>& grads = params_.grads;
  if (clipNorm > 0.0) {  // as clipGradNorm: scaled by clip / (norm + 1e-6) when that is below 1
    double squares = 0.0;
    for (const ParamStore::Range& r : ranges_)
      for (std::size_t j = r.offset; j < r.offset + r.size; ++j) squares += grads[j] * grads[j];
    const double coef = clipNorm / (std::sqrt(squares) + 1e-6);
    if (coef < 1.0)
      for (const ParamStore::Range& r : ranges_)
        for (std::size_t j = r.offset; j < r.offset + r.size; ++j) grads[j] *= coef;
  }
  update(lr);
  return loss;
}

}  // namespace paritylab::nn
