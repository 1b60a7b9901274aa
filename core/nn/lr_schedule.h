#pragma once
// Learning rate per batch (torch schedulers stepped every batch, as the reference experiment).
// constant: lr (after the optional linear warmup); step: lr * gamma^floor(epoch / stepEpochs);
// cosine: linear warmup from 0 over warmupEpochs, then cosine from lr to lr*minLrFraction at the
// last batch.

#include <cstdint>

#include "core/nn/trainer.h"

namespace paritylab::nn {

class LrSchedule {
 public:
  // Throws std::invalid_argument for an unknown kind or bad values, naming them. `totalSteps`
  // > 0: the phase ends after that many steps (a run counted in steps) instead of
  // stepsPerEpoch x epochs.
  LrSchedule(const ScheduleConfig& config, double baseLr, std::int64_t stepsPerEpoch, int epochs,
             std::int64_t totalSteps = 0);
  // lr for the `step`-th batch (0-based) of this phase.
  double at(std::int64_t step) const;

 private:
  ScheduleConfig config_;
  double base_;
  std::int64_t perEpoch_, total_, warmup_;
};

}  // namespace paritylab::nn
