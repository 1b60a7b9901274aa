#include "core/stats/detectable_difference.h"

#include <boost/math/tools/toms748_solve.hpp>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "core/stats/sample_checks.h"

namespace paritylab::stats {
namespace {

void requireDefined(const char* function, const TTestResult& t) {
  if (t.n_a < 2 || t.n_b < 2) {
    throw std::invalid_argument(std::string(function) + ": groups of " + std::to_string(t.n_a) +
                                " and " + std::to_string(t.n_b) + " runs (at least 2 each needed)");
  }
  if (!t.defined || !(t.se > 0.0)) {
    throw std::invalid_argument(std::string(function) +
                                ": the test is undefined (zero variance in both groups)");
  }
}

}  // namespace

const char* detectableDesignNote(DetectableDesign design) {
  switch (design) {
    case DetectableDesign::Student:
      return "pooled SD, Student df";
    case DetectableDesign::Welch:
      return "Welch SD, noncentral t at Welch's df";
    case DetectableDesign::Paired:
      return "SD of the paired differences";
  }
  return "?";
}

double minimumDetectableEffectSize(double effective_n, double df, double alpha, double power,
                                   Tail tail) {
  const char* fn = "minimumDetectableEffectSize";
  detail::requirePositive(fn, "effective_n", effective_n);
  detail::requirePositive(fn, "df", df);
  detail::requireAlpha(fn, alpha);
  if (!(power > alpha && power < 1.0)) {
    throw std::invalid_argument(std::string(fn) + ": power = " + std::to_string(power) +
                                " must be above alpha = " + std::to_string(alpha) + " and below 1");
  }
  // Power in the tested direction as a function of es >= 0 (Less mirrors Greater).
  const Tail direction = tail == Tail::Less ? Tail::Greater : tail;
  const double root_n = std::sqrt(effective_n);
  auto shortfall = [&](double es) {
    return tTestPowerAt(es * root_n, df, alpha, direction) - power;
  };
  // Power rises from alpha at es = 0 towards 1: bracket the root by doubling, then TOMS 748.
  double low = 0.0, high = 1.0;
  while (shortfall(high) < 0.0) {
    low = high;
    high *= 2.0;
    if (high > 1e12) throw std::invalid_argument(std::string(fn) + ": power not reachable");
  }
  std::uintmax_t iterations = 200;
  const auto [a, b] = boost::math::tools::toms748_solve(
      shortfall, low, high, boost::math::tools::eps_tolerance<double>(50), iterations);
  return 0.5 * (a + b);
}

DetectableDifference minimumDetectableDifference(const TTestResult& t, double power) {
  const char* fn = "minimumDetectableDifference";
  requireDefined(fn, t);
  DetectableDifference d;
  d.design = t.kind == TTestKind::Welch ? DetectableDesign::Welch : DetectableDesign::Student;
  d.tail = t.tail;
  d.alpha = t.alpha;
  d.power = power;
  d.n_a = t.n_a;
  d.n_b = t.n_b;
  const double na = static_cast<double>(t.n_a), nb = static_cast<double>(t.n_b);
  const double effective_n = na * nb / (na + nb);  // 1 / (1/n_a + 1/n_b)
  if (t.kind == TTestKind::Welch) {
    d.sd = t.se * std::sqrt(effective_n);  // se = sd_w sqrt(1/n_a + 1/n_b)
    d.df = t.df;
  } else {
    d.sd = t.pooled_sd;
    d.df = na + nb - 2.0;
  }
  d.effect_size = minimumDetectableEffectSize(effective_n, d.df, t.alpha, power, t.tail);
  d.difference = d.effect_size * d.sd;
  return d;
}

DetectableDifference pairedMinimumDetectableDifference(std::size_t n_pairs, double sd_diff,
                                                       double alpha, double power, Tail tail) {
  const char* fn = "pairedMinimumDetectableDifference";
  if (n_pairs < 2) {
    throw std::invalid_argument(std::string(fn) + ": n_pairs = " + std::to_string(n_pairs) +
                                " (at least 2 needed)");
  }
  detail::requirePositive(fn, "sd_diff", sd_diff);
  DetectableDifference d;
  d.design = DetectableDesign::Paired;
  d.tail = tail;
  d.alpha = alpha;
  d.power = power;
  d.n_a = d.n_b = n_pairs;
  d.sd = sd_diff;
  const double n = static_cast<double>(n_pairs);
  d.df = n - 1.0;
  d.effect_size = minimumDetectableEffectSize(n, d.df, alpha, power, tail);
  d.difference = d.effect_size * d.sd;
  return d;
}

double planningSd(const TTestResult& t) {
  return t.kind == TTestKind::Welch ? std::sqrt(0.5 * (t.var_a + t.var_b)) : t.pooled_sd;
}

SampleSizeResult runsNeededForMargin(const TTestResult& t, double margin, double power,
                                     std::size_t max_n) {
  requireDefined("runsNeededForMargin", t);
  return tostSampleSize(0.0, planningSd(t), margin, power, t.alpha, max_n);
}

}  // namespace paritylab::stats
