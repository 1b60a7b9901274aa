// Is backend B's curve where backend A's seeds put it, at every sampled step at once? A
// simultaneous (sup-t) band for the difference of the two backends' mean curves, calibrated by
// permuting the seeds' curves between the backends, so that the chance of any false exit over
// all steps together is at most alpha (a pointwise band, one test per step, would cry wolf
// somewhere over 2,000 steps). docs/curve-equivalence.md gives the reasoning.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace paritylab::stats {

struct CurveBandResult {
  double alpha = 0.05;
  // Per sampled step [steps]: the two backends' mean curves and the band's half-width, so that
  // B's mean is inside when |meanB - meanA| <= halfWidth (meanA +- halfWidth: where B's mean may
  // lie if B trained like A).
  std::vector<double> meanA, meanB, halfWidth;
  // t(s) = (meanB - meanA) / sqrt(varA / nA + varB / nB) at each step (0 where both are equal
  // and neither varies; +-inf where only the means differ).
  std::vector<double> t;
  // c: the band's multiplier, the ceil((1 - alpha) K)-th smallest of the K permuted max |t(s)|.
  double criticalValue = 0.0;
  // Index of the first step with |t| > c (beyond rounding: ties are not exits); none when the
  // band cannot be left (canExit false).
  std::optional<std::size_t> firstExit;
  double fractionOutside = 0.0;  // of the steps
  double pValue = 1.0;           // share of the permutations whose max |t| reaches the observed one
  int permutations = 0;          // K (the observed assignment included)
  bool exhaustive = false;       // every assignment of the curves enumerated (else a seeded sample)
  // false when no observed curve could ever leave the band at this alpha: too few seeds
  // (c is then the largest permuted max |t|).
  bool canExit = true;
};

// a [nA][steps], b [nB][steps]: each seed's curve at the same sampled steps, nA, nB >= 2,
// every curve as long as the first, finite values; alpha in (0, 0.5). Enumerates every way of
// choosing nA of the nA + nB curves when there are at most maxPermutations, else draws
// maxPermutations - 1 of them at random (seeded) besides the observed one. Throws
// std::invalid_argument naming what is wrong.
CurveBandResult simultaneousCurveBand(const std::vector<std::vector<double>>& a,
                                      const std::vector<std::vector<double>>& b,
                                      double alpha = 0.05, std::uint64_t seed = 0,
                                      int maxPermutations = 5000);

}  // namespace paritylab::stats
