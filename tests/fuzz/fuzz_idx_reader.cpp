// Fuzz target: the MNIST IDX reader. The input is an images file and a labels file, split at the
// first occurrence of "||" (or the whole input as the images, with an empty labels file).
#include "core/data/dataset.h"
#include "core/data/idx_loader.h"
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace paritylab;
  const std::string_view bytes = fuzz::asText(data, size);
  const std::size_t split = bytes.find("||");
  const std::string images = fuzz::scratchFile("images-idx3-ubyte", bytes.substr(0, split));
  const std::string labels = fuzz::scratchFile(
      "labels-idx1-ubyte", split == std::string_view::npos ? "" : bytes.substr(split + 2));
  try {
    const data::Dataset d =
        data::readIdxPair(images, labels, data::idxClassNames(data::IdxFlavor::Mnist));
    if (d.images.size() != d.size() * d.imageSize()) __builtin_trap();
  } catch (const data::DataError&) {
  }
  return 0;
}
