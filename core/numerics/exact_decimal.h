#pragma once
// Exact decimal text of a binary floating-point value.

#include <string>

namespace paritylab::numerics {

// Every digit of `value` (a finite double is a dyadic rational, so its decimal expansion ends):
// exactDecimal(0.1f) == "0.100000001490116119384765625". "nan", "-nan", "inf", "-inf" otherwise.
std::string exactDecimal(double value);

}  // namespace paritylab::numerics
