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
  // beyond it overflows (inf/NaN) or, saturating or toward zero, is clamped to max finite. Both
  // thresholds are exact in fp32 (2^128, beyond it, reads as inf: nothing reaches it).
  const double maxFinite = format.maxFinite();
  const float overflowAt =
      float(maxFinite + std::ldexp(1.0, std::ilogb(maxFinite) - format.mantissaBits - 1));
  const float minNormal = float(format.minNormal());
  const std::size_t n = std::min(original.size(), rounded.size());
  // Locals keep the hot loop in registers; one division only when a new maximum is found.
  std::int64_t zeros = 0, nonFinite = 0, flushed = 0, subnormal = 0, overflowed = 0;
  float amax = 0.0f, minNonzero = std::numeric_limits<float>::infinity();
  double signal = 0.0, error = 0.0, maxRelative = into.maxRelativeError;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(original[i]) & 0x7fffffffu;
    if (bits == 0) {
      ++zeros;
      continue;
    }
    if (bits >= 0x7f800000u) {
      ++nonFinite;
      continue;
    }
    const float ax = std::bit_cast<float>(bits);
    ++into.exponentBins[std::size_t(TensorXray::exponentOf(ax) - TensorXray::kMinExponent)];
    amax = std::max(amax, ax);
    minNonzero = std::min(minNonzero, ax);
    const float q = rounded[i];
    const float aq = std::fabs(q);
    if (!(aq <= std::numeric_limits<float>::max())) {  // inf or NaN
      ++overflowed;
      continue;
    }
    overflowed += ax >= overflowAt ? 1 : 0;
    flushed += aq == 0.0f ? 1 : 0;
    subnormal += aq != 0.0f && aq < minNormal ? 1 : 0;
    const double x = original[i];
    const double e = x - double(q);
    signal += x * x;
    error += e * e;
    const double ae = std::fabs(e);
    if (ae > maxRelative * double(ax)) maxRelative = ae / double(ax);
  }
  into.count += std::int64_t(n);
  into.zeros += zeros;
  into.nonFinite += nonFinite;
  into.flushed += flushed;
  into.subnormal += subnormal;
  into.overflowed += overflowed;
  into.amax = std::max(into.amax, double(amax));
  into.minNonzero = std::min(into.minNonzero, double(minNonzero));
  into.signalEnergy += signal;
  into.errorEnergy += error;
  into.maxRelativeError = maxRelative;
}

TensorXray xrayOf(std::span<const float> values, const Rounder& rounder, std::uint64_t seed) {
  std::vector<float> rounded(values.begin(), values.end());
  rounder.apply(rounded, seed);
  TensorXray xray;
  accumulateXray(values, rounded, rounder.spec().format, xray);
  return xray;
}

}  // namespace paritylab::numerics
