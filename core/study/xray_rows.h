#pragma once
// X-ray records as text: the exponent histogram's compact form stored in the database,
// and the long-form CSV export of `report --xray`.

#include <string>

#include "core/numerics/tensor_xray.h"

namespace paritylab::study {

class ResultsStore;

// Nonzero bins as "exponent:count" separated by spaces, then "zero:N" and "nonfinite:N" when
// nonzero, e.g. "-3:12 -2:40 0:5 zero:7". Exponent e counts finite |x| in [2^e, 2^(e+1)).
std::string exponentHistogramText(const numerics::TensorXray& xray);
// Inverse for the exponent bins (zero/nonfinite are stored in their own columns and skipped
// here); throws std::runtime_error naming the text when malformed.
void parseExponentHistogram(const std::string& text, numerics::TensorXray& into);

// Long form: one row per run, step, site and operand: run_id, backend, seed, step, epoch, site,
// operand, format, count, zeros, non_finite, amax, min_nonzero, underflow, subnormal, overflow
// (fractions of the nonzero finite values), sqnr_db ("inf" when exact, empty without signal),
// max_rel_error, exponent_histogram. Returns the number of rows; throws std::runtime_error
// naming the file when it cannot be written.
std::size_t writeXrayCsv(const ResultsStore& store, const std::string& path);

}  // namespace paritylab::study
