// Fuzz target: a TensorBoard per-tag CSV download (Wall time, Step, Value), as `paritylab-cli
// import FOLDER --format tensorboard-csv` reads it, named run-tpu_seed0-tag-val_acc.csv: the
// header, the steps and values, then the import's rules (backend and seed by a path rule).
#include <filesystem>
#include <fstream>

#include "core/input/error.h"
#include "core/study/files/import_input.h"
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace paritylab;
  const std::string folder = "/tmp/paritylab-fuzz-" + std::to_string(getpid()) + "-tensorboard-csv";
  std::filesystem::create_directories(folder);
  std::ofstream(folder + "/run-tpu_seed0-tag-val_acc.csv", std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), std::streamsize(size));
  study::TensorBoardImportOptions rule;
  rule.backendRule = "path:{backend}_seed{seed}";
  try {
    study::readImportInput(folder, study::ImportFormat::TensorBoardCsv, {}, rule);
  } catch (const Error&) {
  }
  return 0;
}
