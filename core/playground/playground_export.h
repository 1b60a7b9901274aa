#pragma once
// The playground's results as CSV and JSON: the CLI prints them and the app's exports write the
// same text, so everything shown in the Playground tab can be reproduced from the command line.

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "core/playground/product_compare.h"
#include "core/playground/reduction.h"
#include "core/playground/regression.h"

namespace paritylab::playground {

// One row per (source, epoch): source is "fp64-gd" or a backend; columns epoch, loss, w1..wd, b.
// A last row "fp64-lstsq" holds the least-squares coefficients (no epoch, no loss).
std::string regressionCsv(const RegressionExperiment& e);
nlohmann::json regressionJson(const RegressionExperiment& e);

// One row per (curve, length, trial): curve, operands, backends, order, accumulation, length,
// trial, total_error, accumulation_error.
std::string reductionCsv(const ReductionExperiment& e);
nlohmann::json reductionJson(const ReductionExperiment& e);

// One row per (row, col, backend): value, bits (0x%08x), ulps from the reference, whether the
// backends differ at that element, and the exact value.
std::string productCsv(const ProductComparison& c);
nlohmann::json productJson(const ProductComparison& c);

// "0x3f800000"
std::string hexBits(float v);

}  // namespace paritylab::playground
