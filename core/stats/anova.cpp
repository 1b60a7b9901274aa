#include "core/stats/anova.h"

#include <boost/math/distributions/fisher_f.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "core/stats/descriptive.h"
#include "core/stats/sample_checks.h"

namespace paritylab::stats {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void validate(const char* function, std::span<const std::span<const double>> groups) {
  if (groups.size() < 2) {
    throw std::invalid_argument(std::string(function) + ": " + std::to_string(groups.size()) +
                                " group(s) given (at least 2 needed)");
  }
  for (std::size_t g = 0; g < groups.size(); ++g) {
    detail::requireSample(function, "group #" + std::to_string(g), groups[g], 2);
  }
}

double upperF(double f, double df1, double df2) {
  if (std::isnan(f)) return kNaN;
  if (std::isinf(f)) return 0.0;
  return boost::math::cdf(boost::math::complement(boost::math::fisher_f(df1, df2), f));
}

std::vector<std::span<const double>> spans(const std::vector<std::vector<double>>& groups) {
  return {groups.begin(), groups.end()};
}

}  // namespace

AnovaResult welchAnova(std::span<const std::span<const double>> groups) {
  validate("welchAnova", groups);
  AnovaResult r;
  r.kind = AnovaKind::Welch;
  r.groups = groups.size();
  const double k = static_cast<double>(r.groups);
  r.df1 = k - 1.0;
  r.ss_between = r.ss_within = kNaN;
  std::vector<double> n(r.groups), m(r.groups), w(r.groups);
  double w_sum = 0.0;
  for (std::size_t g = 0; g < r.groups; ++g) {
    r.n_total += groups[g].size();
    n[g] = static_cast<double>(groups[g].size());
    m[g] = mean(groups[g]);
    const double v = sampleVariance(groups[g]);
    if (v == 0.0) r.defined = false;
    w[g] = n[g] / v;  // weight = 1 / (squared standard error of the group mean)
    w_sum += w[g];
  }
  if (!r.defined) {
    r.f = r.df2 = r.p_value = kNaN;
    return r;
  }
  double grand = 0.0;
  for (std::size_t g = 0; g < r.groups; ++g) grand += w[g] * m[g];
  grand /= w_sum;
  double between = 0.0, lambda = 0.0;
  for (std::size_t g = 0; g < r.groups; ++g) {
    between += w[g] * (m[g] - grand) * (m[g] - grand);
    const double h = 1.0 - w[g] / w_sum;
    lambda += h * h / (n[g] - 1.0);
  }
  r.f = (between / (k - 1.0)) / (1.0 + 2.0 * (k - 2.0) / (k * k - 1.0) * lambda);
  r.df2 = (k * k - 1.0) / (3.0 * lambda);
  r.p_value = upperF(r.f, r.df1, r.df2);
  return r;
}

AnovaResult oneWayAnova(std::span<const std::span<const double>> groups) {
  validate("oneWayAnova", groups);
  AnovaResult r;
  r.kind = AnovaKind::Classic;
  r.groups = groups.size();
  double grand_sum = 0.0;
  for (auto g : groups) {
    r.n_total += g.size();
    for (double v : g) grand_sum += v;
  }
  const double grand = grand_sum / static_cast<double>(r.n_total);
  for (auto g : groups) {
    const double m = mean(g);
    r.ss_between += static_cast<double>(g.size()) * (m - grand) * (m - grand);
    for (double v : g) r.ss_within += (v - m) * (v - m);
  }
  r.df1 = static_cast<double>(r.groups) - 1.0;
  r.df2 = static_cast<double>(r.n_total - r.groups);
  if (r.ss_within == 0.0) {
    r.defined = false;
    r.f = r.p_value = kNaN;
    return r;
  }
  r.f = (r.ss_between / r.df1) / (r.ss_within / r.df2);
  r.p_value = upperF(r.f, r.df1, r.df2);
  return r;
}

AnovaResult welchAnova(const std::vector<std::vector<double>>& groups) {
  const auto s = spans(groups);
  return welchAnova(std::span<const std::span<const double>>(s));
}

AnovaResult oneWayAnova(const std::vector<std::vector<double>>& groups) {
  const auto s = spans(groups);
  return oneWayAnova(std::span<const std::span<const double>>(s));
}

}  // namespace paritylab::stats
