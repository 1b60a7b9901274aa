#include "core/stats/tost.h"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <stdexcept>
#include <string>

#include "core/stats/sample_checks.h"
#include "core/stats/t_test.h"

namespace paritylab::stats {

TostResult tost(std::span<const double> a, std::span<const double> b, double margin, double alpha,
                TTestKind kind) {
  detail::requireSample("tost", "a", a, 2);
  detail::requireSample("tost", "b", b, 2);
  detail::requireAlpha("tost", alpha);
  if (alpha >= 0.5) {
    throw std::invalid_argument("tost: alpha = " + std::to_string(alpha) +
                                " must be below 0.5 (the CI has level 1 - 2 alpha)");
  }
  detail::requirePositive("tost", "margin", margin);

  const TTestResult t = tTest(a, b, kind, Tail::TwoSided, alpha);
  TostResult r;
  r.kind = kind;
  r.alpha = alpha;
  r.margin = margin;
  r.mean_diff = t.mean_diff;
  r.se = t.se;
  r.df = t.df;
  r.defined = t.defined;
  if (!t.defined) {
    r.t_lower = r.p_lower = r.t_upper = r.p_upper = r.p_value = r.ci_low = r.ci_high = t.t;
    return r;
  }
  r.t_lower = (t.mean_diff + margin) / t.se;
  r.p_lower = tTailProbability(r.t_lower, t.df, Tail::Greater);
  r.t_upper = (t.mean_diff - margin) / t.se;
  r.p_upper = tTailProbability(r.t_upper, t.df, Tail::Less);
  r.p_value = std::max(r.p_lower, r.p_upper);
  r.equivalent = r.p_value < alpha;
  const boost::math::students_t dist(t.df);
  const double q = boost::math::quantile(boost::math::complement(dist, alpha));
  r.ci_low = t.mean_diff - q * t.se;
  r.ci_high = t.mean_diff + q * t.se;
  return r;
}

}  // namespace paritylab::stats
