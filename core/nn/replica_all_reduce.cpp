#include <algorithm>

#include "core/nn/training_session.h"

namespace paritylab::nn {

void allReduceMean(std::vector<std::vector<float>>& replicas, int count, float* out,
                   std::size_t n) {
  using Map = Eigen::Map<Eigen::ArrayXf>;
  for (int stride = 1; stride < count; stride *= 2)
    for (int r = 0; r + stride < count; r += 2 * stride)
      Map(replicas[std::size_t(r)].data(), Eigen::Index(n)) +=
          Map(replicas[std::size_t(r + stride)].data(), Eigen::Index(n));
  Map(out, Eigen::Index(n)) = Map(replicas[0].data(), Eigen::Index(n)) / float(count);
}

}  // namespace paritylab::nn
