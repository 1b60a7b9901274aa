#pragma once
// The CSV report of a results database, as one list of files: the runs CSV, its summary with the
// chosen comparisons (study_report.h), the divergence tables beside them (divergence_export.h)
// and the per-epoch curves. `paritylab-cli report --csv` and the app's Export all both write it,
// so the two always hold the same tables.

#include <string>
#include <vector>

#include "core/study/files/study_report.h"
#include "core/study/store/results_store.h"

namespace paritylab::study {

struct ReportFile {
  std::string path;
  std::string what;  // "runs", "summary and comparisons", "divergence", "per-epoch curves"
};

struct ReportFiles {
  std::vector<ReportFile> written;  // in the order written
  std::string skipped;              // why the divergence tables were not written, else ""
};

// Writes, for runsCsvPath "out/report.csv": out/report.csv, out/report-summary.csv,
// out/report-divergence-*.csv (when the database holds predictions), out/report-sweep-*.csv (a
// sweep's analysis, sweep_export.h) and out/report-epochs.csv.
// Throws (naming the file or the option) before writing anything when a backend named in
// `options` has no runs.
ReportFiles writeReportFiles(const ResultsStore& store, const std::string& runsCsvPath,
                             const ReportOptions& options);

// The per-epoch curves' path for a runs CSV path: "out/report.csv" -> "out/report-epochs.csv".
std::string epochCurvesPathFor(const std::string& runsCsvPath);

}  // namespace paritylab::study
