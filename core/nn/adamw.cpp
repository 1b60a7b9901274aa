#include <cmath>
#include <stdexcept>

#include "core/nn/gemm.h"
#include "core/nn/optimizer.h"
#include "core/nn/training_choices.h"

namespace paritylab::nn {

void AdamW::step(ParamStore& params, const std::vector<ParamStore::Range>& ranges, double lr,
                 const std::optional<numerics::RoundingSpec>& stateFormat) {
  if (m_.empty()) {
    m_.assign(params.totalSize(), 0.0f);
    v_.assign(params.totalSize(), 0.0f);
  }
  ++t_;
  const float b1 = float(config_.beta1), b2 = float(config_.beta2);
  const double bc1 = 1.0 - std::pow(config_.beta1, double(t_));
  const double bc2 = 1.0 - std::pow(config_.beta2, double(t_));
  const float decay = float(1.0 - lr * config_.weightDecay);
  const float stepSize = float(lr / bc1);
  const float bc2Sqrt = float(std::sqrt(bc2));
  const float eps = float(config_.eps);
  for (const auto& r : ranges) {
    using Map = Eigen::Map<Eigen::ArrayXf>;
    const Eigen::Index n = Eigen::Index(r.size);
    Map p(params.masterData().data() + r.offset, n);
    Map g(params.gradData().data() + r.offset, n);
    Map m(m_.data() + r.offset, n);
    Map v(v_.data() + r.offset, n);
    if (config_.weightDecay != 0.0) p *= decay;
    m = b1 * m + (1.0f - b1) * g;
    v = b2 * v + (1.0f - b2) * g.square();
    storeTensor(stateFormat, m.data(), r.size);
    storeTensor(stateFormat, v.data(), r.size);
    p -= stepSize * (m / (v.sqrt() / bc2Sqrt + eps));
  }
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
