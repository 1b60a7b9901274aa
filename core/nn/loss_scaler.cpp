#include "core/nn/loss_scaler.h"

#include <cstdio>

namespace paritylab::nn {

LossScaler::LossScaler(const backends::LossScaling& config)
    : config_(config),
      scale_(config.kind == backends::LossScalingKind::None ? 1.0 : config.initialScale) {}

bool LossScaler::update(bool foundInf) {
  if (!enabled()) return foundInf;
  skipsInARow_ = foundInf ? skipsInARow_ + 1 : 0;
  if (config_.kind == backends::LossScalingKind::Static) return foundInf;
  if (foundInf) {
    scale_ *= config_.backoffFactor;
    cleanSteps_ = 0;
    return true;
  }
  if (++cleanSteps_ >= config_.growthInterval) {
    scale_ *= config_.growthFactor;
    cleanSteps_ = 0;
  }
  return false;
}

bool LossScaler::gaveUp() const {
  return enabled() && (scale_ < kMinScale || skipsInARow_ >= kMaxSkipsInARow);
}

std::string LossScaler::gaveUpReason() const {
  if (!gaveUp()) return {};
  const std::string skips = std::to_string(skipsInARow_) + " steps in a row had inf/NaN gradients";
  if (scale_ < kMinScale) {
    char scale[32];
    std::snprintf(scale, sizeof scale, "%.3g", scale_);
    return skips + "; the loss scale backed off to " + scale + ", below the limit 2^-24";
  }
  return skips + " (limit " + std::to_string(kMaxSkipsInARow) + ")";
}

}  // namespace paritylab::nn
