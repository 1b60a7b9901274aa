#include "core/stats/churn.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <stdexcept>

namespace paritylab::stats {
namespace {

constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();

std::map<std::uint64_t, std::size_t> indexBySeed(const char* side,
                                                 std::span<const SeededPredictions> runs) {
  std::map<std::uint64_t, std::size_t> by_seed;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (!by_seed.emplace(runs[i].seed, i).second) {
      throw std::invalid_argument(std::string("seedMatchedPairs: seed ") +
                                  std::to_string(runs[i].seed) + " appears twice in " + side);
    }
  }
  return by_seed;
}

double meanOf(const std::vector<double>& v) {
  if (v.empty()) return kNoValue;
  double sum = 0.0;
  for (double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

std::string ratioText(double ratio) {
  if (std::isinf(ratio)) return "the precision changes no prediction at the same seed";
  if (ratio == 0.0) return "the seed changes no prediction, the precision does";
  if (ratio >= 0.8 && ratio <= 1.25)
    return "the precision changes the model about as much as the "
           "seed does";
  char buf[32];
  const bool less = ratio > 1.0;
  std::snprintf(buf, sizeof buf, "%.2g", less ? ratio : 1.0 / ratio);
  return std::string("the precision changes the model about ") + buf + " times " +
         (less ? "less" : "more") + " than the seed does";
}

}  // namespace

std::string churnPercent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2g%%", 100.0 * fraction);
  return buf;
}

double churn(std::span<const std::int32_t> predicted_1, std::span<const std::int32_t> predicted_2) {
  if (predicted_1.size() != predicted_2.size() || predicted_1.empty()) {
    throw std::invalid_argument(
        "churn: prediction vectors of " + std::to_string(predicted_1.size()) + " and " +
        std::to_string(predicted_2.size()) + " examples (the same non-zero number needed)");
  }
  std::size_t differ = 0;
  for (std::size_t i = 0; i < predicted_1.size(); ++i) differ += predicted_1[i] != predicted_2[i];
  return static_cast<double>(differ) / static_cast<double>(predicted_1.size());
}

std::vector<std::pair<std::size_t, std::size_t>> seedMatchedPairs(
    std::span<const SeededPredictions> a, std::span<const SeededPredictions> b) {
  const auto in_a = indexBySeed("a", a);
  const auto in_b = indexBySeed("b", b);
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (const auto& [seed, i] : in_a) {
    const auto it = in_b.find(seed);
    if (it != in_b.end()) pairs.emplace_back(i, it->second);
  }
  return pairs;
}

ChurnEstimate precisionChurn(std::span<const SeededPredictions> a,
                             std::span<const SeededPredictions> b,
                             const BootstrapOptions& options) {
  ChurnEstimate e;
  for (const auto& [i, j] : seedMatchedPairs(a, b))
    e.values.push_back(churn(a[i].predicted, b[j].predicted));
  e.pairs = e.values.size();
  e.mean = meanOf(e.values);
  if (e.pairs == 0) {
    e.ci.ci_low = e.ci.ci_high = e.ci.estimate = kNoValue;
    return e;
  }
  e.ci = bootstrapMeanCi(e.values, options);
  return e;
}

ChurnEstimate seedChurn(std::span<const SeededPredictions> runs, const BootstrapOptions& options) {
  const std::size_t n = runs.size();
  std::vector<double> matrix(n * n, kNoValue);  // churn of runs i, j with different seeds
  ChurnEstimate e;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i + 1; j < n; ++j) {
      if (runs[i].seed == runs[j].seed) continue;
      const double c = churn(runs[i].predicted, runs[j].predicted);
      matrix[i * n + j] = matrix[j * n + i] = c;
      e.values.push_back(c);
    }
  }
  e.pairs = e.values.size();
  e.mean = meanOf(e.values);
  if (e.pairs == 0) {
    e.ci.ci_low = e.ci.ci_high = e.ci.estimate = kNoValue;
    return e;
  }
  e.ci = bootstrapCi(
      n,
      [&](std::span<const std::size_t> drawn) {
        double sum = 0.0;
        std::size_t count = 0;
        for (std::size_t x = 0; x < drawn.size(); ++x) {
          for (std::size_t y = x + 1; y < drawn.size(); ++y) {
            const double c = matrix[drawn[x] * n + drawn[y]];
            if (!std::isnan(c)) sum += c, ++count;
          }
        }
        return count == 0 ? kNoValue : sum / static_cast<double>(count);
      },
      options);
  return e;
}

ChurnComparison compareChurn(const std::string& name_a, std::span<const SeededPredictions> a,
                             const std::string& name_b, std::span<const SeededPredictions> b,
                             const BootstrapOptions& options, const std::string& predictions) {
  ChurnComparison c;
  c.name_a = name_a;
  c.name_b = name_b;
  c.precision = precisionChurn(a, b, options);
  c.seed_floor = seedChurn(b, options);
  if (c.precision.pairs == 0) {
    c.seed_to_precision_ratio = kNoValue;
    c.headline = "No run of " + name_a + " shares a seed with a run of " + name_b +
                 ": precision churn needs seed-matched runs.";
    return c;
  }
  std::string s = name_a + " changes " + churnPercent(c.precision.mean) + " of " + predictions +
                  " against " + name_b + " at the same seed";
  if (c.seed_floor.pairs == 0) {
    c.seed_to_precision_ratio = kNoValue;
    c.headline = s + "; " + name_b +
                 " has no two runs with different seeds, so there is no seed "
                 "noise floor to compare with.";
    return c;
  }
  c.seed_to_precision_ratio = c.precision.mean > 0.0 ? c.seed_floor.mean / c.precision.mean
                                                     : std::numeric_limits<double>::infinity();
  if (c.seed_floor.mean == 0.0 && c.precision.mean == 0.0) c.seed_to_precision_ratio = kNoValue;
  s += "; two " + name_b + " runs with different seeds disagree on " +
       churnPercent(c.seed_floor.mean);
  if (std::isnan(c.seed_to_precision_ratio)) {
    c.headline = s + ": neither the precision nor the seed changes any prediction.";
  } else {
    c.headline = s + ": " + ratioText(c.seed_to_precision_ratio) + ".";
  }
  return c;
}

}  // namespace paritylab::stats
