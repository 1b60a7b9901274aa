#pragma once
// Parsing of the numbers and names the numerics commands accept.

#include <optional>
#include <string>
#include <string_view>

#include "core/numerics/rounding.h"

namespace paritylab::cli {

// A decimal ("1.5e-3", "1e-50", "nan", "-inf"; read by core/input's one decimal parser) or the
// raw bits of an fp32 value ("0x3f800000"): what `round` reads per line and `matmul` per cell.
// Surrounding spaces/tabs/CR are ignored; nullopt when the text is anything else.
std::optional<float> parseFp32Text(std::string_view text);
std::optional<double> parseDoubleText(std::string_view text);

// The format/mode names, or a CommandError naming the value and listing the valid ones.
numerics::FloatFormat requireFormat(const std::string& name);
numerics::RoundingMode requireRoundingMode(const std::string& name);
numerics::OverflowMode requireOverflowMode(const std::string& name);
numerics::SubnormalMode requireSubnormalMode(const std::string& name);

}  // namespace paritylab::cli
