#pragma once
// How the CSV report's files are named and written: each beside the runs CSV, written whole or not
// at all, numbers as round-trip text. The divergence and sweep tables, the summary and the
// per-epoch curves share them.

#include <string>
#include <vector>

namespace paritylab::study {

// "out/report.csv" + "-summary" -> "out/report-summary.csv".
std::string pathBesideRunsCsv(const std::string& runsCsvPath, const std::string& suffix);
// Shortest round-trip text; "inf" / "-inf"; "" for NaN (not defined, not measured).
std::string csvCell(double v);
// Writes the rows (each whole or not at all: input::writeFileAtomically).
void writeCsvRows(const std::string& path, const std::vector<std::vector<std::string>>& rows);

}  // namespace paritylab::study
