#pragma once
// The items of each training step, as train() feeds them: an image epoch's shuffled (and
// augmented) batches, or a language model's windows drawn per step. The same under every policy
// for one config (seed pairing), so that a lockstep comparison feeds two sessions what each
// would have trained on.

#include <cstdint>
#include <vector>

#include "core/data/augmentation.h"
#include "core/data/dataset.h"
#include "core/nn/model.h"
#include "core/nn/trainer.h"

namespace paritylab::nn {

class TrainingBatches {
 public:
  // `config` and `data` must outlive the batches.
  TrainingBatches(const TrainConfig& config, const data::DataSplit& data, const Model& model);

  // Before the first step of `epoch` (1-based): an image epoch's order.
  void startEpoch(int epoch);
  // Step `inEpoch` (0-based) of `epoch`, the run's step `step` (0-based): writes the batch and
  // returns how many items it holds.
  int fill(int epoch, std::int64_t inEpoch, std::uint64_t step);

  // [count, C, H, W] images or [count, T] token ids (as floats)
  const float* items() const { return items_.data(); }
  // [count] labels or [count, T] next tokens
  const std::int32_t* labels() const { return labels_.data(); }

 private:
  const TrainConfig& config_;
  const data::DataSplit& data_;
  std::size_t itemSize_;
  std::vector<float> items_;
  std::vector<std::int32_t> labels_;
  std::vector<std::int32_t> tokens_;  // text: the windows' inputs as ids
  std::vector<std::uint32_t> order_;  // images: this epoch's order
  data::AugmentConfig augmentation_;  // images: random crop + flip where it preserves the label
};

}  // namespace paritylab::nn
