// Bit anatomy of one value in one format: the value is rounded by the same Rounder as every
// emulated product and `paritylab-cli round`, then its fields are read off.

#include "core/numerics/bit_anatomy.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/numerics/exact_decimal.h"

namespace paritylab::numerics {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

int minExponent(const FloatFormat& f) {
  return 1 - f.bias;
}

std::string spacedBits(const FloatFormat& f, std::uint32_t pattern) {
  std::string text;
  for (int bit = f.totalBits() - 1; bit >= 0; --bit) {
    text += ((pattern >> bit) & 1U) ? '1' : '0';
    if (bit == f.totalBits() - 1 || (bit == f.mantissaBits && f.mantissaBits > 0)) text += ' ';
  }
  return text;
}

}  // namespace

std::string_view toString(ValueClass c) {
  switch (c) {
    case ValueClass::Zero:
      return "zero";
    case ValueClass::Subnormal:
      return "subnormal";
    case ValueClass::Normal:
      return "normal";
    case ValueClass::Infinite:
      return "infinite";
    case ValueClass::NaN:
      return "nan";
  }
  return "?";
}

double decodeBits(const FloatFormat& f, std::uint32_t pattern) {
  const std::uint32_t mantissaMask = (1U << f.mantissaBits) - 1U;
  const std::uint32_t exponentMask = (1U << f.exponentBits) - 1U;
  const std::uint32_t mantissa = pattern & mantissaMask;
  const std::uint32_t exponent = (pattern >> f.mantissaBits) & exponentMask;
  const bool negative = ((pattern >> (f.exponentBits + f.mantissaBits)) & 1U) != 0;
  double magnitude = 0.0;
  if (exponent == exponentMask && f.special == SpecialEncoding::Ieee) {
    magnitude = mantissa == 0 ? kInf : kNaN;
  } else if (exponent == exponentMask && mantissa == mantissaMask &&
             f.special == SpecialEncoding::FiniteOnlyE4M3) {
    magnitude = kNaN;  // E4M3: S.1111.111
  } else if (negative && exponent == 0 && mantissa == 0 && f.special == SpecialEncoding::Fnuz) {
    return kNaN;  // fnuz: the negative-zero code is the one NaN
  } else if (exponent == 0) {
    magnitude = std::ldexp(static_cast<double>(mantissa), minExponent(f) - f.mantissaBits);
  } else {
    magnitude = std::ldexp(static_cast<double>(mantissa | (mantissaMask + 1U)),
                           static_cast<int>(exponent) - f.bias - f.mantissaBits);
  }
  return negative ? -magnitude : magnitude;
}

std::uint32_t encodeBits(const FloatFormat& f, double value) {
  const std::uint32_t mantissaMask = (1U << f.mantissaBits) - 1U;
  const std::uint32_t exponentMask = (1U << f.exponentBits) - 1U;
  const std::uint32_t sign = std::signbit(value) ? 1U << (f.exponentBits + f.mantissaBits) : 0U;
  const std::uint32_t allOnesExponent = exponentMask << f.mantissaBits;
  const std::uint32_t signBit = 1U << (f.exponentBits + f.mantissaBits);
  if (f.special == SpecialEncoding::Fnuz) {
    if (std::isnan(value) || std::isinf(value)) return signBit;  // the one NaN code
    if (value == 0.0) return 0U;                                 // zero has no sign
  }
  if (f.special == SpecialEncoding::FiniteOnly && (std::isnan(value) || std::isinf(value))) {
    // No code for either: an infinity saturates as rounding does; a NaN (which the fp32 result
    // of a rounding can carry) shows as the max-magnitude code with the NaN's sign.
    return sign | allOnesExponent | mantissaMask;
  }
  if (std::isnan(value) || (std::isinf(value) && !f.hasInfinity())) {
    const std::uint32_t payload =
        f.special == SpecialEncoding::Ieee ? (mantissaMask + 1U) >> 1 : mantissaMask;
    return sign | allOnesExponent | (payload == 0 ? 1U : payload);
  }
  if (std::isinf(value)) return sign | allOnesExponent;
  const double magnitude = std::fabs(value);
  if (magnitude < f.minNormal())
    return sign | static_cast<std::uint32_t>(magnitude / f.minSubnormal());
  const int exponent = std::ilogb(magnitude);
  const double fraction = std::ldexp(magnitude, -exponent) - 1.0;  // [0, 1)
  const auto mantissa = static_cast<std::uint32_t>(std::ldexp(fraction, f.mantissaBits));
  return sign | (static_cast<std::uint32_t>(exponent + f.bias) << f.mantissaBits) | mantissa;
}

BitAnatomy dissect(float value, const RoundingSpec& spec, std::uint64_t seed) {
  const FloatFormat& f = spec.format;
  BitAnatomy a;
  a.format = f;
  a.input = value;
  a.stored = Rounder(spec).round(value, seed, 0);
  const std::uint32_t pattern = encodeBits(f, a.stored);
  a.sign = ((pattern >> (f.exponentBits + f.mantissaBits)) & 1U) != 0;
  a.exponentField = (pattern >> f.mantissaBits) & ((1U << f.exponentBits) - 1U);
  a.mantissaField = pattern & ((1U << f.mantissaBits) - 1U);
  a.bits = spacedBits(f, pattern);
  a.storedExact = exactDecimal(a.stored);

  if (std::isnan(a.stored)) {
    a.valueClass = ValueClass::NaN;
  } else if (std::isinf(a.stored)) {
    a.valueClass = ValueClass::Infinite;
  } else if (a.stored == 0.0) {
    a.valueClass = ValueClass::Zero;
  } else {
    a.valueClass = a.exponentField == 0 ? ValueClass::Subnormal : ValueClass::Normal;
  }
  a.unbiasedExponent =
      a.exponentField == 0 ? minExponent(f) : static_cast<int>(a.exponentField) - f.bias;
  if (std::isfinite(a.stored)) {
    const int exponent =
        a.stored == 0.0 ? minExponent(f) : std::max(std::ilogb(a.stored), minExponent(f));
    a.ulp = std::ldexp(1.0, exponent - f.mantissaBits);
  } else {
    a.ulp = kNaN;
  }
  if (std::isfinite(a.stored) && std::isfinite(value)) {
    a.absoluteError = std::fabs(a.stored - value);
    a.relativeError = value == 0.0 ? 0.0 : a.absoluteError / std::fabs(value);
  } else if (std::isinf(a.stored) && a.stored == value) {
    a.absoluteError = 0.0;
    a.relativeError = 0.0;
  } else {
    a.absoluteError = std::isnan(value) && std::isnan(a.stored) ? 0.0 : kInf;
    a.relativeError = a.absoluteError;
  }
  return a;
}

}  // namespace paritylab::numerics
