#pragma once
// Exact summation of doubles: Shewchuk's non-overlapping expansion (the algorithm of Python's
// math.fsum). The running sum is kept exactly as a short list of partials whose sum is the exact
// real sum; value() rounds it once, correctly (nearest-even). Finite inputs whose sum stays below
// the overflow threshold only.

#include <cstddef>
#include <vector>

namespace paritylab::playground {

class ExactSum {
 public:
  void add(double x);
  // The exact sum rounded to the nearest double (ties to even).
  double value() const;
  // The partials: non-overlapping, increasing magnitude; their real sum is the exact sum.
  const std::vector<double>& partials() const { return partials_; }

 private:
  std::vector<double> partials_;
};

// A long accumulator for fp32 values and exact products of fp32 values: one 128-bit integer bin
// per binary exponent of the significands' unit in the last place, so every add() is an exact
// integer addition (no rounding, no order dependence); value() folds the bins through ExactSum.
// Exact for up to 2^70 additions. Non-finite inputs make value() NaN.
class LongAccumulator {
 public:
  void add(float v);
  void addProduct(float a, float b);  // a * b exactly (24 x 24 significand bits)
  double value() const;

 private:
  static constexpr int kMinUnit = -298;  // unit of a product of two smallest subnormals
  static constexpr int kBins = 104 + 104 - kMinUnit + 1;
  __int128 bins_[kBins] = {};
  bool nonFinite_ = false;
};

// The exact sum of values[0..n), correctly rounded to a double.
double exactSum(const double* values, std::size_t n);
// The exact dot product of fp32 vectors (a LongAccumulator of the exact products), correctly
// rounded to a double.
double exactDot(const float* a, const float* b, std::size_t n);

}  // namespace paritylab::playground
