// Fuzz target: `round`'s input lines (decimals or fp32 bits), each rounded to the format the
// first byte picks. A parsed value must round to the same bits twice.
#include <cstring>
#include <span>

#include "core/numerics/fp32_input.h"
#include "core/numerics/rounding.h"
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace paritylab;
  if (size == 0) return 0;
  static const char* kFormats[] = {"fp32", "tf32", "bf16", "fp16", "fp8-e4m3", "fp8-e5m2", "e3m2"};
  const numerics::Rounder rounder(numerics::RoundingSpec{
      *numerics::parseFormat(kFormats[data[0] % 7]), numerics::RoundingMode(data[0] / 7 % 4)});
  std::string_view text = fuzz::asText(data + 1, size - 1);
  while (!text.empty()) {
    const std::size_t eol = text.find('\n');
    const auto value = numerics::parseFp32(text.substr(0, eol));  // what `round` reads
    if (value) {
      // The batch kernel `round` uses and the scalar path must agree bit for bit.
      float out = 0;
      rounder.applyCopy(std::span<const float>(&*value, 1), std::span<float>(&out, 1), 7, 3);
      const float scalar = rounder.round(*value, 7, 3);
      if (std::memcmp(&out, &scalar, 4) != 0) __builtin_trap();
    }
    if (eol == std::string_view::npos) break;
    text.remove_prefix(eol + 1);
  }
  return 0;
}
