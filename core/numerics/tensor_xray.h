#pragma once
// The X-ray of one tensor against a format: how the values a product is handed sit
// in the format's range, and what the rounding did to them. Mergeable, so one summary can cover a
// product whose operand arrives in several pieces (replicas, grouped convolutions).

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>

#include "core/numerics/float_format.h"
#include "core/numerics/rounding.h"

namespace paritylab::numerics {

struct TensorXray {
  // Binary exponent bins floor(log2 |x|) over the fp32 range: 2^-149 (smallest subnormal) ..
  // 2^127, one bin each; zeros and non-finite values are counted apart.
  static constexpr int kMinExponent = -149;
  static constexpr int kMaxExponent = 127;
  static constexpr int kExponentBins = kMaxExponent - kMinExponent + 1;

  std::int64_t count = 0;                                       // every element
  std::int64_t zeros = 0;                                       // x == 0 (either sign)
  std::int64_t nonFinite = 0;                                   // inf or NaN in the fp32 values
  std::array<std::int64_t, kExponentBins> exponentBins{};       // [e - kMinExponent]
  double amax = 0.0;                                            // max finite |x| (0 when none)
  double minNonzero = std::numeric_limits<double>::infinity();  // min nonzero finite |x|
  // Among the nonzero finite values x with rounded value q:
  std::int64_t flushed = 0;    // q == 0: the rounding flushed x to zero (underflow)
  std::int64_t subnormal = 0;  // q nonzero finite with |q| < the format's min normal
  // q became inf/NaN, or |x| >= max finite + half its ulp (where nearest rounding overflows) and
  // q was clamped to max finite (saturating, toward zero)
  std::int64_t overflowed = 0;
  double signalEnergy = 0.0;      // sum x^2 over nonzero finite x whose q is finite
  double errorEnergy = 0.0;       // sum (x - q)^2 over the same values
  double maxRelativeError = 0.0;  // max |x - q| / |x| over the same values

  std::int64_t nonzeroFinite() const { return count - zeros - nonFinite; }
  // Fractions of the nonzero finite values (0 when there are none).
  double underflowFraction() const { return fraction(flushed); }
  double subnormalFraction() const { return fraction(subnormal); }
  double overflowFraction() const { return fraction(overflowed); }
  // 10 log10(signal / error) in dB; +inf when the rounding was exact, NaN without signal.
  double sqnrDb() const;
  static int exponentOf(float nonzeroFiniteValue);  // floor(log2 |x|), exact, in the bin range

  void merge(const TensorXray& other);

 private:
  double fraction(std::int64_t n) const {
    const std::int64_t d = nonzeroFinite();
    return d > 0 ? double(n) / double(d) : 0.0;
  }
};

// Adds `original` (fp32 values as the device is handed them, scaled if it scales them) and
// `rounded` (the same values as the product reads them) to `into`; same length. `format` gives
// the subnormal and overflow thresholds.
void accumulateXray(std::span<const float> original, std::span<const float> rounded,
                    const FloatFormat& format, TensorXray& into);

// Convenience: rounds a copy of `values` with `rounder` (stream `seed`, dense indices) and
// summarises both.
TensorXray xrayOf(std::span<const float> values, const Rounder& rounder, std::uint64_t seed = 0);

}  // namespace paritylab::numerics
