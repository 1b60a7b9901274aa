#pragma once
// X-ray records as the long-form CSV export of `report --xray`.

#include <string>

#include "core/numerics/tensor_xray.h"
#include "core/study/store/xray_histogram_text.h"

namespace paritylab::study {

class ResultsStore;

// Long form: one row per run, step, site and operand: run_id, backend, seed, step, epoch, site,
// operand, format, count, zeros, non_finite, amax, min_nonzero, underflow, subnormal, overflow
// (fractions of the nonzero finite values), sqnr_db ("inf" when exact, empty without signal),
// max_rel_error, exponent_histogram. Returns the number of rows; throws std::runtime_error
// naming the file when it cannot be written.
std::size_t writeXrayCsv(const ResultsStore& store, const std::string& path);

}  // namespace paritylab::study
