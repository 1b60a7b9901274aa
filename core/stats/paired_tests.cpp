#include "core/stats/paired_tests.h"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/stats/descriptive.h"
#include "core/stats/sample_checks.h"
#include "core/stats/t_test.h"

namespace paritylab::stats {
namespace {

constexpr std::size_t kExactMax = 50;  // SciPy 1.10 'auto': exact for up to 50 differences

std::vector<double> differences(const char* function, std::span<const double> a,
                                std::span<const double> b, std::size_t min_count) {
  detail::requireSample(function, "a", a, min_count);
  detail::requireSample(function, "b", b, min_count);
  if (a.size() != b.size()) {
    throw std::invalid_argument(std::string(function) + ": paired samples differ in size (a has " +
                                std::to_string(a.size()) + " values, b has " +
                                std::to_string(b.size()) + ")");
  }
  std::vector<double> d(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) d[i] = a[i] - b[i];
  return d;
}

// Counts of subsets of {1..n} by their sum (the null distribution of R+ times 2^n).
std::vector<std::uint64_t> signedRankCounts(std::size_t n) {
  std::vector<std::uint64_t> c(n * (n + 1) / 2 + 1, 0);
  c[0] = 1;
  for (std::size_t rank = 1; rank <= n; ++rank) {
    const std::size_t top = rank * (rank + 1) / 2;
    for (std::size_t k = top; k >= rank; --k) c[k] += c[k - rank];
  }
  return c;
}

// {P(R+ <= k), P(R+ >= k)} under H0 for n untied non-zero differences, each summed from its own
// side so that small tail probabilities keep their precision.
std::pair<double, double> signedRankTails(long long k, std::size_t n) {
  if (n > 62) throw std::invalid_argument("wilcoxonExactCdf: n = " + std::to_string(n) + " > 62");
  const std::vector<std::uint64_t> c = signedRankCounts(n);
  const auto top = static_cast<long long>(c.size()) - 1;
  long double below = 0.0L, above = 0.0L;
  for (long long j = 0; j <= top; ++j) {
    const auto count = static_cast<long double>(c[static_cast<std::size_t>(j)]);
    if (j <= k) below += count;
    if (j >= k) above += count;
  }
  const long double total = std::ldexp(1.0L, static_cast<int>(n));
  return {static_cast<double>(below / total), static_cast<double>(above / total)};
}

}  // namespace

PairedTTestResult pairedTTest(std::span<const double> a, std::span<const double> b, Tail tail,
                              double alpha) {
  const char* fn = "pairedTTest";
  const std::vector<double> d = differences(fn, a, b, 2);
  detail::requireAlpha(fn, alpha);
  PairedTTestResult r;
  r.tail = tail;
  r.alpha = alpha;
  r.n = d.size();
  const double n = static_cast<double>(r.n);
  r.mean_diff = mean(d);
  r.sd_diff = std::sqrt(sampleVariance(d));
  r.se = r.sd_diff / std::sqrt(n);
  r.df = n - 1.0;
  if (!(r.se > 0.0)) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    r.defined = false;
    r.t = r.p_value = r.ci_low = r.ci_high = nan;
    return r;
  }
  r.t = r.mean_diff / r.se;
  r.p_value = tTailProbability(r.t, r.df, tail);
  const boost::math::students_t dist(r.df);
  const double inf = std::numeric_limits<double>::infinity();
  if (tail == Tail::TwoSided) {
    const double q = boost::math::quantile(boost::math::complement(dist, alpha / 2.0));
    r.ci_low = r.mean_diff - q * r.se;
    r.ci_high = r.mean_diff + q * r.se;
  } else {
    const double q = boost::math::quantile(boost::math::complement(dist, alpha));
    r.ci_low = tail == Tail::Greater ? r.mean_diff - q * r.se : -inf;
    r.ci_high = tail == Tail::Less ? r.mean_diff + q * r.se : inf;
  }
  return r;
}

double wilcoxonExactCdf(long long k, std::size_t n) {
  return signedRankTails(k, n).first;
}

WilcoxonResult wilcoxonSignedRank(std::span<const double> a, std::span<const double> b, Tail tail) {
  const char* fn = "wilcoxonSignedRank";
  std::vector<double> d = differences(fn, a, b, 1);
  WilcoxonResult r;
  r.tail = tail;
  r.n = d.size();
  r.zeros = static_cast<std::size_t>(std::count(d.begin(), d.end(), 0.0));
  r.exact = r.n <= kExactMax && r.zeros == 0;
  if (r.zeros == r.n) {
    throw std::invalid_argument(std::string(fn) +
                                ": every paired difference is zero (nothing to rank)");
  }
  if (!r.exact) d.erase(std::remove(d.begin(), d.end(), 0.0), d.end());
  r.n_used = d.size();

  // Average ranks of |d| (1-based) and the tie term sum(t^3 - t) over groups of equal |d|.
  std::vector<std::size_t> order(d.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(),
            [&](std::size_t i, std::size_t j) { return std::fabs(d[i]) < std::fabs(d[j]); });
  double tie_term = 0.0;
  for (std::size_t start = 0; start < order.size();) {
    std::size_t end = start + 1;
    while (end < order.size() && std::fabs(d[order[end]]) == std::fabs(d[order[start]])) ++end;
    const double avg_rank = 0.5 * static_cast<double>(start + 1 + end);
    for (std::size_t k = start; k < end; ++k) {
      if (d[order[k]] > 0.0) r.r_plus += avg_rank;
      if (d[order[k]] < 0.0) r.r_minus += avg_rank;
    }
    const double t = static_cast<double>(end - start);
    tie_term += t * t * t - t;
    start = end;
  }
  r.statistic = tail == Tail::TwoSided ? std::min(r.r_plus, r.r_minus) : r.r_plus;

  const double n = static_cast<double>(r.n_used);
  if (r.exact) {
    r.z = std::numeric_limits<double>::quiet_NaN();
    const auto k = static_cast<long long>(r.r_plus);  // SciPy: int(r_plus)
    const long long top = static_cast<long long>(r.n_used * (r.n_used + 1) / 2);
    const auto [p_less, p_greater] = signedRankTails(k, r.n_used);
    double p;
    if (tail == Tail::TwoSided) {
      p = k == top / 2 ? 1.0 : 2.0 * std::min(p_less, p_greater);
    } else {
      p = tail == Tail::Greater ? p_greater : p_less;
    }
    r.p_value = std::clamp(p, 0.0, 1.0);
    return r;
  }
  const double mean_r = n * (n + 1.0) * 0.25;
  const double se = std::sqrt((n * (n + 1.0) * (2.0 * n + 1.0) - 0.5 * tie_term) / 24.0);
  r.z = (r.statistic - mean_r) / se;
  const boost::math::normal normal;
  if (tail == Tail::TwoSided) {
    r.p_value = 2.0 * boost::math::cdf(boost::math::complement(normal, std::fabs(r.z)));
  } else if (tail == Tail::Greater) {
    r.p_value = boost::math::cdf(boost::math::complement(normal, r.z));
  } else {
    r.p_value = boost::math::cdf(normal, r.z);
  }
  r.p_value = std::clamp(r.p_value, 0.0, 1.0);
  return r;
}

}  // namespace paritylab::stats
