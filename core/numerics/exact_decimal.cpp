#include "core/numerics/exact_decimal.h"

#include <cmath>
#include <cstdio>

namespace paritylab::numerics {

std::string exactDecimal(double value) {
  if (std::isnan(value)) return std::signbit(value) ? "-nan" : "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  // value = n / 2^k with integer n: exactly k decimal places are needed (2^-k = 5^k / 10^k).
  int fractionalBits = 0;
  for (double t = std::fabs(value); t != std::floor(t); t *= 2.0) ++fractionalBits;
  // glibc's printf converts exactly at any precision (it uses multi-precision arithmetic).
  std::string text(static_cast<std::size_t>(320 + fractionalBits), '\0');
  const int length = std::snprintf(text.data(), text.size(), "%.*f", fractionalBits, value);
  text.resize(static_cast<std::size_t>(length));
  return text;
}

}  // namespace paritylab::numerics
