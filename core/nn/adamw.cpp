#include <cmath>
#include <stdexcept>

#include "core/nn/gemm.h"
#include "core/nn/optimizer.h"
#include "core/nn/optimizer_update_impl.h"
#include "core/nn/training_choices.h"

namespace paritylab::nn {

void AdamW::step(ParamStore& params, const std::vector<ParamStore::Range>& ranges, double lr,
                 const std::optional<numerics::RoundingSpec>& stateFormat) {
  if (m_.empty()) {
    m_.assign(params.totalSize(), 0.0f);
    v_.assign(params.totalSize(), 0.0f);
  }
  ++t_;
  const detail::AdamWUpdate<float> update(config_, t_, lr);
  for (const auto& r : ranges) {
    using Map = detail::ArrayMap<float>;
    const Eigen::Index n = Eigen::Index(r.size);
    Map p(params.masterData().data() + r.offset, n);
    Map g(params.gradData().data() + r.offset, n);
    Map m(m_.data() + r.offset, n);
    Map v(v_.data() + r.offset, n);
    update.moments(p, g, m, v);
    storeTensor(stateFormat, m.data(), r.size);
    storeTensor(stateFormat, v.data(), r.size);
    update.apply(p, m, v);
  }
}

void AdamW::assignRounded(const Fp64OptimizerState& state) {
  t_ = state.t;
  m_.assign(state.m.begin(), state.m.end());  // each value rounded to nearest fp32
  v_.assign(state.v.begin(), state.v.end());
}

std::unique_ptr<Optimizer> makeOptimizer(const OptimizerConfig& config) {
  if (!(config.lr >= 0.0) || !std::isfinite(config.lr))
    throw std::invalid_argument("optimizer: lr must be a non-negative number, got " +
                                std::to_string(config.lr));
  if (config.kind == "adamw") {
    if (!(config.beta1 >= 0 && config.beta1 < 1) || !(config.beta2 >= 0 && config.beta2 < 1))
      throw std::invalid_argument("optimizer: adamw betas must be in [0, 1)");
    return std::make_unique<AdamW>(config);
  }
  if (config.kind == "sgd") {
    if (config.nesterov && config.momentum <= 0.0)
      throw std::invalid_argument("optimizer: sgd nesterov needs momentum > 0");
    return std::make_unique<Sgd>(config);
  }
  throw std::invalid_argument("unknown optimizer '" + config.kind +
                              "' (known: " + joinedNames(kOptimizerKinds) + ")");
}

}  // namespace paritylab::nn
