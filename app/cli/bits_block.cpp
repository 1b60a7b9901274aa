#include "app/cli/bits_block.h"

#include <cmath>
#include <cstdio>
#include <vector>

#include "app/cli/command_registry.h"
#include "core/numerics/bit_anatomy.h"
#include "core/numerics/fp32_input.h"

namespace paritylab::cli {
namespace {

struct Named {
  const char* name;
  const char* recipe;
  const char* element;
};
constexpr Named kBlockFormats[] = {
    {"mxfp8", "mx", "fp8-e4m3"},      {"mxfp8-e5m2", "mx", "fp8-e5m2"}, {"mxfp6", "mx", "fp6-e3m2"},
    {"mxfp6-e2m3", "mx", "fp6-e2m3"}, {"mxfp4", "mx", "fp4-e2m1"},      {"mxint8", "mx", "int8"},
    {"nvfp4", "nvfp4", "fp4-e2m1"},
};

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

// "0b01111110" for the low `bits` bits of code.
std::string binary(std::uint32_t code, int bits) {
  std::string s = "0b";
  for (int b = bits - 1; b >= 0; --b) s += (code >> b) & 1u ? '1' : '0';
  return s;
}

}  // namespace

std::optional<numerics::BlockScaling> blockFormatNamed(const std::string& name) {
  for (const Named& n : kBlockFormats)
    if (name == n.name) return numerics::parseBlockScaling(n.recipe, n.element);
  return std::nullopt;
}

const char* blockFormatNames() {
  return "mxfp8, mxfp8-e5m2, mxfp6, mxfp6-e2m3, mxfp4, mxint8, nvfp4";
}

void printBlock(const std::string& name, const numerics::BlockScaling& format,
                const std::string& text, bool colour) {
  const std::vector<float> values = parseValues(text);
  if (int(values.size()) > format.blockSize)
    throw CommandError("VALUES: " + std::to_string(values.size()) + " values do not fit one " +
                       name + " block (" + std::to_string(format.blockSize) +
                       " elements share a scale); give at most " +
                       std::to_string(format.blockSize));
  std::vector<float> decoded(values.size());
  numerics::BlockScalingStats stats;
  const auto n = std::int64_t(values.size());
  numerics::quantizeBlocks(values, decoded, 1, n, n, numerics::BlockAxis::Row, format, 0, 0,
                           &stats);
  const char* bold = colour ? "\033[1m" : "";
  const char* dim = colour ? "\033[2m" : "";
  const char* reset = colour ? "\033[0m" : "";
  const bool nvfp4 = format.kind == numerics::BlockScalingKind::NVFP4;
  const numerics::ElementFormat& element = format.element;
  std::printf("%s%s%s %s(one block: up to %d %s elements sharing one %s scale; emulated)%s\n", bold,
              name.c_str(), reset, dim, format.blockSize, element.name.c_str(),
              nvfp4 ? "E4M3 block scale and an fp32 tensor" : "E8M0", reset);
  // The decode scale: dequantized value = element x scale (0 when the block is all zeros).
  const double scale = stats.maxScale > 0.0 ? stats.maxScale : 0.0;
  if (stats.nanBlocks > 0) {
    std::printf("  scale     NaN: a NaN or an infinity in the block makes every element NaN\n");
  } else if (scale == 0.0) {
    std::printf("  scale     none: every value is zero\n");
  } else if (nvfp4) {
    const double blockScale = scale / stats.tensorScale;  // the E4M3 code's value
    const auto e4m3 = numerics::dissect(float(blockScale),
                                        numerics::RoundingSpec{*numerics::parseFormat("fp8-e4m3")});
    std::printf("  scale     %.9g = block scale %.9g (E4M3 %s) x tensor scale %.9g (fp32)\n", scale,
                blockScale, e4m3.bits.c_str(), stats.tensorScale);
  } else {
    const int e = int(std::lround(std::log2(scale)));
    std::printf(
        "  scale     2^%d = %.9g (E8M0 code %d = %s): floor(log2 amax) - %d, the largest "
        "power of two %s holds\n",
        e, scale, e + 127, binary(std::uint32_t(e + 127), 8).c_str(), element.maxExponent(),
        element.name.c_str());
  }
  std::printf("\n  %3s  %-16s  %-14s  %-12s  %-16s  %s\n", "#", "value", "element bits", "element",
              "decoded", "error");
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double x = values[i], q = decoded[i];
    // The element the block holds: decoded / scale, on the element's grid (exactly so for MX's
    // power-of-two scales; NVFP4's fp32 product of two scales leaves a last-bit residue).
    double e = scale > 0.0 ? q / scale : 0.0;
    std::string bits;
    if (element.isInteger) {
      const auto k = std::int32_t(std::lround(e * 64.0));  // MXINT8: k / 64, two's complement
      bits = binary(std::uint32_t(k) & 0xffu, 8).substr(2);
      e = k / 64.0;
    } else {
      const numerics::BitAnatomy a =
          numerics::dissect(float(e), numerics::RoundingSpec{element.grid});
      bits = a.bits;
      e = a.stored;
    }
    std::printf("  %3zu  %-16.9g  %-14s  %-12.9g  %-16.9g  %.3g\n", i, x, bits.c_str(), e, q,
                std::isfinite(q - x) ? std::abs(q - x) : NAN);
  }
  std::printf(
      "\n  SQNR %.1f dB over the block. Each decoded value is element x scale; "
      "docs/block-formats.md has the equations.\n",
      stats.sqnrDb());
}

}  // namespace paritylab::cli
