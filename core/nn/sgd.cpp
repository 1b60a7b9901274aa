#include "core/nn/gemm.h"
#include "core/nn/optimizer.h"
#include "core/nn/optimizer_update_impl.h"

namespace paritylab::nn {

void Sgd::step(ParamStore& params, const std::vector<ParamStore::Range>& ranges, double lr,
               const std::optional<numerics::RoundingSpec>& stateFormat) {
  const detail::SgdUpdate<float> update(config_, lr);
  if (update.hasMomentum() && buf_.empty()) buf_.assign(params.totalSize(), 0.0f);
  for (const auto& r : ranges) {
    using Map = detail::ArrayMap<float>;
    const Eigen::Index n = Eigen::Index(r.size);
    Map p(params.masterData().data() + r.offset, n);
    Map g(params.gradData().data() + r.offset, n);
    if (!update.hasMomentum()) {
      update.decayAndStep(p, g);
      continue;
    }
    update.decay(p, g);
    Map b(buf_.data() + r.offset, n);
    update.momentum(g, b, first_);
    storeTensor(stateFormat, b.data(), r.size);
    update.apply(p, g, b);
  }
  first_ = false;
}

void Sgd::assignRounded(const Fp64OptimizerState& state) {
  first_ = state.first;
  buf_.assign(state.buf.begin(), state.buf.end());  // each value rounded to nearest fp32
}

}  // namespace paritylab::nn
