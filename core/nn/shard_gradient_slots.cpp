#include "core/nn/shard_gradient_slots.h"

#include <algorithm>
#include <stdexcept>

namespace paritylab::nn {

void ShardGradientSlots::begin(ParamStore& params, int shards, const ReplicaAllReduce& reduce,
                               std::span<const double> weights) {
  if (params_ != &params || shards_ != shards) learned_ = false;
  params_ = &params;
  reduce_ = &reduce;
  weights_ = weights;
  shards_ = shards;
  const std::size_t count = params.infos().size();
  // A shard's scratch holds every parameter at once, as the first step's slots do.
  scratch_.resize(std::size_t(shards) * params.totalSize());
  slot_.assign(count, kNone);
  writes_.assign(count, 0);
  reduced_.assign(count, false);
  if (!learned_) writers_.assign(count, 0);
  layerWrote_.clear();
  shardValues_.resize(std::size_t(shards));
  used_ = 0;
  held_ = 0;
}

float* ShardGradientSlots::slot(int shard, int id) {
  const auto p = std::size_t(id);
  if (reduced_[p]) {
    throw std::logic_error("ShardGradientSlots: parameter " + params_->info(id).name +
                           " written after its all-reduce (its layers changed since the first "
                           "step)");
  }
  if (slot_[p] == kNone) {
    slot_[p] = used_;
    used_ += params_->info(id).size;
    ++held_;
  }
  if (std::find(layerWrote_.begin(), layerWrote_.end(), id) == layerWrote_.end())
    layerWrote_.push_back(id);
  return scratch_.data() + std::size_t(shard) * params_->totalSize() + slot_[p];
}

void ShardGradientSlots::layerDone() {
  for (const int id : layerWrote_) {
    const auto p = std::size_t(id);
    ++writes_[p];
    if (learned_ && writes_[p] == writers_[p]) reduce(id);
  }
  layerWrote_.clear();
  if (held_ == 0) used_ = 0;  // every slot free: the next layer's start at the front again
}

void ShardGradientSlots::reduce(int id) {
  const auto p = std::size_t(id);
  const ParamInfo& info = params_->info(id);
  for (int s = 0; s < shards_; ++s)
    shardValues_[std::size_t(s)] =
        scratch_.data() + std::size_t(s) * params_->totalSize() + slot_[p];
  reduce_->reduceRange(shardValues_, weights_, info.offset, info.size, params_->grad(id));
  reduced_[p] = true;
  slot_[p] = kNone;
  --held_;
}

void ShardGradientSlots::finish() {
  for (std::size_t p = 0; p < slot_.size(); ++p) {
    if (slot_[p] != kNone) {
      reduce(int(p));
    } else if (!reduced_[p]) {
      std::fill_n(params_->grad(int(p)), params_->info(int(p)).size, 0.0f);
    }
  }
  if (!learned_) writers_ = writes_;
  learned_ = true;
  used_ = 0;
}

}  // namespace paritylab::nn
