#include "core/stats/two_way_anova.h"

#include <Eigen/Dense>
#include <boost/math/distributions/fisher_f.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "core/stats/multiple_comparisons.h"

namespace paritylab::stats {
namespace {

// Which effect-coded columns a model holds.
struct Terms {
  bool a = false, b = false, ab = false;
};

// Effect (sum-to-zero) coding of level `level` of `levels`: column j is 1 for level j, -1 for
// the last level, 0 otherwise.
double effectCode(std::size_t level, std::size_t column, std::size_t levels) {
  if (level == levels - 1) return -1.0;
  return level == column ? 1.0 : 0.0;
}

// The residual sum of squares of the least-squares fit of y on an intercept and `terms`.
double residualSumOfSquares(const std::vector<FactorialObservation>& obs, std::size_t la,
                            std::size_t lb, Terms terms) {
  const std::size_t ca = la - 1, cb = lb - 1;
  const std::size_t p = 1 + (terms.a ? ca : 0) + (terms.b ? cb : 0) + (terms.ab ? ca * cb : 0);
  Eigen::MatrixXd x(Eigen::Index(obs.size()), Eigen::Index(p));
  Eigen::VectorXd y(Eigen::Index(obs.size()));
  for (std::size_t i = 0; i < obs.size(); ++i) {
    const FactorialObservation& o = obs[i];
    Eigen::Index c = 0;
    x(Eigen::Index(i), c++) = 1.0;
    if (terms.a)
      for (std::size_t j = 0; j < ca; ++j) x(Eigen::Index(i), c++) = effectCode(o.a, j, la);
    if (terms.b)
      for (std::size_t k = 0; k < cb; ++k) x(Eigen::Index(i), c++) = effectCode(o.b, k, lb);
    if (terms.ab)
      for (std::size_t j = 0; j < ca; ++j)
        for (std::size_t k = 0; k < cb; ++k)
          x(Eigen::Index(i), c++) = effectCode(o.a, j, la) * effectCode(o.b, k, lb);
    y(Eigen::Index(i)) = o.y;
  }
  const Eigen::VectorXd beta = x.colPivHouseholderQr().solve(y);
  return (y - x * beta).squaredNorm();
}

}  // namespace

TwoWayAnovaResult twoWayAnova(const std::vector<FactorialObservation>& observations,
                              std::size_t levelsA, std::size_t levelsB, SumsOfSquares type,
                              const std::string& nameA, const std::string& nameB) {
  if (levelsA < 2 || levelsB < 2)
    throw std::invalid_argument("two-way ANOVA: each factor needs at least 2 levels (got " +
                                std::to_string(levelsA) + " and " + std::to_string(levelsB) + ")");
  std::vector<std::size_t> cells(levelsA * levelsB, 0);
  for (const FactorialObservation& o : observations) {
    if (o.a >= levelsA || o.b >= levelsB)
      throw std::invalid_argument("two-way ANOVA: an observation at level (" + std::to_string(o.a) +
                                  ", " + std::to_string(o.b) + ") outside the " +
                                  std::to_string(levelsA) + " x " + std::to_string(levelsB) +
                                  " levels");
    if (!std::isfinite(o.y))
      throw std::invalid_argument("two-way ANOVA: a value that is not finite at " + nameA + " " +
                                  std::to_string(o.a) + ", " + nameB + " " + std::to_string(o.b));
    ++cells[o.a * levelsB + o.b];
  }
  for (std::size_t a = 0; a < levelsA; ++a)
    for (std::size_t b = 0; b < levelsB; ++b)
      if (cells[a * levelsB + b] == 0)
        throw std::invalid_argument("two-way ANOVA: no observation at " + nameA + " level " +
                                    std::to_string(a) + ", " + nameB + " level " +
                                    std::to_string(b) + " (the interaction needs every cell)");
  const std::size_t n = observations.size(), cellCount = levelsA * levelsB;
  if (n <= cellCount)
    throw std::invalid_argument("two-way ANOVA: " + std::to_string(n) + " observations in " +
                                std::to_string(cellCount) +
                                " cells leave no residual degree of freedom");

  TwoWayAnovaResult r;
  r.type = type;
  r.n = n;
  r.levelsA = levelsA;
  r.levelsB = levelsB;
  for (std::size_t c : cells) r.balanced = r.balanced && c == cells.front();

  const auto rss = [&](Terms t) { return residualSumOfSquares(observations, levelsA, levelsB, t); };
  const double full = rss({true, true, true});
  double ssA = 0, ssB = 0, ssAB = 0;
  if (type == SumsOfSquares::TypeII) {
    const double main = rss({true, true, false});
    ssA = rss({false, true, false}) - main;
    ssB = rss({true, false, false}) - main;
    ssAB = main - full;
  } else {
    ssA = rss({false, true, true}) - full;
    ssB = rss({true, false, true}) - full;
    ssAB = rss({true, true, false}) - full;
  }
  const double dfResidual = double(n - cellCount);
  const double msResidual = full / dfResidual;
  const auto row = [&](const std::string& name, double ss, double df) {
    AnovaRow x{name, std::max(0.0, ss), df, std::max(0.0, ss) / df, 0.0, 0.0};
    x.f = x.meanSquare / msResidual;
    if (msResidual > 0) {
      x.p_value =
          boost::math::cdf(boost::math::complement(boost::math::fisher_f(df, dfResidual), x.f));
    } else {  // a perfect fit: F is infinite where the effect explains anything
      x.f = x.meanSquare > 0 ? std::numeric_limits<double>::infinity()
                             : std::numeric_limits<double>::quiet_NaN();
      x.p_value = x.meanSquare > 0 ? 0.0 : std::numeric_limits<double>::quiet_NaN();
    }
    return x;
  };
  r.rows.push_back(row(nameA, ssA, double(levelsA - 1)));
  r.rows.push_back(row(nameB, ssB, double(levelsB - 1)));
  r.rows.push_back(row(nameA + ":" + nameB, ssAB, double((levelsA - 1) * (levelsB - 1))));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  r.rows.push_back({"residual", full, dfResidual, msResidual, nan, nan});
  return r;
}

std::vector<SimpleEffect> simpleEffects(const std::vector<FactorialObservation>& observations,
                                        std::size_t levelsA, std::size_t b0, std::size_t b1,
                                        double alpha) {
  if (b0 == b1)
    throw std::invalid_argument("simple effects: level " + std::to_string(b0) +
                                " compared with itself");
  std::vector<SimpleEffect> effects;
  std::vector<double> p;
  for (std::size_t a = 0; a < levelsA; ++a) {
    std::vector<double> y0, y1;
    for (const FactorialObservation& o : observations)
      if (o.a == a && (o.b == b0 || o.b == b1)) (o.b == b1 ? y1 : y0).push_back(o.y);
    for (const auto& [values, b] : {std::pair{&y0, b0}, std::pair{&y1, b1}})
      if (values->size() < 2)
        throw std::invalid_argument("simple effects: the cell (" + std::to_string(a) + ", " +
                                    std::to_string(b) + ") holds " +
                                    std::to_string(values->size()) + " value(s); a t-test needs 2");
    SimpleEffect e;
    e.levelA = a;
    e.test = tTest(y1, y0, TTestKind::Welch, Tail::TwoSided, alpha);
    p.push_back(e.test.p_value);
    effects.push_back(std::move(e));
  }
  const HolmResult adjusted = holm(p, alpha);
  for (std::size_t i = 0; i < effects.size(); ++i) {
    effects[i].p_holm = adjusted.adjusted[i];
    effects[i].rejected = adjusted.rejected[i];
  }
  return effects;
}

}  // namespace paritylab::stats
