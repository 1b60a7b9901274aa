#include "core/stats/descriptive.h"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "core/stats/sample_checks.h"

namespace paritylab::stats {

double mean(std::span<const double> x) {
  // Two-pass: a first mean, then the mean of the residuals corrects its rounding error.
  double s = 0.0;
  for (double v : x) s += v;
  const double m = s / static_cast<double>(x.size());
  double r = 0.0;
  for (double v : x) r += v - m;
  return m + r / static_cast<double>(x.size());
}

double sampleVariance(std::span<const double> x) {
  if (x.size() < 2) return std::numeric_limits<double>::quiet_NaN();
  const double m = mean(x);
  double ss = 0.0, c = 0.0;
  for (double v : x) {
    ss += (v - m) * (v - m);
    c += v - m;
  }
  const double n = static_cast<double>(x.size());
  return (ss - c * c / n) / (n - 1.0);  // corrected two-pass algorithm
}

Summary summarize(std::span<const double> x, double alpha) {
  detail::requireSample("summarize", "x", x, 1);
  detail::requireAlpha("summarize", alpha);
  Summary s;
  s.n = x.size();
  s.alpha = alpha;
  s.mean = mean(x);
  s.variance = sampleVariance(x);
  s.sd = std::sqrt(s.variance);
  s.sem = s.sd / std::sqrt(static_cast<double>(s.n));
  std::vector<double> sorted(x.begin(), x.end());
  std::sort(sorted.begin(), sorted.end());
  s.min = sorted.front();
  s.max = sorted.back();
  const std::size_t mid = s.n / 2;
  s.median = (s.n % 2 == 1) ? sorted[mid] : 0.5 * (sorted[mid - 1] + sorted[mid]);
  if (s.n >= 2) {
    const boost::math::students_t dist(static_cast<double>(s.n - 1));
    const double q = boost::math::quantile(boost::math::complement(dist, alpha / 2.0));
    s.ci_low = s.mean - q * s.sem;
    s.ci_high = s.mean + q * s.sem;
  } else {
    s.ci_low = s.ci_high = std::numeric_limits<double>::quiet_NaN();
  }
  return s;
}

}  // namespace paritylab::stats
