#include "core/study/files/report_files.h"

#include "core/study/files/curves_export.h"
#include "core/study/files/divergence_export.h"
#include "core/study/files/report_csv.h"
#include "core/study/files/sweep_export.h"

namespace paritylab::study {

std::string epochCurvesPathFor(const std::string& runsCsvPath) {
  return pathBesideRunsCsv(runsCsvPath, "-epochs");
}

ReportFiles writeReportFiles(const ResultsStore& store, const std::string& runsCsvPath,
                             const ReportOptions& options) {
  ReportFiles files;
  const std::string summary = writeReport(store, runsCsvPath, options);
  files.written.push_back({runsCsvPath, "runs"});
  files.written.push_back({summary, "summary and comparisons"});
  const DivergenceFiles divergence = writeDivergenceReport(store, runsCsvPath, options);
  for (const std::string& path : divergence.written) files.written.push_back({path, "divergence"});
  files.skipped = divergence.skipped;
  if (store.hasStudy()) {
    const StudySpec spec = store.loadStudySpec();
    if (!spec.sweep.empty()) {
      SweepOptions sweep;
      sweep.metric = options.metric.value_or(defaultComparedMetric(spec));
      sweep.alpha = options.alpha;
      for (const std::string& path :
           writeSweepCsv(analyseSweep(spec, store.loadRuns(), sweep), runsCsvPath))
        files.written.push_back({path, "sweep"});
    }
  }
  const std::string epochs = epochCurvesPathFor(runsCsvPath);
  writeEpochCurves(store, epochs);
  files.written.push_back({epochs, "per-epoch curves"});
  return files;
}

}  // namespace paritylab::study
