#include "core/nn/param_store.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "core/nn/gemm.h"

namespace paritylab::nn {

int ParamStore::add(std::string name, const Shape& shape, ParamKind kind, bool backbone) {
  if (!master_.empty()) throw std::logic_error("ParamStore::add after finalize: " + name);
  ParamInfo info;
  info.name = std::move(name);
  info.shape = shape;
  info.offset = total_;
  info.size = shape.numel();
  info.kind = kind;
  info.backbone = backbone;
  total_ += info.size;
  infos_.push_back(std::move(info));
  return int(infos_.size() - 1);
}

void ParamStore::finalize(bool separateWorking) {
  master_.assign(total_, 0.0f);
  grads_.assign(total_, 0.0f);
  if (separateWorking) working_.assign(total_, 0.0f);
}

void ParamStore::refreshWorking(const std::optional<numerics::RoundingSpec>& format,
                                std::uint64_t seed) {
  if (working_.empty()) return;
  std::copy(master_.begin(), master_.end(), working_.begin());
  for (const ParamInfo& p : infos_)
    if (p.kind == ParamKind::Weight)
      storeTensor(format, working_.data() + p.offset, p.size, seed + p.offset);
}

void ParamStore::roundMaster(const std::optional<numerics::RoundingSpec>& format,
                             std::uint64_t seed) {
  for (const ParamInfo& p : infos_)
    if (p.kind == ParamKind::Weight)
      storeTensor(format, master_.data() + p.offset, p.size, seed + p.offset);
}

std::vector<ParamStore::Range> ParamStore::weightRanges(bool headOnly) const {
  std::vector<Range> ranges;
  for (const ParamInfo& p : infos_) {
    if (p.kind != ParamKind::Weight || (headOnly && p.backbone)) continue;
    if (!ranges.empty() && ranges.back().offset + ranges.back().size == p.offset)
      ranges.back().size += p.size;
    else
      ranges.push_back({p.offset, p.size});
  }
  return ranges;
}

std::string nudgeFirstWeight(ParamStore& params) {
  for (int id = 0; id < int(params.infos().size()); ++id) {
    if (params.info(id).kind != ParamKind::Weight || params.info(id).size == 0) continue;
    float& w = params.master(id)[0];
    w = std::nextafter(w, std::numeric_limits<float>::infinity());
    return params.info(id).name;
  }
  throw std::invalid_argument("the model has no weight to nudge");
}

}  // namespace paritylab::nn
