#pragma once
// The ui's door to core/study's results store, CSV import and CSV report: plain functions that
// turn a database into RunData records. Qt types at the surface, core types inside.

#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

#include "core/study/files/import_input.h"
#include "core/study/files/prediction_files.h"
#include "core/study/files/results_import.h"
#include "core/study/files/study_report.h"
#include "ui/session/run_data.h"

namespace paritylab::ui {

struct LoadedStudy {
  std::vector<ShownRun> runs;  // every run with its epoch metrics, in database order
  QString title;               // the study's name (or the imported file's name)
  QString specJson;            // the study spec stored in the database (empty for imports)
  bool canResume = false;      // some runs are not finished and the spec can be re-run
  QString warning;             // what the user must know (a stored spec this version can't read)
};

// Reads every run and epoch of the results database at `dbPath`.
bool loadDatabase(const QString& dbPath, LoadedStudy* out, QString* error);
// The runs a study spec plans (backend x seed, in the runner's order), pending, with ids < 0
// until the runner gives them database ids. False with the parser's reason for a bad spec.
bool plannedRuns(const QString& specJson, std::vector<ShownRun>* out, QString* error);
// Editing the study of an open database from `storedJson` to `nextJson`: true when the edit
// extends it (study::runsAddedByExtending: the same study with more seeds or backends), with the
// runs it adds to `present` in `added` (pending, runId 0 until given one). False when it is
// another study or a spec does not parse.
bool runsAddedByEdit(const QString& storedJson, const QString& nextJson,
                     const std::vector<ShownRun>& present, std::vector<ShownRun>* added);
// Results from real hardware, read and checked whole before anything is written: a results CSV,
// TensorBoard event files (a folder of runs, or one events.out.tfevents.* file), or a tracker's
// CSV export (W&B, MLflow, Lightning, TensorBoard downloads), read as `paritylab-cli import`
// reads them (core/study/files/import_input.h).
struct ResultsImport {
  QString path;
  QString format;  // what it was read as ("a W&B history export (CSV)")
  std::vector<study::ImportedRun> runs;
  QStringList skipped;  // "run folder: why", left out of the import
  QStringList notes;    // what reading found (a percent column, identical runs, tags read)
  QString perplexity;   // the tag or metric whose ln is the test loss ("" when a loss is read)
  // Per-example predictions read with the runs (ImportChoices::predictions), one per run.
  std::optional<study::RunsPredictions> predictions;
};
// How an import reads its input: the command line's --format, and the options of the readers
// (--backend-from, --accuracy-tag and the others: `logs` for event files and trackers' exports,
// `csv` for the generic results CSV). Defaults: the format told by the header, the defaults of
// `paritylab-cli import`.
struct ImportChoices {
  study::ImportFormat format = study::ImportFormat::Auto;
  study::CsvImportOptions csv;
  study::TensorBoardImportOptions logs;
  // --predictions and --labels (prediction_files.h): both, or neither.
  std::string predictions, labels;
};
// Reads and checks every row or record at `path`; false with the reader's reason (file, line or
// byte offset, column or tag).
bool readImportedResults(const QString& path, const ImportChoices& choices, ResultsImport* out,
                         QString* error);
bool readImportedResults(const QString& path, ResultsImport* out, QString* error);
// What an import would add, said before anything is written: the runs per backend with their
// seeds and epochs, what was skipped and why ("28 runs: cuda 14 (seeds 0-13, 10 epochs each),
// ...").
QString importPreview(const ResultsImport& import);
// Writes `import` as a new results database at `dbPath`: built beside it under a temporary name
// and renamed over `dbPath` only once complete, so a failure leaves an existing `dbPath` (and its
// -wal) as it was. Replacing an existing file is the caller's decision (ask first).
bool writeImportedDatabase(ResultsImport& import, const QString& dbPath, QString* error);
// readImportedResults, then writeImportedDatabase: the CSV's runs as a new database at `dbPath`
// (replacing it: the caller asked first). `notes` receives what reading found.
bool importResults(const QString& csvPath, const QString& dbPath, QString* error,
                   QStringList* notes = nullptr);
// The runs stored in the results database at `path` (read-only), or -1 when `path` is not one.
int storedRunCount(const QString& path);
// A file name in `folder` that does not exist yet: `stem`.db, else `stem`-2.db, `stem`-3.db, ...
QString unusedDatabaseName(const QString& folder, const QString& stem);
// Writes the CSV report of a database, the same files as `paritylab-cli report --csv`
// (study::writeReportFiles): the runs CSV, <stem>-summary.csv (per-backend summary and the
// comparisons chosen in `options`), the divergence tables and <stem>-epochs.csv. `written`
// receives every path; `note` why the divergence tables were not written, else "".
bool writeCsvReport(const QString& dbPath, const QString& csvPath,
                    const study::ReportOptions& options, QStringList* written, QString* note,
                    QString* error);
// Writes the X-ray samples CSV (`paritylab-cli report --xray`).
bool writeXrayCsv(const QString& dbPath, const QString& csvPath, QString* error);
// Writes the per-step curves (long form: run_id, backend, seed, step, epoch, metric, value).
bool writeStepCurvesCsv(const QString& dbPath, const QString& csvPath, QString* error);

}  // namespace paritylab::ui
