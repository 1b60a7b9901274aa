// Fuzz target: the CIFAR-10 binary batch reader (3073-byte records, raw or gzip).
#include "core/data/cifar10_loader.h"
#include "core/data/dataset.h"
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace paritylab;
  const std::string path = fuzz::scratchFile("data_batch.bin", fuzz::asText(data, size));
  data::Dataset d;
  d.channels = 3;
  d.height = d.width = 32;
  try {
    data::readCifar10Batch(path, d);
    if (d.images.size() != d.size() * d.imageSize()) __builtin_trap();
  } catch (const data::DataError&) {
  }
  return 0;
}
