#pragma once
// A language model's data as a study loads it from the source "text:FILE": the corpus, the block
// size of its windows and the fixed validation windows, ready for the model.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/data/dataset.h"
#include "core/data/text_corpus.h"

namespace paritylab::data {

struct TextSplit {
  TextCorpus corpus;
  int blockSize = 0;
  // The validation windows (validationWindowOffsets, at most the cap): inputs and targets
  // [windows, blockSize] each, row-major, the inputs as the model reads them (token ids as floats).
  std::vector<float> validationInputs;
  std::vector<std::int32_t> validationTargets;

  std::size_t validationWindows() const {
    return blockSize > 0 ? validationTargets.size() / std::size_t(blockSize) : 0;
  }
};

// How a symbol of the vocabulary is named in tables and charts: a printable ASCII character as
// itself, the space as "space", a newline as "\n", a tab as "\t", any other byte as "0x1b".
std::string symbolName(std::uint8_t byte);

// Loads spec.source = "text:FILE" with windows of spec.blockSize + 1 tokens and at most
// spec.testSize validation windows (0: kMaxValidationWindows). The split's `train` and `test`
// carry the vocabulary as classes (symbolName), `test` the validation targets as labels. Throws
// DataError naming the file (text_corpus.h) or the field: a block size below 1, a classes list, a
// test fraction or a train size (none applies to text), a negative test size.
DataSplit loadTextSplit(const DatasetSpec& spec);

}  // namespace paritylab::data
