#pragma once
// A double narrowed to fp32 in the directions the block quantizer needs: to odd (so that a second
// rounding to a narrower format is the correct rounding of the double), down and up (so that an
// fp32 compared with the fp32 bound answers as it would against the double), and the quotient
// x / factor narrowed to odd without a division. Branch-free, so that loops over them vectorise.
// Internal to the block quantizer (block_scaling.cpp); a header so that the tests can hold each
// to its definition.

#include <bit>
#include <cmath>
#include <cstdint>

namespace paritylab::numerics {

// x narrowed to fp32 with round-to-odd: truncated toward zero, the last bit set when inexact (a
// NaN stays as converted).
inline float roundToOdd(double x) {
  const float nearest = static_cast<float>(x);
  const double back = nearest;
  const bool inexact = back != x && x == x;
  std::uint32_t bits = std::bit_cast<std::uint32_t>(nearest);
  bits -= inexact && std::fabs(back) > std::fabs(x) ? 1U : 0U;  // toward zero
  bits |= inexact ? 1U : 0U;
  return std::bit_cast<float>(bits);
}

// The largest fp32 not above t, for t >= 0 (fp32's largest for a t past it): for every fp32
// a >= 0, a > t exactly when a > floatBelow(t).
inline float floatBelow(double t) {
  const float nearest = static_cast<float>(t);
  return std::bit_cast<float>(std::bit_cast<std::uint32_t>(nearest) -
                              (static_cast<double>(nearest) > t ? 1U : 0U));
}

// The smallest fp32 not below t, for t >= 0 (infinity for a t past fp32's largest): for every
// fp32 a >= 0, a >= t exactly when a >= floatAbove(t).
inline float floatAbove(double t) {
  const float nearest = static_cast<float>(t);
  return std::bit_cast<float>(std::bit_cast<std::uint32_t>(nearest) +
                              (static_cast<double>(nearest) < t ? 1U : 0U));
}

// roundToOdd(x / factor) for a finite x and a factor > 0 with at most 29 significant bits (an
// fp32 times a few-bit block scale), given reciprocal = 1 / factor rounded to nearest: the
// quotient's nearest fp32 q from x x reciprocal (within one fp32 step of x / factor), then the
// sign of x - q x factor, which the fused multiply-add gives exactly (q x factor has at most 53
// significant bits and the difference is within one step of q times factor), says whether q is
// above the quotient (its predecessor is then the truncation), below it or equal to it.
inline float quotientToOdd(float x, double factor, double reciprocal) {
  const double magnitude = std::fabs(static_cast<double>(x));
  const float q = static_cast<float>(magnitude * reciprocal);
  const double residual = std::fma(-static_cast<double>(q), factor, magnitude);
  std::uint32_t bits = std::bit_cast<std::uint32_t>(q);
  bits -= residual < 0.0 ? 1U : 0U;
  bits |= residual != 0.0 ? 1U : 0U;
  return std::bit_cast<float>(bits | (std::bit_cast<std::uint32_t>(x) & 0x80000000U));
}

}  // namespace paritylab::numerics
