#pragma once
// Curve arithmetic for the charts: EMA smoothing and per-backend mean bands. Plain C++.

#include <vector>

namespace paritylab::ui {

enum class BandKind { StdDev, StdErr, MinMax };

struct XY {
  double x = 0.0, y = 0.0;
};

// TensorBoard-style debiased EMA: s_i = w * s_{i-1} + (1 - w) * y_i, divided by 1 - w^(i+1).
// weight in [0, 1): 0 returns the input. Non-finite values pass through and do not poison the rest.
std::vector<XY> emaSmooth(const std::vector<XY>& points, double weight);

struct BandPoint {
  double x = 0.0;
  double mean = 0.0, low = 0.0, high = 0.0;
  int n = 0;  // runs contributing at x
};

// Mean and band across curves sampled at the same x values (epochs). Only x values present in at
// least `minRuns` curves are kept; non-finite values are skipped. Result sorted by x.
std::vector<BandPoint> meanBand(const std::vector<std::vector<XY>>& curves, BandKind kind,
                                int minRuns = 1);

struct HistogramBins {
  double lo = 0.0, width = 1.0;
  std::vector<int> counts;
};
// `bins` equal bins over [lo, hi] (values outside are clamped into the end bins).
HistogramBins histogram(const std::vector<double>& values, double lo, double hi, int bins);

}  // namespace paritylab::ui
