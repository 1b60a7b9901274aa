#include "app/cli/bits_block.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "app/cli/command_registry.h"
#include "core/input/number_input.h"
#include "core/numerics/block_anatomy.h"
#include "core/numerics/fp32_input.h"

namespace paritylab::cli {
namespace {

std::vector<float> parseValues(const std::string& text) {
  std::vector<float> values;
  std::size_t from = 0;
  while (from <= text.size()) {
    const std::size_t comma = std::min(text.find(',', from), text.size());
    const std::string one = text.substr(from, comma - from);
    const auto v = numerics::parseFp32Input(one);
    if (!v)
      throw CommandError("VALUES: '" + one + "' (value " + std::to_string(values.size() + 1) +
                         ") is not a number; a block is comma-separated decimals, e.g. "
                         "1.5,0.1,-3");
    values.push_back(v->value);
    from = comma + 1;
  }
  return values;
}

}  // namespace

void printBlock(const std::string& name, const numerics::BlockScaling& format,
                const std::string& text, bool colour) {
  const std::vector<float> values = parseValues(text);
  numerics::BlockAnatomy a;
  try {
    a = numerics::dissectBlock(values, format);
  } catch (const input::InputError& e) {
    throw CommandError("VALUES: " + std::string(e.what()) + " in an " + name + " block");
  }
  const char* bold = colour ? "\033[1m" : "";
  const char* dim = colour ? "\033[2m" : "";
  const char* reset = colour ? "\033[0m" : "";
  const bool nvfp4 = format.kind == numerics::BlockScalingKind::NVFP4;
  std::printf("%s%s%s %s(one block: up to %d %s elements sharing one %s scale; emulated)%s\n", bold,
              name.c_str(), reset, dim, format.blockSize, format.element.name.c_str(),
              nvfp4 ? "E4M3 block scale and an fp32 tensor" : "E8M0", reset);
  if (a.nanBlock) {
    std::printf("  scale     NaN: a NaN or an infinity in the block makes every element NaN\n");
  } else if (a.scale == 0.0) {
    std::printf("  scale     none: every value is zero\n");  // NVFP4's zero tensor
  } else if (nvfp4) {
    std::printf("  scale     %.9g = block scale %.9g (E4M3 %s) x tensor scale %.9g (fp32)\n",
                a.scale, a.blockScale, a.blockScaleBits.c_str(), a.tensorScale);
  } else {
    std::string code;
    for (int b = 7; b >= 0; --b) code += ((a.scaleExponent + 127) >> b) & 1 ? '1' : '0';
    const bool zeros =
        std::all_of(a.elements.begin(), a.elements.end(),
                    [](const numerics::BlockElementAnatomy& e) { return e.value == 0.0; });
    const std::string why =
        zeros ? "every value is zero: the smallest scale E8M0 holds"
              : "floor(log2 amax) - " + std::to_string(format.element.maxExponent()) +
                    ", the largest power of two " + format.element.name + " holds";
    std::printf("  scale     2^%d = %.9g (E8M0 code %d = 0b%s): %s\n", a.scaleExponent, a.scale,
                a.scaleExponent + 127, code.c_str(), why.c_str());
  }
  std::printf("\n  %3s  %-16s  %-14s  %-12s  %-16s  %s\n", "#", "value", "element bits", "element",
              "decoded", "error");
  for (std::size_t i = 0; i < a.elements.size(); ++i) {
    const numerics::BlockElementAnatomy& e = a.elements[i];
    const double error = e.decoded - e.value;
    std::printf("  %3zu  %-16.9g  %-14s  %-12.9g  %-16.9g  %.3g\n", i, e.value, e.bits.c_str(),
                e.element, e.decoded, std::isfinite(error) ? std::abs(error) : NAN);
  }
  std::printf(
      "\n  SQNR %.1f dB over the block. Each decoded value is element x scale; "
      "docs/block-formats.md has the equations.\n",
      a.sqnrDb);
}

}  // namespace paritylab::cli
