// TOST (two one-sided tests) equivalence of two means within +-margin.
// Matches statsmodels.stats.weightstats.ttost_ind(a, b, -margin, +margin, usevar=...)
// with usevar = 'unequal' (Welch) or 'pooled' (Student).
#pragma once

#include <span>

#include "core/stats/tail.h"

namespace paritylab::stats {

struct TostResult {
  TTestKind kind = TTestKind::Welch;
  double alpha = 0.05;
  double margin = 0.0;  // equivalence bounds are [-margin, +margin] on mean_a - mean_b (same units)
  double mean_diff = 0.0;  // mean_a - mean_b
  double se = 0.0;
  double df = 0.0;
  double t_lower = 0.0;  // (mean_diff + margin) / se, H1: diff > -margin
  double p_lower = 0.0;
  double t_upper = 0.0;  // (mean_diff - margin) / se, H1: diff < +margin
  double p_upper = 0.0;
  double p_value = 0.0;     // max(p_lower, p_upper)
  bool equivalent = false;  // p_value < alpha
  double ci_low = 0.0;      // two-sided (1 - 2 alpha) CI of mean_diff; equivalent <=> it lies
  double ci_high = 0.0;     //   inside (-margin, +margin)
  bool defined = true;      // false when both samples have zero variance (then p/t/CI are NaN)
};

// a, b: at least 2 finite values each; margin finite and > 0; alpha in (0, 0.5).
TostResult tost(std::span<const double> a, std::span<const double> b, double margin,
                double alpha = 0.05, TTestKind kind = TTestKind::Welch);

}  // namespace paritylab::stats
