#pragma once
// Windows of a text corpus for a language model, as nanoGPT's train.py get_batch cuts them: a
// window is blockSize + 1 consecutive tokens from offset i; its inputs are tokens [i, i +
// blockSize) and its targets tokens [i + 1, i + blockSize + 1) (the inputs shifted by one).
//
// Training windows start at offsets drawn uniformly from [0, tokens - blockSize) (torch.randint's
// range in get_batch: the largest offset is tokens - blockSize - 1), from a stream that depends
// only on (seed, step): every backend trained at the same seed sees the same windows at every step.
//
// Validation windows are fixed, independent of any seed, so every run and backend is evaluated on
// the same positions: consecutive windows from the start of the validation part, offsets
// 0, blockSize, 2 * blockSize, ... (their inputs do not overlap, and each validation token after
// the first is a target exactly once), as many as fit, at most a cap.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/data/text_corpus.h"

namespace paritylab::data {

// The default cap on validation windows: 128 windows of 256 tokens (nanoGPT shakespeare_char's
// block size) are 32,768 targets, enough for a loss to three digits and cheap enough to evaluate
// on an emulated backend at the end of every run.
inline constexpr std::size_t kMaxValidationWindows = 128;

// The offsets of a training batch: [batch] offsets into corpus.train, each in
// [0, train.size() - blockSize). Deterministic in (seed, step). Throws DataError (naming the
// corpus) when blockSize or batch is not positive or the training part is shorter than a window.
std::vector<std::size_t> trainingWindowOffsets(const TextCorpus& corpus, int blockSize, int batch,
                                               std::uint64_t seed, std::uint64_t step);

// The fixed validation windows' offsets into corpus.validation: k * blockSize for
// k = 0 .. min((validation.size() - 1) / blockSize, maxWindows) - 1.
std::vector<std::size_t> validationWindowOffsets(const TextCorpus& corpus, int blockSize,
                                                 std::size_t maxWindows = kMaxValidationWindows);

// How many windows are an epoch of text: training tokens / blockSize (at least 1), i.e. the steps
// of batch 1 that read, on average, as many tokens as the training part has.
std::size_t windowsPerEpoch(const TextCorpus& corpus, int blockSize);

// Copies the windows at `offsets` of `tokens`: inputs and targets are [offsets.size(), blockSize]
// each, row-major, as int32 token ids. Every offset must leave a whole window
// (offset + blockSize + 1 <= tokens.size()); throws DataError otherwise.
void fillWindows(std::span<const std::uint16_t> tokens, std::span<const std::size_t> offsets,
                 int blockSize, std::int32_t* inputs, std::int32_t* targets);

}  // namespace paritylab::data
