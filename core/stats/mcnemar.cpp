#include "core/stats/mcnemar.h"

#include <algorithm>
#include <boost/math/distributions/binomial.hpp>
#include <stdexcept>
#include <string>

#include "core/stats/multiple_comparisons.h"

namespace paritylab::stats {

McNemarResult mcnemarExact(std::size_t only_first_correct, std::size_t only_second_correct) {
  McNemarResult r;
  r.only_first_correct = only_first_correct;
  r.only_second_correct = only_second_correct;
  const std::size_t smaller = std::min(only_first_correct, only_second_correct);
  r.statistic = static_cast<double>(smaller);
  const std::size_t discordant = only_first_correct + only_second_correct;
  if (discordant == 0) return r;  // binom.cdf(0, 0, 0.5) * 2 clipped to 1
  const boost::math::binomial binomial(static_cast<double>(discordant), 0.5);
  r.p_value = std::min(1.0, 2.0 * boost::math::cdf(binomial, static_cast<double>(smaller)));
  return r;
}

McNemarResult mcnemarExact(std::span<const std::int32_t> labels,
                           std::span<const std::int32_t> predicted_1,
                           std::span<const std::int32_t> predicted_2) {
  if (labels.empty() || labels.size() != predicted_1.size() ||
      labels.size() != predicted_2.size()) {
    throw std::invalid_argument("mcnemarExact: " + std::to_string(labels.size()) + " labels, " +
                                std::to_string(predicted_1.size()) + " and " +
                                std::to_string(predicted_2.size()) +
                                " predictions (the same non-zero number needed)");
  }
  std::size_t b = 0, c = 0;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const bool first = predicted_1[i] == labels[i], second = predicted_2[i] == labels[i];
    b += first && !second;
    c += second && !first;
  }
  return mcnemarExact(b, c);
}

std::vector<SeedPairMcNemar> mcnemarSeedPairs(std::span<const std::int32_t> labels,
                                              std::span<const SeededPredictions> a,
                                              std::span<const SeededPredictions> b, double alpha) {
  std::vector<SeedPairMcNemar> tests;
  std::vector<double> p_values;
  for (const auto& [i, j] : seedMatchedPairs(a, b)) {
    SeedPairMcNemar t;
    t.seed = a[i].seed;
    t.test = mcnemarExact(labels, a[i].predicted, b[j].predicted);
    p_values.push_back(t.test.p_value);
    tests.push_back(t);
  }
  const HolmResult h = holm(p_values, alpha);
  for (std::size_t k = 0; k < tests.size(); ++k) {
    tests[k].p_holm = h.adjusted[k];
    tests[k].rejected = h.rejected[k];
  }
  return tests;
}

}  // namespace paritylab::stats
