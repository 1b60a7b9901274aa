#include "core/stats/power.h"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>

#include "core/stats/noncentral_t.h"
#include "core/stats/sample_checks.h"

namespace paritylab::stats {
namespace {

void requireN(const char* function, std::size_t n) {
  if (n < 2) {
    throw std::invalid_argument(std::string(function) + ": n_per_group = " + std::to_string(n) +
                                " (at least 2 needed)");
  }
}

void requireTostAlpha(const char* function, double alpha) {
  detail::requireAlpha(function, alpha);
  if (alpha >= 0.5) {
    throw std::invalid_argument(std::string(function) + ": alpha = " + std::to_string(alpha) +
                                " must be below 0.5");
  }
}

double nctUpper(double x, double df, double nc) {
  return noncentralTUpper(x, df, nc);
}
double nctLower(double x, double df, double nc) {
  return noncentralTLower(x, df, nc);
}

double tUpperQuantile(double df, double p) {
  return boost::math::quantile(boost::math::complement(boost::math::students_t(df), p));
}

// Smallest n in [2, max_n] with power(n) >= target, assuming power is non-decreasing in n.
SampleSizeResult smallestN(const std::function<double(std::size_t)>& power, double target,
                           std::size_t max_n) {
  SampleSizeResult r;
  r.target_power = target;
  std::size_t lo = 1, hi = 2;  // invariant: power(lo) < target (lo = 1 is a sentinel)
  double p_hi = power(hi);
  while (p_hi < target) {
    if (hi >= max_n) {
      r.n_per_group = max_n;
      r.achieved_power = p_hi;
      r.reachable = false;
      return r;
    }
    lo = hi;
    hi = std::min(max_n, hi * 2);
    p_hi = power(hi);
  }
  while (hi - lo > 1) {
    const std::size_t mid = lo + (hi - lo) / 2;
    const double p_mid = power(mid);
    if (p_mid >= target) {
      hi = mid;
      p_hi = p_mid;
    } else {
      lo = mid;
    }
  }
  r.n_per_group = hi;
  r.achieved_power = p_hi;
  return r;
}

}  // namespace

double tTestPowerAt(double noncentrality, double df, double alpha, Tail tail) {
  const char* fn = "tTestPowerAt";
  detail::requireFinite(fn, "noncentrality", noncentrality);
  detail::requirePositive(fn, "df", df);
  detail::requireAlpha(fn, alpha);
  if (tail == Tail::TwoSided) {
    const double crit = tUpperQuantile(df, alpha / 2.0);
    return nctUpper(crit, df, noncentrality) + nctLower(-crit, df, noncentrality);
  }
  const double crit = tUpperQuantile(df, alpha);
  return tail == Tail::Greater ? nctUpper(crit, df, noncentrality)
                               : nctLower(-crit, df, noncentrality);
}

double tTestPower(std::size_t n_per_group, double delta, double sd, double alpha, Tail tail) {
  const char* fn = "tTestPower";
  requireN(fn, n_per_group);
  detail::requireFinite(fn, "delta", delta);
  detail::requirePositive(fn, "sd", sd);
  detail::requireAlpha(fn, alpha);
  const double n = static_cast<double>(n_per_group);
  const double nc = delta / sd * std::sqrt(n / 2.0);  // effect size * sqrt(n_a n_b / (n_a + n_b))
  return tTestPowerAt(nc, 2.0 * n - 2.0, alpha, tail);
}

SampleSizeResult tTestSampleSize(double delta, double sd, double target_power, double alpha,
                                 Tail tail, std::size_t max_n) {
  const char* fn = "tTestSampleSize";
  detail::requireFinite(fn, "delta", delta);
  detail::requirePositive(fn, "sd", sd);
  detail::requireAlpha(fn, alpha);
  detail::requireOpenUnit(fn, "target_power", target_power);
  requireN(fn, max_n);
  return smallestN([&](std::size_t n) { return tTestPower(n, delta, sd, alpha, tail); },
                   target_power, max_n);
}

double tostPower(std::size_t n_per_group, double true_diff, double sd, double margin,
                 double alpha) {
  const char* fn = "tostPower";
  requireN(fn, n_per_group);
  detail::requireFinite(fn, "true_diff", true_diff);
  detail::requirePositive(fn, "sd", sd);
  detail::requirePositive(fn, "margin", margin);
  requireTostAlpha(fn, alpha);
  const double n = static_cast<double>(n_per_group);
  const double df = 2.0 * n - 2.0;
  const double s = sd * std::sqrt(2.0 / n);
  const double crit = tUpperQuantile(df, alpha);
  const double pass_lower = nctUpper(crit, df, (true_diff + margin) / s);
  const double pass_upper = nctLower(-crit, df, (true_diff - margin) / s);
  return std::max(0.0, pass_lower + pass_upper - 1.0);
}

SampleSizeResult tostSampleSize(double true_diff, double sd, double margin, double target_power,
                                double alpha, std::size_t max_n) {
  const char* fn = "tostSampleSize";
  detail::requireFinite(fn, "true_diff", true_diff);
  detail::requirePositive(fn, "sd", sd);
  detail::requirePositive(fn, "margin", margin);
  requireTostAlpha(fn, alpha);
  detail::requireOpenUnit(fn, "target_power", target_power);
  requireN(fn, max_n);
  if (std::fabs(true_diff) >= margin) {  // TOST has level alpha there: power <= alpha for every n
    SampleSizeResult r;
    r.target_power = target_power;
    r.n_per_group = max_n;
    r.achieved_power = tostPower(max_n, true_diff, sd, margin, alpha);
    r.reachable = r.achieved_power >= target_power;
    return r;
  }
  return smallestN([&](std::size_t n) { return tostPower(n, true_diff, sd, margin, alpha); },
                   target_power, max_n);
}

}  // namespace paritylab::stats
