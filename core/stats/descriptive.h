// Descriptive summary of one sample (e.g. the final accuracies of one backend's runs).
#pragma once

#include <cstddef>
#include <span>

namespace paritylab::stats {

struct Summary {
  std::size_t n = 0;
  double mean = 0.0;
  double sd = 0.0;        // sample standard deviation (ddof = 1); NaN when n == 1
  double variance = 0.0;  // sd^2; NaN when n == 1
  double sem = 0.0;       // sd / sqrt(n); NaN when n == 1
  double min = 0.0;
  double max = 0.0;
  double median = 0.0;  // mean of the two middle values when n is even
  double alpha = 0.05;  // the CI below is at level 1 - alpha
  double ci_low = 0.0;  // mean -+ t_{1-alpha/2, n-1} * sem (Student t); NaN when n == 1
  double ci_high = 0.0;
};

// x: at least one finite value (throws std::invalid_argument otherwise, or for alpha outside
// (0,1)).
Summary summarize(std::span<const double> x, double alpha = 0.05);

// Building blocks used by the tests (x non-empty; variance needs n >= 2, ddof = 1).
double mean(std::span<const double> x);
double sampleVariance(std::span<const double> x);

}  // namespace paritylab::stats
