// Group-sequential designs: a study that looks at its data after each round of seeds and stops
// as soon as the answer is known, with the error rates held over the repeated looks by an
// alpha-spending function (Lan & DeMets 1983). The boundaries are those of the canonical joint
// normal distribution of the looks' statistics (Jennison & Turnbull 2000, ch. 2 and 19):
// Z_k = S_k / sqrt(t_k), S with independent normal increments, t_k the information fraction;
// computed by recursive numerical integration of the continuation sub-densities. A look's
// t-test is judged at the boundary's nominal p-value (the "nominal significance level" way of
// using normal-theory boundaries with t statistics; the simulation test measures what that
// keeps). docs/study-designs.md says why and what it costs.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "core/stats/tost.h"

namespace paritylab::stats {

enum class AlphaSpending {
  OBrienFleming,  // Lan-DeMets O'Brien-Fleming-like: 2 - 2 Phi(z_{1-alpha/2} / sqrt(t))
  Pocock,         // Lan-DeMets Pocock-like: alpha ln(1 + (e - 1) t)
};

// The type I error spent by information fraction t in [0, 1] (0 at 0, alpha at 1).
double alphaSpent(AlphaSpending spending, double alpha, double t);

// One-sided upper boundaries for looks at increasing information fractions t_1 < ... < t_K = 1:
// under H0, P(first crossing at look k) = alphaSpent(t_k) - alphaSpent(t_{k-1}).
struct SequentialBoundaries {
  std::vector<double> information;  // t_k
  std::vector<double> z;            // c_k: cross when Z_k >= c_k
  std::vector<double> nominalP;     // 1 - Phi(c_k): the one-sided p-value the look is judged at
  std::vector<double> spent;        // alphaSpent(t_k), cumulative
};

// information: increasing, in (0, 1], the last 1; alpha in (0, 0.5). Throws
// std::invalid_argument otherwise.
SequentialBoundaries oneSidedBoundaries(std::span<const double> information, double alpha,
                                        AlphaSpending spending = AlphaSpending::OBrienFleming);

// A sequential comparison of two backends: looks after every `lookEvery` seeds up to `maxSeeds`
// (and at maxSeeds itself); it stops when equivalence within +-margin is shown (TOST, each
// one-sided test at the equivalence boundary) or a difference is (Welch, two-sided, alpha/2 a
// side), each claim's type I error held at `alpha` over the looks.
struct SequentialDesign {
  double margin = 0.0;  // in the metric's units
  double alpha = 0.05;
  std::size_t maxSeeds = 20;
  std::size_t lookEvery = 5;
  std::size_t firstLook = 0;  // 0: lookEvery (at least 2 seeds)
  AlphaSpending spending = AlphaSpending::OBrienFleming;

  // The seeds per backend at each look, increasing, the last maxSeeds.
  std::vector<std::size_t> looks() const;
  SequentialBoundaries equivalenceBoundaries() const;  // one-sided alpha
  SequentialBoundaries differenceBoundaries() const;   // one-sided alpha / 2 (each side)
};

enum class SequentialDecision {
  Continue,     // neither shown: train the next round
  Equivalent,   // equivalence within the margin shown
  Different,    // a difference shown
  Inconclusive  // the last look, neither shown
};

// A design with its looks and boundaries, computed once.
struct SequentialPlan {
  SequentialDesign design;
  std::vector<std::size_t> looks;
  SequentialBoundaries equivalence, difference;
};
SequentialPlan planSequential(const SequentialDesign& design);

struct SequentialLook {
  std::size_t look = 0;   // 0-based
  std::size_t seeds = 0;  // per backend, as planned (the values may be fewer)
  TostResult tost;
  double pDifference = 0.0;   // Welch two-sided
  double equivalenceP = 0.0;  // the nominal one-sided p TOST's larger p must reach
  double differenceP = 0.0;   // the nominal two-sided p the Welch p must reach
  SequentialDecision decision = SequentialDecision::Continue;
};

// The look at `a`, `b`: the values of the runs at the look's seeds (plan.looks[look] per backend;
// fewer when runs diverged: at least 2 each). Throws std::invalid_argument when either has fewer
// than 2 or more than the look's seeds, or the look is out of range.
SequentialLook sequentialLook(std::span<const double> a, std::span<const double> b,
                              const SequentialPlan& plan, std::size_t look);

}  // namespace paritylab::stats
