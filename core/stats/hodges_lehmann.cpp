#include "core/stats/hodges_lehmann.h"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/stats/mann_whitney.h"
#include "core/stats/paired_tests.h"
#include "core/stats/sample_checks.h"

namespace paritylab::stats {
namespace {

constexpr std::size_t kExactBelow = 50;  // R's wilcox.test: exact when both samples are smaller

bool anyTies(std::span<const double> a, std::span<const double> b, double& tie_term) {
  std::vector<double> pooled(a.begin(), a.end());
  pooled.insert(pooled.end(), b.begin(), b.end());
  std::sort(pooled.begin(), pooled.end());
  tie_term = 0.0;
  bool ties = false;
  for (std::size_t start = 0; start < pooled.size();) {
    std::size_t end = start + 1;
    while (end < pooled.size() && pooled[end] == pooled[start]) ++end;
    const double t = static_cast<double>(end - start);
    tie_term += t * t * t - t;
    ties = ties || end - start > 1;
    start = end;
  }
  return ties;
}

// Smallest q in [0, m n] with cdf(q) >= p (cdf non-decreasing, cdf(m n) = 1).
template <class Cdf>
long long smallestQuantile(const Cdf& cdf, double p, long long mn) {
  long long lo = -1, hi = mn;  // cdf(lo) < p <= cdf(hi)
  while (hi - lo > 1) {
    const long long mid = lo + (hi - lo) / 2;
    if (cdf(mid) >= p) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  return hi;
}

double sortedMedian(const std::vector<double>& sorted) {
  const std::size_t count = sorted.size();
  return count % 2 == 1 ? sorted[count / 2] : 0.5 * (sorted[count / 2 - 1] + sorted[count / 2]);
}

// Fills k, the bounds and the achieved confidence from the sorted statistics (differences or
// Walsh averages) and the null cdf of the matching rank statistic.
template <class Cdf>
void orderStatisticInterval(const std::vector<double>& sorted, const Cdf& cdf,
                            HodgesLehmannResult& r) {
  const double tail_alpha = r.tail == Tail::TwoSided ? r.alpha / 2.0 : r.alpha;
  const std::size_t count = sorted.size();
  const long long k =
      std::max<long long>(1, smallestQuantile(cdf, tail_alpha, static_cast<long long>(count)));
  r.k = static_cast<std::size_t>(k);
  const double below = cdf(k - 1);  // the probability that one bound misses
  const double inf = std::numeric_limits<double>::infinity();
  r.ci_low = r.tail == Tail::Less ? -inf : sorted[r.k - 1];
  r.ci_high = r.tail == Tail::Greater ? inf : sorted[count - r.k];
  r.achieved_confidence = 1.0 - (r.tail == Tail::TwoSided ? 2.0 : 1.0) * below;
}

double normalCdf(double x) {
  return boost::math::cdf(boost::math::normal(), x);
}

}  // namespace

HodgesLehmannResult hodgesLehmann(std::span<const double> a, std::span<const double> b, Tail tail,
                                  double alpha) {
  const char* fn = "hodgesLehmann";
  detail::requireSample(fn, "a", a, 1);
  detail::requireSample(fn, "b", b, 1);
  detail::requireAlpha(fn, alpha);
  HodgesLehmannResult r;
  r.tail = tail;
  r.alpha = alpha;
  r.n_a = a.size();
  r.n_b = b.size();

  std::vector<double> diffs;
  diffs.reserve(r.n_a * r.n_b);
  for (double x : a)
    for (double y : b) diffs.push_back(x - y);
  std::sort(diffs.begin(), diffs.end());
  r.estimate = sortedMedian(diffs);

  double tie_term = 0.0;
  const bool ties = anyTies(a, b, tie_term);
  r.exact = !ties && r.n_a < kExactBelow && r.n_b < kExactBelow;
  const double na = static_cast<double>(r.n_a), nb = static_cast<double>(r.n_b);
  const double n = na + nb;
  const double sigma =
      n > 1.0 ? std::sqrt(na * nb / 12.0 * ((n + 1.0) - tie_term / (n * (n - 1.0)))) : 0.0;
  auto cdf = [&](long long q) {
    if (r.exact) return mannWhitneyExactCdf(q, r.n_a, r.n_b);
    if (q < 0) return 0.0;
    if (!(sigma > 0.0)) return 1.0;  // every value tied: U is constant at m n / 2
    return normalCdf((static_cast<double>(q) + 0.5 - na * nb / 2.0) / sigma);
  };
  orderStatisticInterval(diffs, cdf, r);
  return r;
}

HodgesLehmannResult pairedHodgesLehmann(std::span<const double> a, std::span<const double> b,
                                        Tail tail, double alpha) {
  const char* fn = "pairedHodgesLehmann";
  detail::requireSample(fn, "a", a, 1);
  detail::requireSample(fn, "b", b, 1);
  detail::requireAlpha(fn, alpha);
  if (a.size() != b.size()) {
    throw std::invalid_argument(std::string(fn) + ": paired samples differ in size (a has " +
                                std::to_string(a.size()) + " values, b has " +
                                std::to_string(b.size()) + ")");
  }
  std::vector<double> d;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) d.push_back(a[i] - b[i]);  // zero differences are dropped, as R does
  if (d.empty()) throw std::invalid_argument(std::string(fn) + ": every paired difference is zero");
  HodgesLehmannResult r;
  r.tail = tail;
  r.alpha = alpha;
  r.n_a = r.n_b = d.size();
  std::vector<double> walsh;  // (d_i + d_j) / 2 for i <= j
  walsh.reserve(d.size() * (d.size() + 1) / 2);
  for (std::size_t i = 0; i < d.size(); ++i)
    for (std::size_t j = i; j < d.size(); ++j) walsh.push_back(0.5 * (d[i] + d[j]));
  std::sort(walsh.begin(), walsh.end());
  r.estimate = sortedMedian(walsh);

  // Ties among |d| (the signed-rank statistic's ties) decide exact vs normal, as R.
  std::vector<double> magnitude(d.size());
  for (std::size_t i = 0; i < d.size(); ++i) magnitude[i] = std::fabs(d[i]);
  std::sort(magnitude.begin(), magnitude.end());
  double tie_term = 0.0;
  bool ties = false;
  for (std::size_t start = 0; start < magnitude.size();) {
    std::size_t end = start + 1;
    while (end < magnitude.size() && magnitude[end] == magnitude[start]) ++end;
    const double t = static_cast<double>(end - start);
    tie_term += t * t * t - t;
    ties = ties || end - start > 1;
    start = end;
  }
  const bool dropped_zeros = d.size() < a.size();
  r.exact = !ties && !dropped_zeros && d.size() < kExactBelow;
  const double n = static_cast<double>(d.size());
  const double half = n * (n + 1.0) / 4.0;
  const double sigma = std::sqrt(n * (n + 1.0) * (2.0 * n + 1.0) / 24.0 - tie_term / 48.0);
  auto cdf = [&](long long q) {
    if (r.exact) return wilcoxonExactCdf(q, d.size());
    if (q < 0) return 0.0;
    return normalCdf((static_cast<double>(q) + 0.5 - half) / sigma);
  };
  orderStatisticInterval(walsh, cdf, r);
  return r;
}

}  // namespace paritylab::stats
