#include "core/stats/group_sequential.h"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <stdexcept>
#include <string>

#include "core/stats/t_test.h"

namespace paritylab::stats {
namespace {

const boost::math::normal kStandardNormal;

double upperTail(double z) {
  return 0.5 * std::erfc(z / std::sqrt(2.0));
}
double density(double z) {
  return std::exp(-0.5 * z * z) / std::sqrt(2.0 * M_PI);
}
double upperQuantile(double p) {
  return boost::math::quantile(complement(kStandardNormal, p));
}

// Simpson's rule over equally spaced values (an odd count).
double simpson(const std::vector<double>& f, double h) {
  double sum = f.front() + f.back();
  for (std::size_t i = 1; i + 1 < f.size(); ++i) sum += (i % 2 ? 4.0 : 2.0) * f[i];
  return sum * h / 3.0;
}

// The sub-density of S_k = Z_k sqrt(t_k) on the paths that have not crossed yet, on a grid of
// equally spaced points from `low` to `high` (the boundary).
struct SubDensity {
  double low = 0.0, high = 0.0;
  std::vector<double> f;
  double step() const { return (high - low) / double(f.size() - 1); }
  double at(std::size_t i) const { return low + step() * double(i); }
};

constexpr std::size_t kGridPoints = 2001;  // odd, for Simpson
constexpr double kTailSds = 9.0;           // the grid's lower end, in sds of S_k

// P(cross at the next look) for boundary c: paths alive in `alive`, increment variance delta,
// crossing when S >= c sqrt(t).
double crossing(const SubDensity& alive, double delta, double boundaryS) {
  std::vector<double> g(alive.f.size());
  const double sd = std::sqrt(delta);
  for (std::size_t i = 0; i < g.size(); ++i)
    g[i] = alive.f[i] * upperTail((boundaryS - alive.at(i)) / sd);
  return simpson(g, alive.step());
}

SubDensity propagate(const SubDensity& alive, double delta, double t, double boundaryS) {
  SubDensity next;
  next.low = std::min(-kTailSds * std::sqrt(t), boundaryS - 1.0);
  next.high = boundaryS;
  next.f.resize(kGridPoints);
  const double sd = std::sqrt(delta);
  std::vector<double> g(alive.f.size());
  for (std::size_t j = 0; j < next.f.size(); ++j) {
    const double s = next.at(j);
    for (std::size_t i = 0; i < g.size(); ++i)
      g[i] = alive.f[i] * density((s - alive.at(i)) / sd) / sd;
    next.f[j] = simpson(g, alive.step());
  }
  return next;
}

}  // namespace

double alphaSpent(AlphaSpending spending, double alpha, double t) {
  if (t <= 0.0) return 0.0;
  t = std::min(t, 1.0);
  switch (spending) {
    case AlphaSpending::OBrienFleming:
      return 2.0 * upperTail(upperQuantile(alpha / 2.0) / std::sqrt(t));
    case AlphaSpending::Pocock:
      return alpha * std::log(1.0 + (M_E - 1.0) * t);
  }
  return alpha;
}

SequentialBoundaries oneSidedBoundaries(std::span<const double> information, double alpha,
                                        AlphaSpending spending) {
  if (!(alpha > 0.0 && alpha < 0.5))
    throw std::invalid_argument("alpha " + std::to_string(alpha) + " is not in (0, 0.5)");
  if (information.empty() || std::abs(information.back() - 1.0) > 1e-12)
    throw std::invalid_argument("the information fractions must end at 1");
  for (std::size_t k = 0; k < information.size(); ++k)
    if (!(information[k] > (k ? information[k - 1] : 0.0)))
      throw std::invalid_argument("the information fractions must increase from above 0");
  SequentialBoundaries b;
  SubDensity alive;
  for (std::size_t k = 0; k < information.size(); ++k) {
    const double t = information[k];
    const double spent = alphaSpent(spending, alpha, t);
    const double increment = spent - (k ? b.spent.back() : 0.0);
    double c = 0.0;
    if (k == 0) {
      c = upperQuantile(increment);
      alive.high = c * std::sqrt(t);
      alive.low = std::min(-kTailSds * std::sqrt(t), alive.high - 1.0);
      alive.f.resize(kGridPoints);
      for (std::size_t i = 0; i < kGridPoints; ++i)
        alive.f[i] = density(alive.at(i) / std::sqrt(t)) / std::sqrt(t);
    } else {
      const double delta = t - information[k - 1];
      // The crossing probability falls as c rises: bisection to 1e-10 in z.
      double lo = -10.0, hi = 40.0;
      for (int it = 0; it < 200 && hi - lo > 1e-10; ++it) {
        const double mid = 0.5 * (lo + hi);
        (crossing(alive, delta, mid * std::sqrt(t)) > increment ? lo : hi) = mid;
      }
      c = 0.5 * (lo + hi);
      if (k + 1 < information.size()) alive = propagate(alive, delta, t, c * std::sqrt(t));
    }
    b.information.push_back(t);
    b.z.push_back(c);
    b.nominalP.push_back(upperTail(c));
    b.spent.push_back(spent);
  }
  return b;
}

std::vector<std::size_t> SequentialDesign::looks() const {
  std::vector<std::size_t> out;
  const std::size_t first = std::max<std::size_t>(2, firstLook ? firstLook : lookEvery);
  for (std::size_t n = first; n < maxSeeds; n += std::max<std::size_t>(1, lookEvery))
    out.push_back(n);
  out.push_back(maxSeeds);
  return out;
}

namespace {

std::vector<double> fractions(const SequentialDesign& d) {
  std::vector<double> t;
  for (std::size_t n : d.looks()) t.push_back(double(n) / double(d.maxSeeds));
  return t;
}

}  // namespace

SequentialBoundaries SequentialDesign::equivalenceBoundaries() const {
  return oneSidedBoundaries(fractions(*this), alpha, spending);
}

SequentialBoundaries SequentialDesign::differenceBoundaries() const {
  return oneSidedBoundaries(fractions(*this), alpha / 2.0, spending);
}

SequentialPlan planSequential(const SequentialDesign& design) {
  if (!(design.margin > 0.0) || !std::isfinite(design.margin))
    throw std::invalid_argument("a sequential design needs an equivalence margin > 0");
  if (design.maxSeeds < 2) throw std::invalid_argument("a sequential design needs max_seeds >= 2");
  return {design, design.looks(), design.equivalenceBoundaries(), design.differenceBoundaries()};
}

SequentialLook sequentialLook(std::span<const double> a, std::span<const double> b,
                              const SequentialPlan& plan, std::size_t look) {
  const std::vector<std::size_t>& looks = plan.looks;
  if (look >= looks.size())
    throw std::invalid_argument("look " + std::to_string(look + 1) + " of a design with " +
                                std::to_string(looks.size()) + " looks");
  const std::size_t n = looks[look];
  if (a.size() < 2 || b.size() < 2 || a.size() > n || b.size() > n)
    throw std::invalid_argument("look " + std::to_string(look + 1) + " takes 2 to " +
                                std::to_string(n) + " values of each backend");
  SequentialLook out;
  out.look = look;
  out.seeds = n;
  // The equivalence boundary's nominal level, used as TOST's alpha (each one-sided test at it).
  out.equivalenceP = plan.equivalence.nominalP[look];
  out.differenceP = 2.0 * plan.difference.nominalP[look];
  out.tost = tost(a, b, plan.design.margin, std::min(out.equivalenceP, 0.4999));
  const TTestResult t = tTest(a, b, TTestKind::Welch, Tail::TwoSided);
  out.pDifference = t.p_value;
  if (out.tost.defined && out.tost.p_value <= out.equivalenceP)
    out.decision = SequentialDecision::Equivalent;
  else if (t.defined && out.pDifference <= out.differenceP)
    out.decision = SequentialDecision::Different;
  else if (look + 1 == looks.size())
    out.decision = SequentialDecision::Inconclusive;
  return out;
}

}  // namespace paritylab::stats
