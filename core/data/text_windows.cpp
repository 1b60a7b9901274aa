#include "core/data/text_windows.h"

#include <algorithm>
#include <random>

#include "core/data/byte_reader.h"
#include "core/data/dataset.h"
#include "core/data/shuffle.h"

namespace paritylab::data {
namespace {

// The seed stream of training windows (apart from the streams loadDataset draws).
constexpr std::uint64_t kTrainingWindowStream = 201;

void requirePositive(const TextCorpus& corpus, const char* name, int value) {
  if (value < 1)
    throwDataError(corpus.source,
                   std::string(name) + " " + std::to_string(value) + " is not positive");
}

// Windows that fit in `tokens` (each needs blockSize + 1 of them) start below this.
std::size_t offsetBound(std::size_t tokens, int blockSize) {
  return tokens > std::size_t(blockSize) ? tokens - std::size_t(blockSize) : 0;
}

}  // namespace

std::vector<std::size_t> trainingWindowOffsets(const TextCorpus& corpus, int blockSize, int batch,
                                               std::uint64_t seed, std::uint64_t step) {
  requirePositive(corpus, "block size", blockSize);
  requirePositive(corpus, "batch size", batch);
  const std::size_t bound = offsetBound(corpus.train.size(), blockSize);
  if (bound == 0)
    throwDataError(corpus.source, "the training part has " + std::to_string(corpus.train.size()) +
                                      " tokens, a block size of " + std::to_string(blockSize) +
                                      " needs at least " + std::to_string(blockSize + 1));
  std::mt19937_64 rng(mixSeed(mixSeed(seed, kTrainingWindowStream), step));
  std::vector<std::size_t> offsets(static_cast<std::size_t>(batch));
  for (std::size_t& offset : offsets) offset = std::size_t(uniformBelow(rng, bound));
  return offsets;
}

std::vector<std::size_t> validationWindowOffsets(const TextCorpus& corpus, int blockSize,
                                                 std::size_t maxWindows) {
  requirePositive(corpus, "block size", blockSize);
  const std::size_t tokens = corpus.validation.size();
  const std::size_t fit = tokens == 0 ? 0 : (tokens - 1) / std::size_t(blockSize);
  std::vector<std::size_t> offsets(std::min(fit, maxWindows));
  for (std::size_t k = 0; k < offsets.size(); ++k) offsets[k] = k * std::size_t(blockSize);
  return offsets;
}

std::size_t windowsPerEpoch(const TextCorpus& corpus, int blockSize) {
  requirePositive(corpus, "block size", blockSize);
  return std::max<std::size_t>(1, corpus.train.size() / std::size_t(blockSize));
}

void fillWindows(std::span<const std::uint16_t> tokens, std::span<const std::size_t> offsets,
                 int blockSize, std::int32_t* inputs, std::int32_t* targets) {
  if (blockSize < 1)
    throw DataError("windows: block size " + std::to_string(blockSize) + " is not positive");
  const auto block = std::size_t(blockSize);
  const std::size_t bound = offsetBound(tokens.size(), blockSize);
  for (std::size_t w = 0; w < offsets.size(); ++w) {
    const std::size_t offset = offsets[w];
    if (offset >= bound)
      throw DataError("windows: offset " + std::to_string(offset) + " leaves no window of " +
                      std::to_string(block + 1) + " tokens in " + std::to_string(tokens.size()));
    const std::uint16_t* from = tokens.data() + offset;
    std::copy(from, from + block, inputs + w * block);
    std::copy(from + 1, from + block + 1, targets + w * block);
  }
}

}  // namespace paritylab::data
