// Fuzz target: a TensorBoard event file, as `paritylab-cli import LOGS --format tensorboard` reads
// it: the TFRecord framing and its CRCs, the events' protobuf, the scalars in either form, then
// the import of the file as a run (tags, steps as epochs, the values' checks).
#include <filesystem>

#include "core/study/files/tensorboard_events.h"
#include "core/study/files/tensorboard_import.h"
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace paritylab;
  const std::string folder =
      "/tmp/paritylab-fuzz-" + std::to_string(getpid()) + "-tensorboard/tpu/run";
  std::filesystem::create_directories(folder);
  const std::string path = folder + "/events.out.tfevents.1700000000.fuzz";
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), std::streamsize(size));
  try {
    study::readEventFileScalars(path);
  } catch (const study::EventFileError&) {
    return 0;  // the import below would refuse the file alike
  }
  try {
    study::readTensorBoardRuns(folder, {});
  } catch (const study::EventFileError&) {
  }
  return 0;
}
