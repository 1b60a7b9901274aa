// Fuzz target: a Weights & Biases CSV export, as `paritylab-cli import FILE --format wandb-runs`,
// `--format wandb-history` and `--format wandb-chart` read it: the header, the cells as numbers,
// the runs and their attributes, then the import's rules (metrics, backend and seed, epochs,
// divergence).
#include "core/input/error.h"
#include "core/study/files/import_input.h"
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace paritylab;
  const std::string path = fuzz::scratchFile("wandb.csv", fuzz::asText(data, size));
  for (const auto format : {study::ImportFormat::WandbRuns, study::ImportFormat::WandbHistory,
                            study::ImportFormat::WandbChart}) {
    try {
      study::readImportInput(path, format);
    } catch (const Error&) {
    }
  }
  study::TensorBoardImportOptions rule;
  rule.backendRule = "column:device";
  try {
    study::readImportInput(path, study::ImportFormat::Auto, {}, rule);
  } catch (const Error&) {
  }
  return 0;
}

namespace paritylab::fuzz {
// Headers that lie or are too large for the corpus: every column a metric, more fields than a
// row may have, a field beyond the field limit, and 100,000 rows of history.
std::vector<std::string> generatedInputs() {
  std::string wide = "_step";
  for (int i = 0; i < 4095; ++i) wide += ",val_acc";
  wide += "\n1";
  for (int i = 0; i < 4095; ++i) wide += ",0.5";
  std::string tooWide = "Name,State";
  for (int i = 0; i < 5000; ++i) tooWide += ",c" + std::to_string(i);
  std::string longField = "Name,State,val_acc\n\"" + std::string(70'000, 'x') + "\",finished,0.5\n";
  std::string rows = "_step,device,val_acc,val_loss\n";
  for (int i = 0; i < 100'000; ++i) rows += std::to_string(i) + ",tpu,0.5,1.5\n";
  return {wide + "\n", tooWide + "\n", longField, rows};
}
}  // namespace paritylab::fuzz
