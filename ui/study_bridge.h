#pragma once
// The ui's door to core/study's results store, CSV import and CSV report: plain functions that
// turn a database into RunData records. Qt types at the surface, core types inside.

#include <QString>
#include <QStringList>
#include <vector>

#include "core/study/study_report.h"
#include "ui/run_data.h"

namespace paritylab::ui {

struct LoadedStudy {
  std::vector<RunRecord> runs;  // every run with its epoch metrics, in database order
  QString title;                // the study's name (or the imported file's name)
  QString specJson;             // the study spec stored in the database (empty for imports)
  bool canResume = false;       // some runs are not finished and the spec can be re-run
  QString warning;              // what the user must know (a stored spec this version can't read)
};

// Reads every run and epoch of the results database at `dbPath`.
bool loadDatabase(const QString& dbPath, LoadedStudy* out, QString* error);
// The runs a study spec plans (backend x seed, in the runner's order), pending, with ids < 0
// until the runner gives them database ids. False with the parser's reason for a bad spec.
bool plannedRuns(const QString& specJson, std::vector<RunRecord>* out, QString* error);
// Imports a CSV of results from real hardware into a new results database at `dbPath`. `notes`
// collects what the import summary must say (a percent column, runs already present, identical
// runs).
bool importCsv(const QString& csvPath, const QString& dbPath, QString* error,
               QStringList* notes = nullptr);
// Writes the CSV report of a database: the runs CSV and <stem>-summary.csv beside it (per-backend
// summary and the comparisons chosen in `options`); `written` receives both paths.
bool writeCsvReport(const QString& dbPath, const QString& csvPath,
                    const study::ReportOptions& options, QStringList* written, QString* error);
// Writes the per-step curves (long form: run_id, backend, seed, step, epoch, metric, value).
bool writeStepCurvesCsv(const QString& dbPath, const QString& csvPath, QString* error);

}  // namespace paritylab::ui
