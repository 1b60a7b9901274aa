#pragma once
// Loss scaling as torch.cuda.amp.GradScaler does it: the loss is multiplied by scale() before
// backward, gradients divided by it; an inf/NaN in the unscaled gradients (a non-finite loss gives
// them) skips the optimizer step, and dynamic scaling then backs the scale off (x backoffFactor)
// and grows it (x growthFactor) after growthInterval clean steps in a row. PyTorch's defaults:
// init 65536, growth 2, backoff 0.5, interval 2000.
//
// GradScaler never gives up; here a run that keeps overflowing ends as diverged at a documented
// limit (gaveUp()): the dynamic scale backed off below kMinScale = 2^-24 (fp16's smallest
// subnormal: a scaled loss gradient below it no longer reaches fp16 at all), or kMaxSkipsInARow
// steps skipped in a row (static scaling, whose scale never moves).

#include <string>

#include "core/backends/precision_policy.h"

namespace paritylab::nn {

class LossScaler {
 public:
  static constexpr double kMinScale = 0x1p-24;
  static constexpr int kMaxSkipsInARow = 100;

  explicit LossScaler(const backends::LossScaling& config);

  bool enabled() const { return config_.kind != backends::LossScalingKind::None; }
  double scale() const { return scale_; }  // 1 when disabled
  // Call once per step with whether any unscaled gradient (or the loss) was inf/NaN. Returns true
  // when the optimizer step must be skipped (overflow under static or dynamic scaling).
  bool update(bool foundInf);
  int cleanSteps() const { return cleanSteps_; }
  int skipsInARow() const { return skipsInARow_; }
  // True once a limit above is reached: the run cannot recover; gaveUpReason() says which.
  bool gaveUp() const;
  std::string gaveUpReason() const;

 private:
  backends::LossScaling config_;
  double scale_ = 1.0;
  int cleanSteps_ = 0;
  int skipsInARow_ = 0;
};

}  // namespace paritylab::nn
