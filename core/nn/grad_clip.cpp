#include "core/nn/grad_clip.h"

#include <Eigen/Core>
#include <cmath>

#include "core/nn/reductions.h"

namespace paritylab::nn {

double globalGradNorm(ParamStore& params, const std::vector<ParamStore::Range>& ranges) {
  double sq = 0.0;
  for (const auto& r : ranges) sq += sumSquares(params.gradData().data() + r.offset, r.size);
  return std::sqrt(sq);
}

double clipGradNorm(ParamStore& params, const std::vector<ParamStore::Range>& ranges,
                    double maxNorm) {
  const double norm = globalGradNorm(params, ranges);
  const double coef = maxNorm / (norm + 1e-6);
  if (coef < 1.0)
    for (const auto& r : ranges)
      Eigen::Map<Eigen::ArrayXf>(params.gradData().data() + r.offset, Eigen::Index(r.size)) *=
          float(coef);
  return norm;
}

}  // namespace paritylab::nn
