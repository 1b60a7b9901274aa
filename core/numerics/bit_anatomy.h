#pragma once
// The anatomy of one value in one format, for the bit-layout diagram and `paritylab-cli bits`.
// CONTRACT (owned by core/numerics; ui relies on these names).

#include <cstdint>
#include <string>

#include "core/numerics/rounding.h"

namespace paritylab::numerics {

enum class ValueClass { Zero, Subnormal, Normal, Infinite, NaN };
std::string_view toString(ValueClass c);

struct BitAnatomy {
  FloatFormat format;
  double input = 0.0;  // the fp32 value rounded (what a device sees of the number typed)
  bool sign = false;
  std::uint32_t exponentField = 0;  // raw biased exponent bits
  std::uint32_t mantissaField = 0;  // raw fraction bits
  std::string bits;                 // e.g. "0 01111111 0000000" (sign, exponent, mantissa, spaced)
  int unbiasedExponent = 0;         // for normals: field - bias; subnormals: 1 - bias
  ValueClass valueClass = ValueClass::Zero;
  double stored = 0.0;         // the value the format holds after rounding
  std::string storedExact;     // `stored` as an exact decimal string (every digit)
  double absoluteError = 0.0;  // |stored - input| (inf/NaN when not finite)
  double relativeError = 0.0;  // absoluteError / |input| (0 when input is 0)
  double ulp = 0.0;            // spacing of the format at `stored`
};

// Rounds the fp32 `value` to the spec's format with the same Rounder as every emulated product
// and `paritylab-cli round` (stochastic: the draw of element 0 under `seed`, i.e. the first line
// `round --seed` reads), and dissects the result. Parse typed text with parseFp32Input first.
BitAnatomy dissect(float value, const RoundingSpec& spec, std::uint64_t seed = 0);
// The value a bit pattern of the format encodes (for clicking bits in the diagram): fnuz's
// negative-zero code (sign bit alone) is NaN; every code of an MX FP6/FP4 element is finite.
double decodeBits(const FloatFormat& format, std::uint32_t pattern);
// The pattern of `value` already representable in the format (sign | exponent | mantissa). fnuz:
// zero is the all-zeros code whatever its sign, NaN and infinities the NaN code. MX FP6/FP4
// elements have neither NaN nor infinity: both give the max-magnitude code with the value's sign
// (a NaN's class stays NaN in dissect(), which reads the rounded fp32 value).
std::uint32_t encodeBits(const FloatFormat& format, double value);

}  // namespace paritylab::numerics
