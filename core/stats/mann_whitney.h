// Mann-Whitney U (Wilcoxon rank-sum) test, as scipy.stats.mannwhitneyu in SciPy 1.10 with its
// defaults (use_continuity = true, method = 'auto').
#pragma once

#include <cstddef>
#include <span>

#include "core/stats/tail.h"

namespace paritylab::stats {

enum class MannWhitneyMethod {
  Auto,   // SciPy 1.10 rule: Exact if min(n_a, n_b) <= 8 and there are no ties, else Asymptotic
          // (also Asymptotic when Exact is not feasible, see mannWhitneyExactFeasible)
  Exact,  // exact null distribution of U (no tie correction); throws if not feasible
  Asymptotic,  // normal approximation with tie correction (+ continuity correction if asked)
};

struct MannWhitneyResult {
  Tail tail = Tail::TwoSided;
  MannWhitneyMethod method = MannWhitneyMethod::Exact;  // the method actually used (never Auto)
  std::size_t n_a = 0, n_b = 0;
  double u = 0.0;    // U of sample a: R_a - n_a (n_a + 1) / 2 (SciPy's statistic; ties count 1/2)
  double u_b = 0.0;  // n_a n_b - u
  double z = 0.0;    // standardized statistic used for the p-value (Asymptotic only, else NaN)
  double p_value = 0.0;
  bool ties = false;  // any tied values in the pooled sample
  // Rank-biserial correlation 2 u / (n_a n_b) - 1 = P(a > b) - P(a < b), in [-1, 1];
  // positive when a tends to be larger.
  double rank_biserial = 0.0;
};

// a, b: at least 1 finite value each (throws std::invalid_argument otherwise). Tail::Less means
// a is stochastically smaller than b. continuity applies to the asymptotic method only.
MannWhitneyResult mannWhitneyU(std::span<const double> a, std::span<const double> b,
                               Tail tail = Tail::TwoSided,
                               MannWhitneyMethod method = MannWhitneyMethod::Auto,
                               bool continuity = true);

// Whether the exact distribution is computed for these sizes (n_a n_b <= 2e6 and C(n_a + n_b, n_a)
// < 2^126): e.g. 8 x 100000 and 60 x 60 are, 8 x 250000 and 70 x 70 are not.
bool mannWhitneyExactFeasible(std::size_t n_a, std::size_t n_b);

// P(U <= k) under H0 for sample sizes m, n (no ties), computed exactly with integer counts.
double mannWhitneyExactCdf(long long k, std::size_t m, std::size_t n);

}  // namespace paritylab::stats
