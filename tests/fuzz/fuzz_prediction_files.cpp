// Fuzz target: the per-example prediction files `paritylab-cli import --predictions --labels`
// reads. The input up to a line "#predictions" is a labels file, the rest a predictions file; each
// is read as a CSV and as a .npy (the same bytes under the other name).
#include <filesystem>
#include <fstream>

#include "core/input/error.h"
#include "core/study/files/prediction_files.h"
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace paritylab;
  const std::string root = "/tmp/paritylab-fuzz-" + std::to_string(getpid()) + "-predictions";
  std::filesystem::create_directories(root);
  const std::string_view text = fuzz::asText(data, size);
  const auto split = text.find("#predictions\n");
  const std::string_view labels = text.substr(0, split);
  const std::string_view predictions =
      split == std::string_view::npos ? std::string_view() : text.substr(split + 13);
  for (const char* extension : {".csv", ".npy"}) {
    const std::string labelsPath = root + "/labels" + extension;
    const std::string predictionsPath = root + "/predictions" + extension;
    std::ofstream(labelsPath, std::ios::binary | std::ios::trunc)
        .write(labels.data(), std::streamsize(labels.size()));
    std::ofstream(predictionsPath, std::ios::binary | std::ios::trunc)
        .write(predictions.data(), std::streamsize(predictions.size()));
    try {
      const study::ImportedTestSet set = study::readLabelsFile(labelsPath);
      study::readPredictionsFile(predictionsPath, set);
    } catch (const Error&) {
    }
  }
  return 0;
}
