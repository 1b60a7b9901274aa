// Fuzz target: importing measured results from a CSV (torchprime or generic columns), as
// `paritylab-cli import FILE.csv` reads it.
#include "core/input/csv.h"
#include "core/study/files/results_import.h"
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace paritylab;
  const std::string path = fuzz::scratchFile("import.csv", fuzz::asText(data, size));
  try {
    study::readResultsCsv(path, study::CsvImportOptions{});
  } catch (const input::CsvError&) {
  }
  return 0;
}
