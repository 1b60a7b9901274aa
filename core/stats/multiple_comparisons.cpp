#include "core/stats/multiple_comparisons.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

#include "core/stats/sample_checks.h"

namespace paritylab::stats {

HolmResult holm(std::span<const double> p_values, double alpha) {
  detail::requireAlpha("holm", alpha);
  const std::size_t m = p_values.size();
  for (std::size_t i = 0; i < m; ++i) {
    if (!(p_values[i] >= 0.0 && p_values[i] <= 1.0)) {
      throw std::invalid_argument("holm: p_values[" + std::to_string(i) +
                                  "] = " + std::to_string(p_values[i]) + " is not in [0, 1]");
    }
  }
  HolmResult r;
  r.alpha = alpha;
  r.adjusted.assign(m, 0.0);
  r.rejected.assign(m, false);
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t i, std::size_t j) { return p_values[i] < p_values[j]; });
  double running = 0.0;
  bool still_rejecting = true;
  for (std::size_t rank = 0; rank < m; ++rank) {
    const std::size_t i = order[rank];
    const double multiplier = static_cast<double>(m - rank);
    running = std::max(running, p_values[i] * multiplier);
    r.adjusted[i] = std::min(1.0, running);
    // Step-down: stop at the first p_(j) > alpha / (m - j); the same test statsmodels uses.
    if (p_values[i] > alpha / multiplier) still_rejecting = false;
    r.rejected[i] = still_rejecting;
  }
  return r;
}

std::vector<PairwiseComparison> compareAgainstReference(std::span<const NamedSample> groups,
                                                        std::string_view reference, TTestKind kind,
                                                        Tail tail, double alpha) {
  const char* fn = "compareAgainstReference";
  detail::requireAlpha(fn, alpha);
  if (groups.size() < 2) {
    throw std::invalid_argument(std::string(fn) + ": " + std::to_string(groups.size()) +
                                " group(s) given (at least 2 needed)");
  }
  const NamedSample* ref = nullptr;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (groups[i].name == groups[j].name) {
        throw std::invalid_argument(std::string(fn) + ": group name '" + groups[i].name +
                                    "' appears twice");
      }
    }
    if (groups[i].name == reference) ref = &groups[i];
  }
  if (ref == nullptr) {
    std::string names;
    for (const auto& g : groups) names += (names.empty() ? "" : ", ") + g.name;
    throw std::invalid_argument(std::string(fn) + ": reference '" + std::string(reference) +
                                "' is not one of the groups (" + names + ")");
  }
  detail::requireSample(fn, ref->name, ref->values, 2);

  std::vector<PairwiseComparison> out;
  std::vector<double> family;
  for (const auto& g : groups) {
    if (&g == ref) continue;
    detail::requireSample(fn, g.name, g.values, 2);
    PairwiseComparison c;
    c.name = g.name;
    c.reference = ref->name;
    c.test = tTest(g.values, ref->values, kind, tail, alpha);
    if (c.test.defined) family.push_back(c.test.p_value);
    out.push_back(std::move(c));
  }
  const HolmResult h = holm(family, alpha);
  std::size_t k = 0;
  for (auto& c : out) {
    if (c.test.defined) {
      c.p_adjusted = h.adjusted[k];
      c.rejected = h.rejected[k];
      ++k;
    } else {
      c.p_adjusted = std::numeric_limits<double>::quiet_NaN();
    }
  }
  return out;
}

}  // namespace paritylab::stats
