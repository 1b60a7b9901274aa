#pragma once
// `bits --format mxfp4 1.5,0.1,-3,...`: one block of a block-scaled format, shown as the hardware
// stores it (core/numerics/block_anatomy.h): the shared scale, each element's bits and the value
// it decodes to.

#include <string>

#include "core/numerics/block_scaling.h"

namespace paritylab::cli {

// Prints one block of `values` (comma-separated decimals, at most one block's worth) under
// `format` (`name` as typed). Throws CommandError naming the value that is not a number, or the
// count when the values do not fit one block.
void printBlock(const std::string& name, const numerics::BlockScaling& format,
                const std::string& values, bool colour);

}  // namespace paritylab::cli
