#include "core/stats/mann_whitney.h"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/stats/sample_checks.h"

namespace paritylab::stats {
namespace {

using u128 = unsigned __int128;

// The exact distribution keeps n_a n_b + 1 counts of 16 bytes: at most 32 MB.
constexpr std::size_t kMaxExactCells = 2'000'000;

// Counts c_k = #{arrangements with U = k}, k = 0..m n: the coefficients of the Gaussian binomial
// [m + n choose m]_q = prod_{i=1..m} (1 - q^{n+i}) / (1 - q^i). Arithmetic is modulo 2^128, which
// is exact because every final coefficient is below C(m + n, m) < 2^128 (checked by the caller);
// the negative intermediate values of the multiplication step just wrap around.
std::vector<u128> exactUCounts(std::size_t m, std::size_t n) {
  // After step i the array holds [n + i choose i]_q (degree i n); the intermediate product has
  // degree i n + i, and the division leaves exact zeros above i n.
  std::vector<u128> c(m * n + m + 1, 0);
  c[0] = 1;
  for (std::size_t i = 1; i <= m; ++i) {
    const std::size_t up = n + i;
    const std::size_t top = i * n + i;
    for (std::size_t k = top + 1; k-- > up;) c[k] -= c[k - up];  // times (1 - q^up)
    for (std::size_t k = i; k <= top; ++k) c[k] += c[k - i];     // divided by (1 - q^i)
  }
  c.resize(m * n + 1);
  return c;
}

bool binomialFits(std::size_t m, std::size_t n, u128& out) {
  u128 c = 1;
  for (std::size_t i = 1; i <= m; ++i) {
    u128 next;
    if (__builtin_mul_overflow(c, static_cast<u128>(n + i), &next)) return false;
    c = next / i;  // C(n+i, i) = C(n+i-1, i-1) (n+i) / i, exact
  }
  out = c;
  return (c >> 126) == 0;
}

double toDouble(u128 v) {
  const double hi = static_cast<double>(static_cast<unsigned long long>(v >> 64));
  const double lo = static_cast<double>(static_cast<unsigned long long>(v));
  return std::ldexp(hi, 64) + lo;
}

}  // namespace

bool mannWhitneyExactFeasible(std::size_t n_a, std::size_t n_b) {
  u128 total;
  return n_a * n_b <= kMaxExactCells && binomialFits(std::min(n_a, n_b), std::max(n_a, n_b), total);
}

double mannWhitneyExactCdf(long long k, std::size_t m, std::size_t n) {
  if (m > n) std::swap(m, n);  // the distribution is symmetric in (m, n)
  if (k < 0) return 0.0;
  if (static_cast<unsigned long long>(k) >= m * n) return 1.0;
  u128 total;
  if (!mannWhitneyExactFeasible(m, n) || !binomialFits(m, n, total)) {
    throw std::invalid_argument("mannWhitneyU: exact method for sample sizes " + std::to_string(m) +
                                " and " + std::to_string(n) +
                                " is too large; use the asymptotic method");
  }
  const std::vector<u128> c = exactUCounts(m, n);
  u128 below = 0;
  for (long long j = 0; j <= k; ++j) below += c[static_cast<std::size_t>(j)];
  return toDouble(below) / toDouble(total);
}

MannWhitneyResult mannWhitneyU(std::span<const double> a, std::span<const double> b, Tail tail,
                               MannWhitneyMethod method, bool continuity) {
  detail::requireSample("mannWhitneyU", "a", a, 1);
  detail::requireSample("mannWhitneyU", "b", b, 1);
  MannWhitneyResult r;
  r.tail = tail;
  r.n_a = a.size();
  r.n_b = b.size();
  const std::size_t total = r.n_a + r.n_b;

  // Average ranks of the pooled sample (1-based), the rank sum of a, and the tie term sum(t^3 - t).
  std::vector<double> pooled(a.begin(), a.end());
  pooled.insert(pooled.end(), b.begin(), b.end());
  std::vector<std::size_t> order(total);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(),
            [&](std::size_t i, std::size_t j) { return pooled[i] < pooled[j]; });
  double rank_sum_a = 0.0, tie_term = 0.0;
  for (std::size_t start = 0; start < total;) {
    std::size_t end = start + 1;
    while (end < total && pooled[order[end]] == pooled[order[start]]) ++end;
    const double t = static_cast<double>(end - start);
    const double avg_rank = 0.5 * static_cast<double>(start + 1 + end);
    for (std::size_t k = start; k < end; ++k) {
      if (order[k] < r.n_a) rank_sum_a += avg_rank;
    }
    tie_term += t * t * t - t;
    if (end - start > 1) r.ties = true;
    start = end;
  }
  const double na = static_cast<double>(r.n_a), nb = static_cast<double>(r.n_b);
  r.u = rank_sum_a - na * (na + 1.0) / 2.0;
  r.u_b = na * nb - r.u;
  r.rank_biserial = 2.0 * r.u / (na * nb) - 1.0;

  if (method == MannWhitneyMethod::Auto) {
    const bool small = r.n_a <= 8 || r.n_b <= 8;  // SciPy 1.10: asymptotic iff n1 > 8 and n2 > 8
    const bool exact = small && !r.ties && mannWhitneyExactFeasible(r.n_a, r.n_b);
    method = exact ? MannWhitneyMethod::Exact : MannWhitneyMethod::Asymptotic;
  }
  r.method = method;

  // As SciPy: the p-value is always an upper-tail probability of some U.
  double u_stat = r.u, factor = 1.0;
  if (tail == Tail::Less) u_stat = r.u_b;
  if (tail == Tail::TwoSided) u_stat = std::max(r.u, r.u_b), factor = 2.0;

  double p;
  if (method == MannWhitneyMethod::Exact) {
    r.z = std::numeric_limits<double>::quiet_NaN();
    // P(U >= u) = P(U <= m n - u) by symmetry; U is truncated to an integer as SciPy does.
    const long long k = static_cast<long long>(r.n_a * r.n_b) - static_cast<long long>(u_stat);
    p = mannWhitneyExactCdf(k, r.n_a, r.n_b);
  } else {
    const double n = static_cast<double>(total);
    const double s = std::sqrt(na * nb / 12.0 * ((n + 1.0) - tie_term / (n * (n - 1.0))));
    double numerator = u_stat - na * nb / 2.0;
    if (continuity) numerator -= 0.5;
    if (s > 0.0) {
      r.z = numerator / s;
      p = boost::math::cdf(boost::math::complement(boost::math::normal(), r.z));
    } else {  // every value tied (or n = 1 each): no evidence either way
      r.z = numerator == 0.0 ? std::numeric_limits<double>::quiet_NaN()
                             : std::copysign(std::numeric_limits<double>::infinity(), numerator);
      p = numerator <= 0.0 ? 1.0 : 0.0;
    }
  }
  r.p_value = std::clamp(p * factor, 0.0, 1.0);
  return r;
}

}  // namespace paritylab::stats
