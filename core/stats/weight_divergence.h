// Weight divergence: per layer, the relative distance ||W_B - W_A|| / ||W_A||
// (Frobenius norms, accumulated in double) between two runs' weights, e.g. seed-matched runs of
// two backends, or two seeds of one backend as the floor.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace paritylab::stats {

struct LayerWeights {
  std::string name;           // e.g. "conv1.weight"
  std::vector<float> values;  // the layer's parameters, any layout (the same in both runs)
};

struct LayerDistance {
  std::string name;
  std::size_t count = 0;  // parameters
  double norm_a = 0.0;    // ||W_A||
  double distance = 0.0;  // ||W_B - W_A||
  // distance / norm_a; 0 when both are zero, +inf when only W_A is zero.
  double relative = 0.0;
};

// a and b: the same layers in the same order (names and sizes equal, finite values);
// std::invalid_argument naming the layer otherwise.
std::vector<LayerDistance> relativeWeightDistance(std::span<const LayerWeights> a,
                                                  std::span<const LayerWeights> b);

}  // namespace paritylab::stats
