#include "core/stats/weight_divergence.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace paritylab::stats {

std::vector<LayerDistance> relativeWeightDistance(std::span<const LayerWeights> a,
                                                  std::span<const LayerWeights> b) {
  const char* fn = "relativeWeightDistance: ";
  if (a.size() != b.size()) {
    throw std::invalid_argument(std::string(fn) + std::to_string(a.size()) + " layers vs " +
                                std::to_string(b.size()));
  }
  std::vector<LayerDistance> out;
  for (std::size_t l = 0; l < a.size(); ++l) {
    const LayerWeights& la = a[l];
    const LayerWeights& lb = b[l];
    if (la.name != lb.name || la.values.size() != lb.values.size()) {
      throw std::invalid_argument(std::string(fn) + "layer #" + std::to_string(l) + " is '" +
                                  la.name + "' with " + std::to_string(la.values.size()) +
                                  " values in a and '" + lb.name + "' with " +
                                  std::to_string(lb.values.size()) + " in b");
    }
    LayerDistance d;
    d.name = la.name;
    d.count = la.values.size();
    double norm2 = 0.0, dist2 = 0.0;
    for (std::size_t i = 0; i < d.count; ++i) {
      const double x = la.values[i], y = lb.values[i];
      if (!std::isfinite(x) || !std::isfinite(y)) {
        throw std::invalid_argument(std::string(fn) + "layer '" + la.name + "' value #" +
                                    std::to_string(i) + " is not finite");
      }
      norm2 += x * x;
      dist2 += (y - x) * (y - x);
    }
    d.norm_a = std::sqrt(norm2);
    d.distance = std::sqrt(dist2);
    d.relative = d.norm_a > 0.0   ? d.distance / d.norm_a
                 : d.distance > 0 ? std::numeric_limits<double>::infinity()
                                  : 0.0;
    out.push_back(d);
  }
  return out;
}

}  // namespace paritylab::stats
