#include "core/stats/noncentral_t.h"

#include <algorithm>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/non_central_t.hpp>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <cmath>

namespace paritylab::stats {
namespace {

constexpr double kBoostMaxNc = 1e4;  // well inside Boost's working range

}  // namespace

double noncentralTByIntegration(double x, double df, double nc, bool upper) {
  // Integrate over s = sqrt(V / df) (density 2 df s chi2pdf(df s^2)): smooth at s = 0, unlike
  // the integrand in V, which has a square-root kink there.
  const boost::math::chi_squared chi2(df);
  const double sign = upper ? -1.0 : 1.0;
  // log of the constant in 2 df s chi2pdf(df s^2) = 2 df s (df s^2)^(df/2 - 1) e^(-df s^2 / 2)
  //                                                  / (2^(df/2) Gamma(df/2))
  const double log_norm = std::log(2.0 * df) - 0.5 * df * std::log(2.0) - std::lgamma(0.5 * df);
  auto integrand = [&](double s) {
    if (s <= 0.0) return 0.0;
    const double z = sign * (x * s - nc);
    const double phi = 0.5 * std::erfc(-z / std::sqrt(2.0));  // Phi(z), accurate in both tails
    const double v = df * s * s;
    return std::exp(log_norm + std::log(s) + (0.5 * df - 1.0) * std::log(v) - 0.5 * v) * phi;
  };
  // Outside the chi2 quantiles 1e-40 .. 1 - 1e-40 nothing matters; split at the bulk so the
  // adaptive rule sees each region's scale.
  auto at = [&](double v) { return std::sqrt(v / df); };
  const double cuts[] = {
      at(boost::math::quantile(chi2, 1e-40)),
      at(boost::math::quantile(chi2, 1e-8)),
      at(boost::math::quantile(chi2, 0.5)),
      at(boost::math::quantile(boost::math::complement(chi2, 1e-8))),
      at(boost::math::quantile(boost::math::complement(chi2, 1e-40))),
  };
  double total = 0.0;
  for (int i = 0; i + 1 < 5; ++i) {
    total += boost::math::quadrature::gauss_kronrod<double, 61>::integrate(integrand, cuts[i],
                                                                           cuts[i + 1], 6, 1e-14);
  }
  return std::clamp(total, 0.0, 1.0);
}

double noncentralTUpper(double x, double df, double nc) {
  if (std::fabs(nc) > kBoostMaxNc) return noncentralTByIntegration(x, df, nc, true);
  return boost::math::cdf(boost::math::complement(boost::math::non_central_t(df, nc), x));
}

double noncentralTLower(double x, double df, double nc) {
  if (std::fabs(nc) > kBoostMaxNc) return noncentralTByIntegration(x, df, nc, false);
  return boost::math::cdf(boost::math::non_central_t(df, nc), x);
}

}  // namespace paritylab::stats
