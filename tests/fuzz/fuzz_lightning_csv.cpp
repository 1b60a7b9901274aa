// Fuzz target: a Lightning CSVLogger run folder, as `paritylab-cli import LOGS --format lightning`
// reads it: metrics.csv (sparse rows, epoch and step) and, after a line "#hparams" in the input,
// hparams.yaml beside it (read with yaml-cpp, nested keys too), then the import's rules.
#include <filesystem>
#include <fstream>

#include "core/input/error.h"
#include "core/study/files/import_input.h"
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace paritylab;
  const std::string root = "/tmp/paritylab-fuzz-" + std::to_string(getpid()) + "-lightning";
  const std::string folder = root + "/tpu/lightning_logs/version_0";
  std::filesystem::create_directories(folder);
  const std::string_view text = fuzz::asText(data, size);
  const auto split = text.find("#hparams\n");
  const std::string_view metrics = text.substr(0, split);
  const std::string_view hparams =
      split == std::string_view::npos ? std::string_view() : text.substr(split + 9);
  std::ofstream(folder + "/metrics.csv", std::ios::binary | std::ios::trunc)
      .write(metrics.data(), std::streamsize(metrics.size()));
  std::ofstream(folder + "/hparams.yaml", std::ios::binary | std::ios::trunc)
      .write(hparams.data(), std::streamsize(hparams.size()));
  try {
    study::readImportInput(root, study::ImportFormat::Lightning);
  } catch (const Error&) {
  }
  study::TensorBoardImportOptions rule;
  rule.backendRule = "path:{backend}/lightning_logs/version_{seed}";
  try {
    study::readImportInput(root, study::ImportFormat::Lightning, {}, rule);
  } catch (const Error&) {
  }
  rule.backendRule = "hparam:model.device";  // a nested key (hparams_yaml.h)
  try {
    study::readImportInput(root, study::ImportFormat::Lightning, {}, rule);
  } catch (const Error&) {
  }
  return 0;
}
