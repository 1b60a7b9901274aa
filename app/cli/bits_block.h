#pragma once
// `bits --format mxfp4 1.5,0.1,-3,...`: one block of a block-scaled format, shown as the hardware
// stores it: the shared scale, each element's bits and the value it decodes to.

#include <optional>
#include <string>

#include "core/numerics/block_scaling.h"

namespace paritylab::cli {

// The block format a `--format` name means ("mxfp8", "mxfp8-e5m2", "mxfp6", "mxfp6-e2m3",
// "mxfp4", "mxint8", "nvfp4"), or nullopt for an element format name.
std::optional<numerics::BlockScaling> blockFormatNamed(const std::string& name);

// The names blockFormatNamed() knows, for help and messages.
const char* blockFormatNames();

// Prints one block of `values` (comma-separated decimals, at most one block's worth) under
// `format` (`name` as typed). Throws CommandError naming the value that is not a number, or the
// count when the values do not fit one block.
void printBlock(const std::string& name, const numerics::BlockScaling& format,
                const std::string& values, bool colour);

}  // namespace paritylab::cli
