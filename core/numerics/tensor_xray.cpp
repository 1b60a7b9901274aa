#include "core/numerics/tensor_xray.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <vector>

namespace paritylab::numerics {

int TensorXray::exponentOf(float value) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value) & 0x7fffffffu;
  const int field = int(bits >> 23);
  if (field != 0) return field - 127;
  // Subnormal: 2^-149 times the mantissa, whose highest set bit gives the exponent.
  return kMinExponent + (31 - std::countl_zero(bits));
}

double TensorXray::sqnrDb() const {
  if (signalEnergy <= 0.0) return std::numeric_limits<double>::quiet_NaN();
  if (errorEnergy <= 0.0) return std::numeric_limits<double>::infinity();
  return 10.0 * std::log10(signalEnergy / errorEnergy);
}

void TensorXray::merge(const TensorXray& o) {
  count += o.count;
  zeros += o.zeros;
  nonFinite += o.nonFinite;
  for (int i = 0; i < kExponentBins; ++i)
    exponentBins[std::size_t(i)] += o.exponentBins[std::size_t(i)];
  amax = std::max(amax, o.amax);
  minNonzero = std::min(minNonzero, o.minNonzero);
  flushed += o.flushed;
  subnormal += o.subnormal;
  overflowed += o.overflowed;
  signalEnergy += o.signalEnergy;
  errorEnergy += o.errorEnergy;
  maxRelativeError = std::max(maxRelativeError, o.maxRelativeError);
}

void accumulateXray(std::span<const float> original, std::span<const float> rounded,
                    const FloatFormat& format, TensorXray& into) {
  // Where nearest rounding leaves max finite: max finite + half its ulp. A finite value at or
  // beyond it overflows (inf/NaN) or, saturating or toward zero, is clamped to max finite.
  const double maxFinite = format.maxFinite();
  const double overflowAt =
      maxFinite + std::ldexp(1.0, std::ilogb(maxFinite) - format.mantissaBits - 1);
  const double minNormal = format.minNormal();
  const std::size_t n = std::min(original.size(), rounded.size());
  into.count += std::int64_t(n);
  for (std::size_t i = 0; i < n; ++i) {
    const float x = original[i];
    if (x == 0.0f) {
      ++into.zeros;
      continue;
    }
    if (!std::isfinite(x)) {
      ++into.nonFinite;
      continue;
    }
    const double ax = std::fabs(double(x));
    ++into.exponentBins[std::size_t(TensorXray::exponentOf(x) - TensorXray::kMinExponent)];
    into.amax = std::max(into.amax, ax);
    into.minNonzero = std::min(into.minNonzero, ax);
    const float q = rounded[i];
    if (!std::isfinite(q) || ax >= overflowAt) ++into.overflowed;
    if (!std::isfinite(q)) continue;
    const double aq = std::fabs(double(q));
    if (q == 0.0f)
      ++into.flushed;
    else if (aq < minNormal)
      ++into.subnormal;
    const double error = double(x) - double(q);
    into.signalEnergy += double(x) * double(x);
    into.errorEnergy += error * error;
    into.maxRelativeError = std::max(into.maxRelativeError, std::fabs(error) / ax);
  }
}

TensorXray xrayOf(std::span<const float> values, const Rounder& rounder, std::uint64_t seed) {
  std::vector<float> rounded(values.begin(), values.end());
  rounder.apply(rounded, seed);
  TensorXray xray;
  accumulateXray(values, rounded, rounder.spec().format, xray);
  return xray;
}

}  // namespace paritylab::numerics
