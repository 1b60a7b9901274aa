#pragma once
// An X-ray exponent histogram as the database stores it: compact text.

#include <string>

#include "core/numerics/tensor_xray.h"

namespace paritylab::study {

// Nonzero bins as "exponent:count" separated by spaces, then "zero:N" and "nonfinite:N" when
// nonzero, e.g. "-3:12 -2:40 0:5 zero:7". Exponent e counts finite |x| in [2^e, 2^(e+1)).
std::string exponentHistogramText(const numerics::TensorXray& xray);
// Inverse for the exponent bins (zero/nonfinite are stored in their own columns and skipped
// here); throws std::runtime_error naming the text when malformed.
void parseExponentHistogram(const std::string& text, numerics::TensorXray& into);

}  // namespace paritylab::study
