// Per-class accuracy: each run's accuracy on each class, aggregated per backend
// over runs, and each class's difference to the reference backend with a Welch test, Holm over
// the classes. A class "moves beyond the seed noise" when its Holm-adjusted Welch p is below
// alpha: the difference is larger than the run-to-run (seed) variation of that class explains.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/stats/t_test.h"

namespace paritylab::stats {

// Accuracy of one run on each class 0 .. num_classes - 1: correct / examples of that class
// (NaN for a class with no example). labels and predicted: the same non-zero length, labels in
// [0, num_classes) (std::invalid_argument naming the example otherwise).
std::vector<double> perClassAccuracy(std::span<const std::int32_t> labels,
                                     std::span<const std::int32_t> predicted,
                                     std::size_t num_classes);

struct ClassDifference {
  std::size_t class_index = 0;
  TTestResult welch;               // Welch t-test of the class accuracy, a - reference (n = runs)
  double sd_reference = 0.0;       // the reference's run-to-run SD of this class (the seed noise)
  double p_holm = 1.0;             // Holm over the classes whose test is defined (NaN otherwise)
  bool beyond_seed_noise = false;  // Holm-adjusted p < alpha
};

// per_run_a[r][c]: class c's accuracy in run r of backend a (perClassAccuracy of each run); the
// same for the reference. Each backend needs >= 2 runs with the same number of classes, and no
// NaN (every class present in the test set); std::invalid_argument otherwise.
std::vector<ClassDifference> compareClasses(const std::vector<std::vector<double>>& per_run_a,
                                            const std::vector<std::vector<double>>& per_run_ref,
                                            double alpha = 0.05);

}  // namespace paritylab::stats
