#include "core/playground/exact_sum.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <utility>

namespace paritylab::playground {

void ExactSum::add(double x) {
  std::size_t i = 0;
  for (double y : partials_) {
    if (std::fabs(x) < std::fabs(y)) std::swap(x, y);
    const double hi = x + y;  // Fast two-sum (|x| >= |y|): hi + lo == x + y exactly
    const double lo = y - (hi - x);
    if (lo != 0.0) partials_[i++] = lo;
    x = hi;
  }
  partials_.resize(i);
  partials_.push_back(x);
}

double ExactSum::value() const {
  std::size_t n = partials_.size();
  if (n == 0) return 0.0;
  double hi = partials_[--n];
  double lo = 0.0;
  // Add partials from the top until the sum is inexact.
  while (n > 0) {
    const double x = hi;
    const double y = partials_[--n];
    hi = x + y;
    lo = y - (hi - x);
    if (lo != 0.0) break;
  }
  // hi + lo is exact; if lo is exactly half an ulp of hi and the remaining partials push the same
  // way, round away from hi (the half-way case must not be decided by hi's parity alone).
  if (n > 0 && ((lo < 0.0 && partials_[n - 1] < 0.0) || (lo > 0.0 && partials_[n - 1] > 0.0))) {
    const double y = lo * 2.0;
    const double x = hi + y;
    if (y == x - hi) hi = x;
  }
  return hi;
}

namespace {

// v = sign * significand * 2^unit exactly (finite v).
struct Decomposed {
  std::int64_t significand;  // signed, |significand| < 2^24
  int unit;
};
Decomposed decompose(float v) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(v);
  const int field = int((u >> 23) & 0xffu);
  std::int64_t m = u & 0x7fffffu;
  int unit = -149;
  if (field != 0) {
    m |= 0x800000;
    unit = field - 150;
  }
  return {u >> 31 ? -m : m, unit};
}

}  // namespace

void LongAccumulator::add(float v) {
  if (!std::isfinite(v)) {
    nonFinite_ = true;
    return;
  }
  const Decomposed d = decompose(v);
  bins_[d.unit - kMinUnit] += d.significand;
}

void LongAccumulator::addProduct(float a, float b) {
  if (!std::isfinite(a) || !std::isfinite(b)) {
    nonFinite_ = true;
    return;
  }
  const Decomposed da = decompose(a), db = decompose(b);
  bins_[da.unit + db.unit - kMinUnit] += __int128(da.significand) * db.significand;
}

double LongAccumulator::value() const {
  if (nonFinite_) return std::nan("");
  ExactSum sum;
  for (int i = 0; i < kBins; ++i) {
    if (bins_[i] == 0) continue;
    const bool negative = bins_[i] < 0;
    unsigned __int128 m = negative ? -static_cast<unsigned __int128>(bins_[i])
                                   : static_cast<unsigned __int128>(bins_[i]);
    // 40-bit pieces are exact doubles; ExactSum adds them without loss.
    for (int shift = 0; m != 0; shift += 40, m >>= 40) {
      const double piece = std::ldexp(double(std::uint64_t(m & ((std::uint64_t(1) << 40) - 1))),
                                      i + kMinUnit + shift);
      sum.add(negative ? -piece : piece);
    }
  }
  return sum.value();
}

double exactSum(const double* values, std::size_t n) {
  ExactSum s;
  for (std::size_t i = 0; i < n; ++i) s.add(values[i]);
  return s.value();
}

double exactDot(const float* a, const float* b, std::size_t n) {
  LongAccumulator s;
  for (std::size_t i = 0; i < n; ++i) s.addProduct(a[i], b[i]);
  return s.value();
}

}  // namespace paritylab::playground
