#include "core/nn/training_batches.h"

#include <algorithm>

#include "core/data/text_split.h"
#include "core/data/text_windows.h"
#include "core/nn/random.h"
#include "core/nn/run_start.h"

namespace paritylab::nn {

TrainingBatches::TrainingBatches(const TrainConfig& config, const data::DataSplit& data,
                                 const Model& model)
    : config_(config), data_(data), itemSize_(model.input.itemSize()) {
  const std::size_t capacity =
      data.text ? std::size_t(config.batchSize)
                : std::size_t(std::min<std::int64_t>(config.batchSize, data.train.size()));
  items_.resize(capacity * itemSize_);
  labels_.resize(capacity * std::size_t(model.targetsPerItem));
  if (data.text) {
    tokens_.resize(items_.size());
  } else {
    order_.resize(data.train.size());
    augmentation_ = data::defaultAugmentation(data.train);
  }
}

void TrainingBatches::startEpoch(int epoch) {
  if (!data_.text) fillEpochOrder(order_, config_.seed, epoch);
}

int TrainingBatches::fill(int epoch, std::int64_t inEpoch, std::uint64_t step) {
  if (data_.text) {
    const data::TextSplit& text = *data_.text;
    const std::vector<std::size_t> offsets = data::trainingWindowOffsets(
        text.corpus, text.blockSize, config_.batchSize, config_.seed, step);
    data::fillWindows(text.corpus.train, offsets, text.blockSize, tokens_.data(), labels_.data());
    std::copy(tokens_.begin(), tokens_.end(), items_.begin());
    return config_.batchSize;
  }
  const data::Dataset& set = data_.train;
  const std::int64_t n = std::int64_t(set.size());
  const std::int64_t begin = inEpoch * config_.batchSize;
  const int count = int(std::min<std::int64_t>(config_.batchSize, n - begin));
  for (int i = 0; i < count; ++i) {
    const std::uint32_t src = order_[std::size_t(begin + i)];
    std::copy(set.image(src), set.image(src) + itemSize_,
              items_.data() + std::size_t(i) * itemSize_);
    labels_[std::size_t(i)] = set.labels[src];
  }
  if (config_.augment)
    data::augmentBatch(items_.data(), count, set.channels, set.height, set.width, augmentation_,
                       hashSeed(config_.seed, std::uint64_t(epoch), 0x41554745 /* "AUGE" */),
                       std::uint64_t(begin));
  return count;
}

}  // namespace paritylab::nn
