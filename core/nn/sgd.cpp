#include "core/nn/gemm.h"
#include "core/nn/optimizer.h"

namespace paritylab::nn {

void Sgd::step(ParamStore& params, const std::vector<ParamStore::Range>& ranges, double lr,
               const std::optional<numerics::RoundingSpec>& stateFormat) {
  const float mu = float(config_.momentum);
  const float wd = float(config_.weightDecay);
  const float rate = float(lr);
  if (mu != 0.0f && buf_.empty()) buf_.assign(params.totalSize(), 0.0f);
  for (const auto& r : ranges) {
    using Map = Eigen::Map<Eigen::ArrayXf>;
    const Eigen::Index n = Eigen::Index(r.size);
    Map p(params.masterData().data() + r.offset, n);
    Map g(params.gradData().data() + r.offset, n);
    if (wd != 0.0f) g += wd * p;
    if (mu == 0.0f) {
      p -= rate * g;
      continue;
    }
    Map b(buf_.data() + r.offset, n);
    if (first_)
      b = g;
    else
      b = mu * b + g;
    storeTensor(stateFormat, b.data(), r.size);
    if (config_.nesterov)
      p -= rate * (g + mu * b);
    else
      p -= rate * b;
  }
  first_ = false;
}

}  // namespace paritylab::nn
