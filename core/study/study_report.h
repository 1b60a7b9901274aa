#pragma once
// CSV report of a results database: one row per run, and <name>-summary.csv beside it with a
// per-backend summary and every backend tested against the reference (Welch, Holm-adjusted), with
// the minimum detectable difference (fraction units, 80% power) and the runs needed for the
// equivalence margin (empty: no margin is taken yet).

#include <string>
#include <vector>

#include "core/study/results_store.h"

namespace paritylab::study {

// The reference backend: "cpu-fp32" when present, else the first backend.
std::string referenceBackend(const std::vector<std::string>& backends);
// Writes runsCsvPath and, beside it, <stem>-summary.csv; returns the summary's path.
// Each file is written whole or not at all (writeFileAtomically); throws FileWriteError naming
// the file that cannot be written (a full disk, /dev/full, a read-only folder).
std::string writeReport(const ResultsStore& store, const std::string& runsCsvPath,
                        double alpha = 0.05);

}  // namespace paritylab::study
