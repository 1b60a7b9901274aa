// Two-way analysis of variance with interaction: y ~ A + B + A:B, a factor A (a swept
// hyperparameter: weight decay, batch size, learning rate) crossed with a factor B (the backend).
// The interaction row answers "does the backend change how the metric depends on the factor?".
// Type II or type III sums of squares (statsmodels anova_lm typ=2 / typ=3 with sum-to-zero
// contrasts, C(a, Sum) * C(b, Sum)); with equal cell sizes the two agree. Each sum of squares is
// the rise in the residual sum of squares when the effect's columns leave a least-squares fit of
// the effect-coded design (Eigen's column-pivoting QR).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/stats/t_test.h"

namespace paritylab::stats {

enum class SumsOfSquares {
  TypeII,   // each main effect adjusted for the other, the interaction for both
  TypeIII,  // each effect adjusted for every other (interaction included), sum-to-zero coding
};

struct FactorialObservation {
  std::size_t a = 0, b = 0;  // level indices, < levelsA and < levelsB
  double y = 0.0;
};

struct AnovaRow {
  std::string effect;  // "A", "B", "A:B", "residual" (the names given)
  double sumOfSquares = 0.0;
  double df = 0.0;
  double meanSquare = 0.0;
  double f = 0.0;        // NaN for the residual
  double p_value = 0.0;  // P(F(df, df_residual) >= f); NaN for the residual
};

struct TwoWayAnovaResult {
  SumsOfSquares type = SumsOfSquares::TypeII;
  std::size_t n = 0;
  std::size_t levelsA = 0, levelsB = 0;
  bool balanced = true;        // every cell holds as many observations
  std::vector<AnovaRow> rows;  // A, B, A:B, residual
  const AnovaRow& interaction() const { return rows[2]; }
};

// `observations`: every cell (a, b) holds at least one, at least one cell two (a residual
// degree of freedom), every y finite; levelsA, levelsB >= 2. Throws std::invalid_argument
// naming the empty cell or what else is wrong.
TwoWayAnovaResult twoWayAnova(const std::vector<FactorialObservation>& observations,
                              std::size_t levelsA, std::size_t levelsB, SumsOfSquares type,
                              const std::string& nameA = "A", const std::string& nameB = "B");

// The backend difference at one level of the factor: B level `b1` against level `b0` within the
// cells of A level `levelA` (Welch's t-test, two-sided), its p-value Holm-adjusted over the
// factor's levels.
struct SimpleEffect {
  std::size_t levelA = 0;
  TTestResult test;       // mean_diff = mean(b1) - mean(b0) at this level, with its CI
  double p_holm = 0.0;    // Holm-adjusted over the levels tested
  bool rejected = false;  // p_holm <= alpha
};

// One per level of A, in order. Every cell (a, b0) and (a, b1) needs 2 finite values (throws
// std::invalid_argument naming the cell otherwise); b0 != b1.
std::vector<SimpleEffect> simpleEffects(const std::vector<FactorialObservation>& observations,
                                        std::size_t levelsA, std::size_t b0, std::size_t b1,
                                        double alpha = 0.05);

}  // namespace paritylab::stats
