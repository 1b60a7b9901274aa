#include "ui/charts/series_math.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace paritylab::ui {

std::vector<XY> emaSmooth(const std::vector<XY>& points, double weight) {
  if (weight <= 0.0) return points;
  weight = std::min(weight, 0.999);
  std::vector<XY> out;
  out.reserve(points.size());
  double last = 0.0;
  int n = 0;
  for (const XY& p : points) {
    if (!std::isfinite(p.y)) {
      out.push_back(p);
      continue;
    }
    last = last * weight + (1.0 - weight) * p.y;
    ++n;
    out.push_back({p.x, last / (1.0 - std::pow(weight, n))});
  }
  return out;
}

std::vector<BandPoint> meanBand(const std::vector<std::vector<XY>>& curves, BandKind kind,
                                int minRuns) {
  std::map<double, std::vector<double>> byX;
  for (const auto& curve : curves)
    for (const XY& p : curve)
      if (std::isfinite(p.y)) byX[p.x].push_back(p.y);
  std::vector<BandPoint> out;
  for (const auto& [x, ys] : byX) {
    const int n = static_cast<int>(ys.size());
    if (n < std::max(1, minRuns)) continue;
    double mean = 0.0;
    for (double y : ys) mean += y;
    mean /= n;
    double ss = 0.0;
    for (double y : ys) ss += (y - mean) * (y - mean);
    const double sd = n > 1 ? std::sqrt(ss / (n - 1)) : 0.0;
    BandPoint b{x, mean, mean, mean, n};
    switch (kind) {
      case BandKind::StdDev:
        b.low = mean - sd, b.high = mean + sd;
        break;
      case BandKind::StdErr:
        b.low = mean - sd / std::sqrt(n), b.high = mean + sd / std::sqrt(n);
        break;
      case BandKind::MinMax:
        b.low = *std::min_element(ys.begin(), ys.end());
        b.high = *std::max_element(ys.begin(), ys.end());
        break;
    }
    out.push_back(b);
  }
  return out;
}

HistogramBins histogram(const std::vector<double>& values, double lo, double hi, int bins) {
  HistogramBins h;
  bins = std::max(1, bins);
  if (!(hi > lo)) hi = lo + 1e-6;
  h.lo = lo;
  h.width = (hi - lo) / bins;
  h.counts.assign(static_cast<std::size_t>(bins), 0);
  for (double v : values) {
    if (!std::isfinite(v)) continue;
    int i = static_cast<int>(std::floor((v - lo) / h.width));
    i = std::clamp(i, 0, bins - 1);
    ++h.counts[static_cast<std::size_t>(i)];
  }
  return h;
}

}  // namespace paritylab::ui
