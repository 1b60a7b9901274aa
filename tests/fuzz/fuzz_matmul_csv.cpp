// Fuzz target: `matmul`'s matrix CSV; a parsed matrix must have rows x cols values.
#include "app/cli/command_registry.h"
#include "app/cli/matrix_csv.h"
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace paritylab;
  try {
    const cli::Matrix m = cli::parseMatrixCsv(fuzz::asText(data, size), "fuzz.csv");
    if (m.values.size() != std::size_t(m.rows) * std::size_t(m.cols)) __builtin_trap();
  } catch (const cli::CommandError&) {
  }
  return 0;
}
