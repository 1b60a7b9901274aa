#pragma once
// An independent reference for rounding: enumerates every finite value of a format (as doubles,
// from the format's definition, not from core/numerics), finds an input's two neighbours by binary
// search and applies each mode's rule in double arithmetic.
//
// Special encodings: IEEE (all-ones exponent = inf/NaN), OCP E4M3 (only S.1111.111 is NaN), the MX
// FP6/FP4 elements (every code finite: overflow and inf can only saturate, NaN stays NaN in fp32)
// and fnuz (every magnitude finite, one NaN, no negative zero: a zero result is +0).

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/numerics/rounding.h"

namespace paritylab::numerics::testing {

class FormatReference {
 public:
  explicit FormatReference(const FloatFormat& f) : format_(f) {
    const bool e4m3 = f.special == SpecialEncoding::FiniteOnlyE4M3;
    const bool ieee = f.special == SpecialEncoding::Ieee;
    const int topField = (1 << f.exponentBits) - 1;
    const int emin = 1 - f.bias;
    for (int field = 0; field <= topField; ++field) {
      for (long mant = 0; mant < (1L << f.mantissaBits); ++mant) {
        if (field == topField && ieee) break;                                        // inf/NaN
        if (field == topField && e4m3 && mant == (1L << f.mantissaBits) - 1) break;  // NaN
        const double v = field == 0 ? std::ldexp(static_cast<double>(mant), emin - f.mantissaBits)
                                    : std::ldexp(static_cast<double>(mant + (1L << f.mantissaBits)),
                                                 field - f.bias - f.mantissaBits);
        grid_.push_back(v);
      }
    }
    // The value one step above max finite, as if the exponent range went on (overflow threshold
    // = midpoint between max finite and this).
    const double maxFinite = grid_.back();
    grid_.push_back(maxFinite + std::ldexp(1.0, std::ilogb(maxFinite) - f.mantissaBits));
  }

  const std::vector<double>& grid() const { return grid_; }  // ascending, last one virtual
  double maxFinite() const { return grid_[grid_.size() - 2]; }
  double minNormal() const { return std::ldexp(1.0, 1 - format_.bias); }

  // The two neighbours lo <= |x| <= hi and lo's index in the grid.
  struct Neighbours {
    double lo, hi;
    std::size_t loIndex;
  };
  Neighbours neighbours(double magnitude) const {
    auto it = std::upper_bound(grid_.begin(), grid_.end() - 1, magnitude);
    const std::size_t loIndex = static_cast<std::size_t>(it - grid_.begin()) - 1;
    const double lo = grid_[loIndex];
    return {lo, lo == magnitude ? lo : grid_[loIndex + 1], loIndex};
  }

  // Deterministic modes only (stochastic: see neighbours()).
  double round(double x, const RoundingSpec& spec) const {
    const SpecialEncoding special = format_.special;
    const bool saturate = spec.overflow == OverflowMode::Saturate;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    if (std::isnan(x)) return nan;
    if (std::isinf(x)) {
      if (special == SpecialEncoding::Ieee) return x;
      if (special == SpecialEncoding::FiniteOnly) return std::copysign(maxFinite(), x);
      return saturate ? std::copysign(maxFinite(), x) : nan;  // E4M3, fnuz: NaN, no inf
    }
    const double a = std::fabs(x);
    if (spec.mode == RoundingMode::TowardZero) {
      // By definition: the largest representable magnitude not above |x| (never an overflow).
      double r = largestFiniteNotAbove(a);
      if (spec.subnormals == SubnormalMode::Flush && r < minNormal()) r = 0.0;
      return withSign(r, x);
    }
    if (a >= grid_.back()) return overflow(x, spec);  // at or past the virtual value
    const Neighbours n = neighbours(a);
    double r = n.lo;
    if (n.lo != a) {
      const double mid = (n.lo + n.hi) / 2;
      switch (spec.mode) {
        case RoundingMode::NearestEven:
          r = a < mid ? n.lo : a > mid ? n.hi : (n.loIndex % 2 == 0 ? n.lo : n.hi);
          break;
        default:  // NearestAway (toward-zero returned above)
          r = a < mid ? n.lo : n.hi;
          break;
      }
    }
    if (spec.subnormals == SubnormalMode::Flush && r < minNormal()) r = 0.0;
    if (r > maxFinite()) return overflow(x, spec);
    return withSign(r, x);
  }

 private:
  // The magnitude r with x's sign; fnuz has no negative zero.
  double withSign(double r, double x) const {
    if (r == 0.0 && format_.special == SpecialEncoding::Fnuz) return 0.0;
    return std::copysign(r, x);
  }

  // A round-to-nearest result past max finite.
  double overflow(double x, const RoundingSpec& spec) const {
    if (spec.overflow == OverflowMode::Saturate || format_.special == SpecialEncoding::FiniteOnly)
      return std::copysign(maxFinite(), x);
    if (format_.special != SpecialEncoding::Ieee) return std::numeric_limits<double>::quiet_NaN();
    return std::copysign(std::numeric_limits<double>::infinity(), x);
  }

  // The largest finite value (the virtual one excluded) not above the magnitude.
  double largestFiniteNotAbove(double magnitude) const {
    const auto finiteEnd = grid_.end() - 1;
    return *(std::upper_bound(grid_.begin(), finiteEnd, magnitude) - 1);
  }

  FloatFormat format_;
  std::vector<double> grid_;
};

}  // namespace paritylab::numerics::testing
