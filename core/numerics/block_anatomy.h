#pragma once
// One block of a block-scaled format taken apart, as `paritylab-cli bits --format mxfp4 1.5,0.1`
// and the Formats tab show it: the shared scale as the format stores it, and each element's bits,
// its value on the element's grid and the value it decodes to (element x scale). The quantization
// itself is block_scaling.h's, so what is shown is what every block-scaled product computes.

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/numerics/block_scaling.h"

namespace paritylab::numerics {

struct BlockElementAnatomy {
  double value = 0.0;    // the fp32 value given
  std::string bits;      // the element's code: "0 10 1" (sign exponent mantissa), MXINT8 "11000000"
  double element = 0.0;  // the element's value on its grid (MXINT8: k / 64)
  double decoded = 0.0;  // what the block holds for it: element x scale
};

struct BlockAnatomy {
  BlockScaling format;
  // The decode scale (decoded = element x scale); 0 when every value is zero or the block is NaN.
  double scale = 0.0;
  bool nanBlock = false;  // a NaN or an infinity made every element NaN
  // MX: scale = 2^scaleExponent, stored as the E8M0 code scaleExponent + 127.
  int scaleExponent = 0;
  // NVFP4: scale = blockScale (an E4M3 value, bits in blockScaleBits) x tensorScale (fp32).
  double blockScale = 0.0;
  std::string blockScaleBits;
  double tensorScale = 0.0;
  std::vector<BlockElementAnatomy> elements;
  double sqnrDb = 0.0;  // 10 log10(signal / error) over the block; +inf when exact
};

// The block formats shown one block at a time, by the names `bits` and the Formats tab take:
// mxfp8 (E4M3), mxfp8-e5m2, mxfp6 (E3M2), mxfp6-e2m3, mxfp4 (E2M1), mxint8, nvfp4.
const std::vector<std::string>& blockFormatNames();
// The format of one of blockFormatNames(); nullopt for any other name.
std::optional<BlockScaling> namedBlockFormat(std::string_view name);

// Quantizes `values` as one block of `format` and takes it apart. Throws input::InputError naming
// the count when there are more values than one block holds, or none.
BlockAnatomy dissectBlock(std::span<const float> values, const BlockScaling& format);

}  // namespace paritylab::numerics
