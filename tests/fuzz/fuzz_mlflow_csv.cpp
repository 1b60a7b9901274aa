// Fuzz target: an MLflow CSV export, as `paritylab-cli import FILE --format mlflow-runs` and
// `--format mlflow-history` read it: the header, run ids, params and metrics, the history's keys
// and steps, then the import's rules (metrics, backend and seed, epochs, divergence).
#include "core/input/error.h"
#include "core/study/files/import_input.h"
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace paritylab;
  const std::string path = fuzz::scratchFile("mlflow.csv", fuzz::asText(data, size));
  for (const auto format : {study::ImportFormat::MlflowRuns, study::ImportFormat::MlflowHistory}) {
    try {
      study::readImportInput(path, format);
    } catch (const Error&) {
    }
  }
  study::TensorBoardImportOptions rule;
  rule.backendRule = "path:{backend}";
  try {
    study::readImportInput(path, study::ImportFormat::MlflowHistory, {}, rule);
  } catch (const Error&) {
  }
  return 0;
}
