#include "core/stats/curve_band.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>

namespace paritylab::stats {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Relative slack for ties: max |t| of an assignment and of its mirror (A and B swapped, equal
// sizes) are equal in exact arithmetic but may differ in the last bits, as sums are formed
// differently; a difference that small is a tie, not an exit.
constexpr double kTie = 1e-9;

// Per step: sums and sums of squares of all curves, so that any split's means and variances
// come from the chosen curves' sums alone.
struct Sums {
  std::vector<double> sum, squares;
};

double tOf(double sumB, double sqB, int nB, double sumAll, double sqAll, int n,
           double* meanA = nullptr, double* meanB = nullptr, double* se = nullptr) {
  const int nA = n - nB;
  const double sumA = sumAll - sumB, sqA = sqAll - sqB;
  const double mA = sumA / nA, mB = sumB / nB;
  const double varA = std::max(0.0, (sqA - nA * mA * mA) / (nA - 1));
  const double varB = std::max(0.0, (sqB - nB * mB * mB) / (nB - 1));
  const double s = std::sqrt(varA / nA + varB / nB);
  if (meanA) *meanA = mA;
  if (meanB) *meanB = mB;
  if (se) *se = s;
  const double d = mB - mA;
  if (s == 0.0) return d == 0.0 ? 0.0 : std::copysign(kInf, d);
  return d / s;
}

// max over steps of |t| when the curves in `chosenB` are backend B's.
double maxAbsT(const std::vector<const std::vector<double>*>& curves,
               const std::vector<int>& chosenB, const Sums& all, int n) {
  double worst = 0.0;
  const std::size_t steps = all.sum.size();
  const int nB = int(chosenB.size());
  for (std::size_t s = 0; s < steps; ++s) {
    double sumB = 0.0, sqB = 0.0;
    for (int i : chosenB) {
      const double v = (*curves[std::size_t(i)])[s];
      sumB += v;
      sqB += v * v;
    }
    worst = std::max(worst, std::fabs(tOf(sumB, sqB, nB, all.sum[s], all.squares[s], n)));
  }
  return worst;
}

double binomial(int n, int k) {
  double r = 1.0;
  for (int i = 1; i <= k; ++i) r = r * (n - k + i) / i;
  return r;
}

}  // namespace

CurveBandResult simultaneousCurveBand(const std::vector<std::vector<double>>& a,
                                      const std::vector<std::vector<double>>& b, double alpha,
                                      std::uint64_t seed, int maxPermutations) {
  if (a.size() < 2 || b.size() < 2)
    throw std::invalid_argument("curve band: each backend needs at least 2 seeds' curves, got " +
                                std::to_string(a.size()) + " and " + std::to_string(b.size()));
  if (!(alpha > 0.0 && alpha < 0.5))
    throw std::invalid_argument("curve band: alpha = " + std::to_string(alpha) +
                                " is outside (0, 0.5)");
  if (maxPermutations < 2) throw std::invalid_argument("curve band: maxPermutations must be >= 2");
  const std::size_t steps = a.front().size();
  if (steps == 0) throw std::invalid_argument("curve band: the curves have no steps");
  std::vector<const std::vector<double>*> curves;
  for (const auto& c : a) curves.push_back(&c);
  for (const auto& c : b) curves.push_back(&c);
  for (std::size_t i = 0; i < curves.size(); ++i) {
    if (curves[i]->size() != steps)
      throw std::invalid_argument("curve band: curve " + std::to_string(i) + " has " +
                                  std::to_string(curves[i]->size()) + " steps, the first " +
                                  std::to_string(steps));
    for (double v : *curves[i])
      if (!std::isfinite(v))
        throw std::invalid_argument("curve band: curve " + std::to_string(i) +
                                    " holds a value that is not finite");
  }
  const int n = int(curves.size()), nA = int(a.size()), nB = int(b.size());
  Sums all{std::vector<double>(steps, 0.0), std::vector<double>(steps, 0.0)};
  for (const auto* c : curves)
    for (std::size_t s = 0; s < steps; ++s) {
      all.sum[s] += (*c)[s];
      all.squares[s] += (*c)[s] * (*c)[s];
    }

  CurveBandResult r;
  r.alpha = alpha;
  std::vector<int> observed(static_cast<std::size_t>(nB));
  std::iota(observed.begin(), observed.end(), nA);  // B's curves come after A's
  std::vector<double> se(steps);
  r.meanA.resize(steps);
  r.meanB.resize(steps);
  r.t.resize(steps);
  for (std::size_t s = 0; s < steps; ++s) {
    double sumB = 0.0, sqB = 0.0;
    for (int i : observed) {
      sumB += (*curves[std::size_t(i)])[s];
      sqB += (*curves[std::size_t(i)])[s] * (*curves[std::size_t(i)])[s];
    }
    r.t[s] = tOf(sumB, sqB, nB, all.sum[s], all.squares[s], n, &r.meanA[s], &r.meanB[s], &se[s]);
  }
  const double observedMax = maxAbsT(curves, observed, all, n);

  // The permutation distribution of max |t|: every choice of B's nB curves among the n, or a
  // seeded sample of them with the observed one.
  std::vector<double> maxima;
  const double assignments = binomial(n, nB);
  if (assignments <= double(maxPermutations)) {
    r.exhaustive = true;
    std::vector<bool> pick(std::size_t(n), false);
    std::fill(pick.end() - nB, pick.end(), true);
    std::vector<int> chosen;
    do {
      chosen.clear();
      for (int i = 0; i < n; ++i)
        if (pick[std::size_t(i)]) chosen.push_back(i);
      maxima.push_back(maxAbsT(curves, chosen, all, n));
    } while (std::next_permutation(pick.begin(), pick.end()));
  } else {
    maxima.push_back(observedMax);
    std::mt19937_64 rng(seed);
    std::vector<int> order(static_cast<std::size_t>(n));
    for (int k = 1; k < maxPermutations; ++k) {
      std::iota(order.begin(), order.end(), 0);
      std::shuffle(order.begin(), order.end(), rng);
      const std::vector<int> chosen(order.begin(), order.begin() + nB);
      maxima.push_back(maxAbsT(curves, chosen, all, n));
    }
  }
  r.permutations = int(maxima.size());
  r.pValue = double(std::count_if(maxima.begin(), maxima.end(),
                                  [&](double m) { return m * (1.0 + kTie) >= observedMax; })) /
             double(maxima.size());
  std::sort(maxima.begin(), maxima.end());
  const auto rank = std::size_t(std::ceil((1.0 - alpha) * double(maxima.size())));
  r.criticalValue = maxima[std::min(maxima.size(), std::max<std::size_t>(rank, 1)) - 1];
  r.canExit = r.criticalValue * (1.0 + kTie) < maxima.back();
  r.halfWidth.resize(steps);
  std::size_t outside = 0;
  for (std::size_t s = 0; s < steps; ++s) {
    r.halfWidth[s] = r.criticalValue * se[s];
    if (r.canExit && std::fabs(r.t[s]) > r.criticalValue * (1.0 + kTie)) {
      ++outside;
      if (!r.firstExit) r.firstExit = s;
    }
  }
  r.fractionOutside = double(outside) / double(steps);
  return r;
}

}  // namespace paritylab::stats
