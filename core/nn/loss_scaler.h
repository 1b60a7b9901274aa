#pragma once
// Loss scaling as torch.cuda.amp.GradScaler does it: the loss is multiplied by scale() before
// backward, gradients divided by it; dynamic scaling backs off and skips the step on inf/NaN
// gradients and grows after growthInterval clean steps.

#include "core/backends/precision_policy.h"

namespace paritylab::nn {

class LossScaler {
 public:
  explicit LossScaler(const backends::LossScaling& config);

  bool enabled() const { return config_.kind != backends::LossScalingKind::None; }
  double scale() const { return scale_; }  // 1 when disabled
  // Call once per step with whether any gradient was inf/NaN. Returns true when the optimizer
  // step must be skipped (overflow under static or dynamic scaling).
  bool update(bool foundInf);
  int cleanSteps() const { return cleanSteps_; }

 private:
  backends::LossScaling config_;
  double scale_ = 1.0;
  int cleanSteps_ = 0;
};

}  // namespace paritylab::nn
