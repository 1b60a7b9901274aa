#include "core/stats/per_class.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "core/stats/multiple_comparisons.h"

namespace paritylab::stats {
namespace {

// Column c of a runs x classes table, checked.
std::vector<double> classColumn(const std::vector<std::vector<double>>& runs, std::size_t c) {
  std::vector<double> column;
  for (std::size_t r = 0; r < runs.size(); ++r) column.push_back(runs[r][c]);
  return column;
}

void requireTable(const char* side, const std::vector<std::vector<double>>& runs,
                  std::size_t classes) {
  if (runs.size() < 2) {
    throw std::invalid_argument(std::string("compareClasses: ") + side + " has " +
                                std::to_string(runs.size()) + " runs (at least 2 needed)");
  }
  for (std::size_t r = 0; r < runs.size(); ++r) {
    if (runs[r].size() != classes) {
      throw std::invalid_argument(std::string("compareClasses: ") + side + " run #" +
                                  std::to_string(r) + " has " + std::to_string(runs[r].size()) +
                                  " classes, expected " + std::to_string(classes));
    }
    for (std::size_t c = 0; c < classes; ++c) {
      if (!std::isfinite(runs[r][c])) {
        throw std::invalid_argument(std::string("compareClasses: ") + side + " run #" +
                                    std::to_string(r) + " class " + std::to_string(c) +
                                    " has no accuracy (no example of that class?)");
      }
    }
  }
}

}  // namespace

std::vector<double> perClassAccuracy(std::span<const std::int32_t> labels,
                                     std::span<const std::int32_t> predicted,
                                     std::size_t num_classes) {
  if (labels.empty() || labels.size() != predicted.size()) {
    throw std::invalid_argument("perClassAccuracy: " + std::to_string(labels.size()) +
                                " labels and " + std::to_string(predicted.size()) +
                                " predictions (the same non-zero number needed)");
  }
  std::vector<double> correct(num_classes, 0.0), count(num_classes, 0.0);
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (labels[i] < 0 || static_cast<std::size_t>(labels[i]) >= num_classes) {
      throw std::invalid_argument("perClassAccuracy: example #" + std::to_string(i) +
                                  " has label " + std::to_string(labels[i]) + " outside [0, " +
                                  std::to_string(num_classes) + ")");
    }
    const auto c = static_cast<std::size_t>(labels[i]);
    count[c] += 1.0;
    correct[c] += predicted[i] == labels[i] ? 1.0 : 0.0;
  }
  std::vector<double> accuracy(num_classes);
  for (std::size_t c = 0; c < num_classes; ++c)
    accuracy[c] = count[c] > 0.0 ? correct[c] / count[c] : std::numeric_limits<double>::quiet_NaN();
  return accuracy;
}

std::vector<ClassDifference> compareClasses(const std::vector<std::vector<double>>& per_run_a,
                                            const std::vector<std::vector<double>>& per_run_ref,
                                            double alpha) {
  const std::size_t classes = per_run_a.empty() ? 0 : per_run_a.front().size();
  requireTable("a", per_run_a, classes);
  requireTable("the reference", per_run_ref, classes);
  std::vector<ClassDifference> out(classes);
  std::vector<double> p_values;
  std::vector<std::size_t> tested;
  for (std::size_t c = 0; c < classes; ++c) {
    const std::vector<double> a = classColumn(per_run_a, c);
    const std::vector<double> ref = classColumn(per_run_ref, c);
    ClassDifference& d = out[c];
    d.class_index = c;
    d.welch = tTest(a, ref, TTestKind::Welch, Tail::TwoSided, alpha);
    d.sd_reference = d.welch.sd_b;
    d.p_holm = std::numeric_limits<double>::quiet_NaN();
    if (d.welch.defined) p_values.push_back(d.welch.p_value), tested.push_back(c);
  }
  const HolmResult h = holm(p_values, alpha);
  for (std::size_t k = 0; k < tested.size(); ++k) {
    out[tested[k]].p_holm = h.adjusted[k];
    out[tested[k]].beyond_seed_noise = h.adjusted[k] < alpha;
  }
  return out;
}

}  // namespace paritylab::stats
