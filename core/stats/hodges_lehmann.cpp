#include "core/stats/hodges_lehmann.h"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "core/stats/mann_whitney.h"
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
  const std::size_t count = diffs.size();
  r.estimate = count % 2 == 1 ? diffs[count / 2] : 0.5 * (diffs[count / 2 - 1] + diffs[count / 2]);

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
    return boost::math::cdf(boost::math::normal(), (q + 0.5 - na * nb / 2.0) / sigma);
  };
  const double tail_alpha = tail == Tail::TwoSided ? alpha / 2.0 : alpha;
  const long long mn = static_cast<long long>(count);
  const long long k = std::max<long long>(1, smallestQuantile(cdf, tail_alpha, mn));
  r.k = static_cast<std::size_t>(k);
  const double below = cdf(k - 1);  // P(U <= k - 1): the probability one bound misses
  const double inf = std::numeric_limits<double>::infinity();
  r.ci_low = tail == Tail::Less ? -inf : diffs[r.k - 1];
  r.ci_high = tail == Tail::Greater ? inf : diffs[count - r.k];
  r.achieved_confidence = 1.0 - (tail == Tail::TwoSided ? 2.0 : 1.0) * below;
  return r;
}

}  // namespace paritylab::stats
