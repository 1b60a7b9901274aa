#include "core/data/text_split.h"

#include <cstdio>

#include "core/data/text_windows.h"

namespace paritylab::data {
namespace {

void refuse(const DatasetSpec& spec, const std::string& what) {
  throw DataError(spec.source + ": " + what);
}

}  // namespace

std::string symbolName(std::uint8_t byte) {
  if (byte == ' ') return "space";
  if (byte == '\n') return "\\n";
  if (byte == '\t') return "\\t";
  if (byte > 32 && byte < 127) return std::string(1, char(byte));
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02x", unsigned(byte));
  return hex;
}

DataSplit loadTextSplit(const DatasetSpec& spec) {
  const std::size_t colon = spec.source.find(':');
  const std::string path = colon == std::string::npos ? "" : spec.source.substr(colon + 1);
  if (path.empty()) refuse(spec, "needs a file, e.g. \"text:/path/to/input.txt\"");
  if (spec.blockSize < 1)
    refuse(spec, "block size " + std::to_string(spec.blockSize) +
                     " (a text source needs the language model's block_size, at least 1)");
  if (!spec.classes.empty()) refuse(spec, "classes do not apply to text (its classes are symbols)");
  if (spec.testFraction > 0.0)
    refuse(spec, "test_fraction does not apply to text (the last 10% of the file validates)");
  if (spec.trainSize != 0)
    refuse(spec, "train_size does not apply to text (the first 90% of the file trains)");
  if (spec.testSize < 0)
    refuse(spec, "test_size " + std::to_string(spec.testSize) + " is negative");

  auto text = std::make_shared<TextSplit>();
  text->corpus = loadTextCorpus(path, spec.blockSize);
  text->blockSize = spec.blockSize;
  const std::vector<std::size_t> offsets = validationWindowOffsets(
      text->corpus, spec.blockSize,
      spec.testSize > 0 ? std::size_t(spec.testSize) : kMaxValidationWindows);
  const std::size_t positions = offsets.size() * std::size_t(spec.blockSize);
  std::vector<std::int32_t> inputs(positions);
  text->validationTargets.resize(positions);
  fillWindows(text->corpus.validation, offsets, spec.blockSize, inputs.data(),
              text->validationTargets.data());
  text->validationInputs.assign(inputs.begin(), inputs.end());

  DataSplit split;
  for (Dataset* set : {&split.train, &split.test}) {
    set->channels = set->height = set->width = 0;  // no images
    set->numClasses = text->corpus.vocabularySize();
    for (std::uint8_t byte : text->corpus.vocabulary) set->classNames.push_back(symbolName(byte));
    set->flipPreservesLabel = false;
  }
  split.test.labels = text->validationTargets;
  split.text = std::move(text);
  return split;
}

}  // namespace paritylab::data
