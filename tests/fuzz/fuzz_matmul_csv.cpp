// Fuzz target: `matmul`'s matrix CSV (the playground's matrix text, which `matmul` and the
// Playground tab read); a parsed matrix must have rows x cols values.
#include <stdexcept>

#include "core/playground/matrix_text.h"
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace paritylab;
  try {
    const playground::Matrix m = playground::parseMatrix(fuzz::asText(data, size), "fuzz.csv");
    if (m.values.size() != std::size_t(m.rows) * std::size_t(m.cols)) __builtin_trap();
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
