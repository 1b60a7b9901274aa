#include "core/nn/step_signals.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>

#include "core/nn/reductions.h"

namespace paritylab::nn {

std::vector<int> updateRatioParameters(const ParamStore& params) {
  std::vector<int> ids;
  for (std::size_t id = 0; id < params.infos().size(); ++id) {
    const ParamInfo& info = params.infos()[id];
    if (info.kind == ParamKind::Weight && info.shape.rank >= 2) ids.push_back(int(id));
  }
  return ids;
}

std::vector<std::string> updateRatioNames(const ParamStore& params) {
  std::vector<std::string> names;
  for (int id : updateRatioParameters(params))
    names.push_back(params.infos()[std::size_t(id)].name);
  return names;
}

void UpdateRatioMeter::before(const ParamStore& params) {
  if (ids_.empty()) ids_ = updateRatioParameters(params);
  std::size_t total = 0;
  for (int id : ids_) total += params.infos()[std::size_t(id)].size;
  kept_.resize(total);
  float* to = kept_.data();
  for (int id : ids_) {
    const std::size_t n = params.infos()[std::size_t(id)].size;
    std::copy(params.master(id), params.master(id) + n, to);
    to += n;
  }
}

void UpdateRatioMeter::after(const ParamStore& params, std::vector<float>& ratios) const {
  ratios.assign(ids_.size(), 0.0f);
  const float* kept = kept_.data();
  for (std::size_t i = 0; i < ids_.size(); ++i) {
    const std::size_t n = params.infos()[std::size_t(ids_[i])].size;
    const float* now = params.master(ids_[i]);
    // Vectorized float sums over chunks that stay in L1, the chunks summed in double: a warning
    // needs a few digits, not the last bit, and this runs at every sampled step.
    constexpr std::size_t kChunk = 1024;
    double moved = 0.0, weight = 0.0;
    for (std::size_t from = 0; from < n; from += kChunk) {
      const auto len = Eigen::Index(std::min(kChunk, n - from));
      const Eigen::Map<const Eigen::ArrayXf> before(kept + from, len), after(now + from, len);
      moved += double((after - before).square().sum());
      weight += double(before.square().sum());
    }
    ratios[i] = weight > 0.0 ? float(std::sqrt(moved / weight)) : std::nanf("");
    kept += n;
  }
}

double meanRowNorm(const float* logits, std::size_t rows, std::size_t classes) {
  if (rows == 0) return std::nan("");
  double sum = 0.0;
  for (std::size_t r = 0; r < rows; ++r)
    sum += std::sqrt(sumSquares(logits + r * classes, classes));
  return sum / double(rows);
}

}  // namespace paritylab::nn
