#include "core/stats/t_test.h"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <cmath>
#include <limits>

#include "core/stats/descriptive.h"
#include "core/stats/sample_checks.h"

namespace paritylab::stats {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

double hedgesCorrection(double df) {
  // J = Gamma(df/2) / (sqrt(df/2) * Gamma((df-1)/2)); the ratio avoids overflow for large df.
  return boost::math::tgamma_ratio(df / 2.0, (df - 1.0) / 2.0) / std::sqrt(df / 2.0);
}

double tTailProbability(double t, double df, Tail tail) {
  if (std::isnan(t)) return kNaN;
  if (std::isinf(t)) {
    switch (tail) {
      case Tail::TwoSided:
        return 0.0;
      case Tail::Less:
        return t < 0 ? 0.0 : 1.0;
      case Tail::Greater:
        return t > 0 ? 0.0 : 1.0;
    }
  }
  const boost::math::students_t dist(df);
  switch (tail) {
    case Tail::TwoSided:
      return std::min(1.0, 2.0 * boost::math::cdf(boost::math::complement(dist, std::fabs(t))));
    case Tail::Less:
      return boost::math::cdf(dist, t);
    case Tail::Greater:
      return boost::math::cdf(boost::math::complement(dist, t));
  }
  return kNaN;
}

TTestResult tTest(std::span<const double> a, std::span<const double> b, TTestKind kind, Tail tail,
                  double alpha) {
  detail::requireSample("tTest", "a", a, 2);
  detail::requireSample("tTest", "b", b, 2);
  detail::requireAlpha("tTest", alpha);

  TTestResult r;
  r.kind = kind;
  r.tail = tail;
  r.alpha = alpha;
  r.n_a = a.size();
  r.n_b = b.size();
  const double na = static_cast<double>(r.n_a), nb = static_cast<double>(r.n_b);
  r.mean_a = mean(a);
  r.mean_b = mean(b);
  r.var_a = sampleVariance(a);
  r.var_b = sampleVariance(b);
  r.sd_a = std::sqrt(r.var_a);
  r.sd_b = std::sqrt(r.var_b);
  r.mean_diff = r.mean_a - r.mean_b;

  const double pooled_df = na + nb - 2.0;
  const double pooled_var = ((na - 1.0) * r.var_a + (nb - 1.0) * r.var_b) / pooled_df;
  r.pooled_sd = std::sqrt(pooled_var);
  if (kind == TTestKind::Welch) {
    const double qa = r.var_a / na, qb = r.var_b / nb;
    r.se = std::sqrt(qa + qb);
    r.df = (qa + qb) * (qa + qb) / (qa * qa / (na - 1.0) + qb * qb / (nb - 1.0));
  } else {
    r.se = std::sqrt(pooled_var * (1.0 / na + 1.0 / nb));
    r.df = pooled_df;
  }

  r.hedges_j = hedgesCorrection(pooled_df);
  if (r.var_a == 0.0 && r.var_b == 0.0) {
    r.defined = false;
    r.df = pooled_df;  // Welch's df is 0/0 here; report the pooled one
    r.t = r.p_value = r.ci_low = r.ci_high = r.cohens_d = r.hedges_g = kNaN;
    return r;
  }

  r.t = r.mean_diff / r.se;
  r.p_value = tTailProbability(r.t, r.df, tail);
  const boost::math::students_t dist(r.df);
  const double level = tail == Tail::TwoSided ? alpha / 2.0 : alpha;
  const double q = boost::math::quantile(boost::math::complement(dist, level));
  r.ci_low = tail == Tail::Less ? -kInf : r.mean_diff - q * r.se;
  r.ci_high = tail == Tail::Greater ? kInf : r.mean_diff + q * r.se;
  r.cohens_d = r.mean_diff / r.pooled_sd;
  r.hedges_g = r.hedges_j * r.cohens_d;
  return r;
}

}  // namespace paritylab::stats
