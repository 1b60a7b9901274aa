#pragma once
// The names the numerics commands accept (numbers: numerics::parseFp32, core/input).

#include <optional>
#include <string>
#include <string_view>

#include "core/numerics/rounding.h"

namespace paritylab::cli {

// The format/mode names, or a CommandError naming the value and listing the valid ones.
numerics::FloatFormat requireFormat(const std::string& name);
numerics::RoundingMode requireRoundingMode(const std::string& name);
numerics::OverflowMode requireOverflowMode(const std::string& name);
numerics::SubnormalMode requireSubnormalMode(const std::string& name);

}  // namespace paritylab::cli
