// Hodges-Lehmann shift estimate of two samples and its distribution-free confidence interval: the
// location difference that goes with the Mann-Whitney (Wilcoxon rank-sum) test, as R's
// wilcox.test(a, b, conf.int = TRUE) defines it.
//
// With D_(1) <= ... <= D_(m n) the sorted pairwise differences a_i - b_j:
//   estimate   the median of the D's;
//   two-sided  [D_(k), D_(m n + 1 - k)], k the smallest q with P(U <= q) >= alpha / 2 under H0
//              (R's qwilcox(alpha / 2, m, n)), and k = 1 when that q is 0;
//   Greater    [D_(k), +inf), k from alpha instead of alpha / 2;  Less  (-inf, D_(m n + 1 - k)].
// P(U <= q) is exact (no ties, both samples below 50 values, as R's default) or else the normal
// approximation with the tie-corrected variance and a continuity correction:
//   P(U <= q) ~ Phi((q + 0.5 - m n / 2) / sigma),
//   sigma^2 = m n / 12 ((N + 1) - sum(t^3 - t) / (N (N - 1))),  N = m + n,
// so k = ceil(m n / 2 - z sigma - 0.5) (R's asymptotic interval inverts the test numerically
// instead; both are distribution-free order-statistic intervals of the same level).
// The coverage reached by the integer k is reported (1 - 2 P(U <= k - 1) two-sided).
#pragma once

#include <cstddef>
#include <span>

#include "core/stats/tail.h"

namespace paritylab::stats {

struct HodgesLehmannResult {
  Tail tail = Tail::TwoSided;
  double alpha = 0.05;
  std::size_t n_a = 0, n_b = 0;
  bool exact = true;      // the critical value came from the exact null distribution of U
  double estimate = 0.0;  // median of a_i - b_j (units of the data)
  double ci_low = 0.0;    // -inf for Tail::Less
  double ci_high = 0.0;   // +inf for Tail::Greater
  std::size_t k = 0;      // the order statistic index (1-based) used for the bounds
  double achieved_confidence = 0.0;  // the level the integer k gives (>= 1 - alpha when exact)
};

// a, b: at least 1 finite value each (throws std::invalid_argument naming the sample otherwise);
// alpha in (0, 1). m n differences are formed and sorted: m n up to a few million is fine.
HodgesLehmannResult hodgesLehmann(std::span<const double> a, std::span<const double> b,
                                  Tail tail = Tail::TwoSided, double alpha = 0.05);

// The paired (one-sample) version on d_i = a_i - b_i, the CI that goes with the Wilcoxon
// signed-rank test (R's wilcox.test(a, b, paired = TRUE, conf.int = TRUE)): zero differences
// dropped; the estimate is the median of the n (n + 1) / 2 Walsh averages (d_i + d_j) / 2, i <= j,
// and the bounds are their order statistics k and n (n + 1) / 2 + 1 - k, k from the exact null
// distribution of R+ (no ties among |d|, no zeros, fewer than 50 pairs) or else its normal
// approximation with the tie-corrected variance n (n + 1)(2n + 1) / 24 - sum(t^3 - t) / 48 and a
// continuity correction. n_a = n_b = the pairs used. a, b: the same number of finite values, not
// all equal in pairs (std::invalid_argument otherwise).
HodgesLehmannResult pairedHodgesLehmann(std::span<const double> a, std::span<const double> b,
                                        Tail tail = Tail::TwoSided, double alpha = 0.05);

}  // namespace paritylab::stats
