#include "core/nn/loss_scaler.h"

namespace paritylab::nn {

LossScaler::LossScaler(const backends::LossScaling& config)
    : config_(config),
      scale_(config.kind == backends::LossScalingKind::None ? 1.0 : config.initialScale) {}

bool LossScaler::update(bool foundInf) {
  if (!enabled()) return foundInf;
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

}  // namespace paritylab::nn
