// One-way ANOVA across k groups (e.g. the final accuracies of k backends): Welch's
// heteroscedastic F test and the classic equal-variance F test.
// Welch matches statsmodels.stats.oneway.anova_oneway(use_var='unequal'); classic matches
// scipy.stats.f_oneway.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace paritylab::stats {

enum class AnovaKind { Welch, Classic };

struct AnovaResult {
  AnovaKind kind = AnovaKind::Welch;
  std::size_t groups = 0;   // k
  std::size_t n_total = 0;  // sum of group sizes
  double f = 0.0;
  double df1 = 0.0;      // k - 1
  double df2 = 0.0;      // Welch: (k^2 - 1) / (3 sum_i (1 - w_i/W)^2 / (n_i - 1)); Classic: N - k
  double p_value = 0.0;  // P(F(df1, df2) >= f)
  // Classic only (NaN for Welch): between/within sums of squares.
  double ss_between = 0.0, ss_within = 0.0;
  bool defined = true;  // false when a needed variance is zero (Welch: any group; Classic: all)
};

// groups: at least 2, each with at least 2 finite values (throws std::invalid_argument otherwise).
AnovaResult welchAnova(std::span<const std::span<const double>> groups);
AnovaResult oneWayAnova(std::span<const std::span<const double>> groups);
// Convenience overloads.
AnovaResult welchAnova(const std::vector<std::vector<double>>& groups);
AnovaResult oneWayAnova(const std::vector<std::vector<double>>& groups);

}  // namespace paritylab::stats
