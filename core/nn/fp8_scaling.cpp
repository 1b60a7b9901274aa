#include "core/nn/fp8_scaling.h"

#include <algorithm>
#include <cmath>

namespace paritylab::nn {

Fp8TensorScale::Fp8TensorScale(double fp8Max, int historyLength, double margin)
    : fp8Max_(fp8Max), margin_(margin), history_(std::size_t(std::max(1, historyLength)), 0.0f) {}

float Fp8TensorScale::amax() const {
  float m = 0.0f;
  for (std::size_t i = 0; i < filled_; ++i) m = std::max(m, history_[i]);
  return m;
}

void Fp8TensorScale::record(const float* values, std::size_t n) {
  float m = 0.0f;
  for (std::size_t i = 0; i < n; ++i) m = std::max(m, std::abs(values[i]));
  recordAmax(m);
}

void Fp8TensorScale::recordAmax(float value) {
  history_[next_] = value;
  next_ = (next_ + 1) % history_.size();
  filled_ = std::min(filled_ + 1, history_.size());
  const float m = amax();
  // TE: sf = (fp8_max / amax) / 2^margin; keep the previous scale when amax is 0 or not finite.
  if (m > 0.0f && std::isfinite(m)) scale_ = float((fp8Max_ / m) / std::exp2(margin_));
}

}  // namespace paritylab::nn
