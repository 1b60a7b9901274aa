#include "core/nn/lr_schedule.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/nn/training_choices.h"

namespace paritylab::nn {

LrSchedule::LrSchedule(const ScheduleConfig& config, double baseLr, std::int64_t stepsPerEpoch,
                       int epochs, std::int64_t totalSteps)
    : config_(config), base_(baseLr), perEpoch_(std::max<std::int64_t>(1, stepsPerEpoch)) {
  if (!isOneOf(config.kind, kScheduleKinds))
    throw std::invalid_argument("unknown schedule '" + config.kind +
                                "' (known: " + joinedNames(kScheduleKinds) + ")");
  if (config.warmupEpochs < 0)
    throw std::invalid_argument("schedule: warmupEpochs must be >= 0, got " +
                                std::to_string(config.warmupEpochs));
  if (config.kind == "step" && config.stepEpochs < 1)
    throw std::invalid_argument("schedule: stepEpochs must be >= 1, got " +
                                std::to_string(config.stepEpochs));
  if (config.warmupSteps < 0)
    throw std::invalid_argument("schedule: warmupSteps must be >= 0, got " +
                                std::to_string(config.warmupSteps));
  if (config.warmupSteps > 0 && config.warmupEpochs > 0)
    throw std::invalid_argument("schedule: a warmup in steps and in epochs at once");
  total_ = totalSteps > 0 ? totalSteps : perEpoch_ * std::max(1, epochs);
  warmup_ = config.warmupSteps > 0
                ? config.warmupSteps
                : std::int64_t(std::llround(config.warmupEpochs * double(perEpoch_)));
}

double LrSchedule::at(std::int64_t step) const {
  if (step < warmup_) return base_ * double(step + 1) / double(warmup_);
  if (config_.kind == "step")
    return base_ * std::pow(config_.gamma, double((step / perEpoch_) / config_.stepEpochs));
  if (config_.kind == "cosine") {
    const double span = double(std::max<std::int64_t>(1, total_ - warmup_));
    const double progress = std::min(1.0, double(step - warmup_) / span);
    const double minLr = base_ * config_.minLrFraction;
    return minLr + (base_ - minLr) * 0.5 * (1.0 + std::cos(M_PI * progress));
  }
  return base_;
}

}  // namespace paritylab::nn
