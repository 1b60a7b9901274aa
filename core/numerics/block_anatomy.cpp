#include "core/numerics/block_anatomy.h"

#include <cmath>

#include "core/input/number_input.h"
#include "core/numerics/bit_anatomy.h"

namespace paritylab::numerics {
namespace {

struct Named {
  const char* name;
  const char* recipe;
  const char* element;
};
constexpr Named kNamed[] = {
    {"mxfp8", "mx", "fp8-e4m3"},      {"mxfp8-e5m2", "mx", "fp8-e5m2"}, {"mxfp6", "mx", "fp6-e3m2"},
    {"mxfp6-e2m3", "mx", "fp6-e2m3"}, {"mxfp4", "mx", "fp4-e2m1"},      {"mxint8", "mx", "int8"},
    {"nvfp4", "nvfp4", "fp4-e2m1"},
};

// The low `bits` bits of code, most significant first.
std::string binary(std::uint32_t code, int bits) {
  std::string s;
  for (int b = bits - 1; b >= 0; --b) s += (code >> b) & 1u ? '1' : '0';
  return s;
}

}  // namespace

const std::vector<std::string>& blockFormatNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const Named& n : kNamed) v.emplace_back(n.name);
    return v;
  }();
  return names;
}

std::optional<BlockScaling> namedBlockFormat(std::string_view name) {
  for (const Named& n : kNamed)
    if (name == n.name) return parseBlockScaling(n.recipe, n.element);
  return std::nullopt;
}

BlockAnatomy dissectBlock(std::span<const float> values, const BlockScaling& format) {
  if (values.empty() || values.size() > std::size_t(format.blockSize))
    throw input::InputError(std::to_string(values.size()) + " values: one block holds 1 to " +
                            std::to_string(format.blockSize) + " (" +
                            std::to_string(format.blockSize) + " elements share a scale)");
  BlockAnatomy a;
  a.format = format;
  std::vector<float> decoded(values.size());
  BlockScalingStats stats;
  const auto n = std::int64_t(values.size());
  quantizeBlocks(values, decoded, 1, n, n, BlockAxis::Row, format, 0, 0, &stats);
  a.nanBlock = stats.nanBlocks > 0;
  a.scale = a.nanBlock ? 0.0 : stats.maxScale;
  a.sqnrDb = stats.sqnrDb();
  const bool nvfp4 = format.kind == BlockScalingKind::NVFP4;
  if (a.scale > 0.0 && nvfp4) {
    a.tensorScale = stats.tensorScale;
    a.blockScale = a.scale / stats.tensorScale;
    const BitAnatomy e4m3 = dissect(float(a.blockScale), RoundingSpec{*parseFormat("fp8-e4m3")});
    a.blockScale = e4m3.stored;
    a.blockScaleBits = e4m3.bits;
  } else if (a.scale > 0.0) {
    a.scaleExponent = int(std::lround(std::log2(a.scale)));
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    BlockElementAnatomy e;
    e.value = values[i];
    e.decoded = decoded[i];
    // The element: decoded / scale on the element's grid (exact for MX's power-of-two scales;
    // NVFP4's fp32 product of two scales leaves a last-bit residue the grid removes).
    const double ratio = a.scale > 0.0 ? e.decoded / a.scale : 0.0;
    if (format.element.isInteger) {
      const auto k = std::int32_t(std::lround(ratio * 64.0));  // MXINT8: k / 64
      e.bits = binary(std::uint32_t(k) & 0xffu, 8);
      e.element = k / 64.0;
    } else {
      const BitAnatomy bits = dissect(float(ratio), RoundingSpec{format.element.grid});
      e.bits = bits.bits;
      e.element = bits.stored;
    }
    a.elements.push_back(std::move(e));
  }
  return a;
}

}  // namespace paritylab::numerics
