#include "ui/session/study_bridge.h"

#include <QDir>
#include <QFileInfo>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <map>

#include "core/input/atomic_file.h"
#include "core/input/number_input.h"
#include "core/study/files/curves_export.h"
#include "core/study/files/import_input.h"
#include "core/study/files/report_files.h"
#include "core/study/files/results_import.h"
#include "core/study/files/study_report.h"
#include "core/study/files/xray_rows.h"
#include "core/study/run/study_extension.h"
#include "core/study/run/study_runner.h"
#include "core/study/store/database_file.h"
#include "core/study/store/results_store.h"
#include "ui/session/core_errors.h"

namespace paritylab::ui {
namespace {

// A planned run as the ui lists it before it starts: pending, no loss yet.
ShownRun pendingRun(const study::StudySpec& spec, const study::PlannedRun& planned) {
  const study::BackendEntry& entry = spec.backends[planned.backendIndex];
  ShownRun run;
  run.backend = QString::fromStdString(entry.name);
  run.seed = planned.seed;
  // A run counted in steps has as many epochs as its data make of them: known once it trains.
  const nn::TrainConfig config = study::trainConfigFor(spec, entry);
  run.totalEpochs = config.steps > 0 ? 0 : config.epochs;
  run.currentLoss = std::nan("");
  return run;
}

}  // namespace

bool loadDatabase(const QString& dbPath, LoadedStudy* out, QString* error) {
  return guarded(error, [&] {
    if (!QFileInfo::exists(dbPath)) {
      if (error) *error = QObject::tr("%1: no such file").arg(dbPath);
      return false;
    }
    const auto store = study::ResultsStore::openReadOnly(dbPath.toStdString());
    const auto runs = store->loadRuns();
    const auto epochs = store->loadAllEpochs();
    const auto steps = store->loadAllSteps();
    const auto warnings = store->loadAllSignals();
    const auto owners = store->runningOwners();
    out->runs.clear();
    out->warning.clear();
    bool unfinished = false, imported = false;
    for (const study::RunRecord& r : runs) {
      ShownRun run;
      run.runId = r.id;
      run.backend = QString::fromStdString(r.backend);
      run.seed = r.seed;
      run.state = r.status;
      run.epoch = r.status == study::RunState::Diverged ? r.divergedEpoch : r.epochsDone;
      run.finalAccuracy = r.finalAccuracy;
      run.finalTestLoss = r.finalTestLoss;
      run.wallSeconds = r.wallSeconds;
      run.message = QString::fromStdString(r.message);
      run.runName = QString::fromStdString(r.runName);
      run.seedGiven = r.seedGiven;
      run.currentLoss = std::nan("");
      if (auto it = owners.find(r.id); it != owners.end()) {
        if (study::ownerIsGone(it->second)) {
          // Nobody trains it any more: shown as the cancelled run it is (dashed, out of the
          // means), labelled "interrupted"; Start (resume) redoes it.
          run.ownerGone = true;
          run.state = study::RunState::Cancelled;
        } else
          run.runningElsewhere = QString::fromStdString(it->second);
      }
      if (auto it = epochs.find(r.id); it != epochs.end())
        for (const study::EpochRecord& e : it->second)
          run.epochs.push_back({e.epoch, e.trainLoss, e.testLoss, e.testAccuracy, e.skippedSteps});
      // The stored step sample, as live step events would have brought it.
      if (auto it = steps.find(r.id); it != steps.end())
        for (const study::StepRecord& st : it->second)
          run.steps.push_back({st.step, st.trainLoss, st.lr, st.epoch});
      if (auto it = warnings.find(r.id); it != warnings.end())
        for (const study::SignalRecord& w : it->second.steps)
          run.warnings.push_back(study::signalPointOf(w));
      run.totalEpochs = std::max(run.epoch, static_cast<int>(run.epochs.size()));
      unfinished |= !run.finished() || r.status == study::RunState::Cancelled ||
                    r.status == study::RunState::Failed;
      imported |= r.source == "imported";
      out->runs.push_back(std::move(run));
    }
    out->specJson = QString::fromStdString(store->loadStudySpecJson());
    out->title = QFileInfo(dbPath).completeBaseName();
    if (!out->specJson.isEmpty()) {
      try {
        const study::StudySpec spec = store->loadStudySpec();
        if (!spec.name.empty()) out->title = QString::fromStdString(spec.name);
        if (!spec.origin.empty()) {
          imported = true;
          out->title = QFileInfo(QString::fromStdString(spec.origin)).fileName();
        }
        for (ShownRun& run : out->runs)
          if (run.totalEpochs < spec.train.epochs && !imported && spec.train.steps == 0)
            run.totalEpochs = spec.train.epochs;
      } catch (const std::exception& e) {
        // A spec this version cannot parse: show the runs, say why nothing can be resumed.
        out->warning = QObject::tr("The stored study cannot be resumed by this version: %1")
                           .arg(ui::errorText(e));
        out->specJson.clear();
      }
    }
    if (imported) out->specJson.clear();  // nothing to re-run for results from real hardware
    out->canResume = unfinished && !imported && !out->specJson.isEmpty();
    return true;
  });
}

bool plannedRuns(const QString& specJson, std::vector<ShownRun>* out, QString* error) {
  return guarded(error, [&] {
    const study::StudySpec spec = study::parseStudySpec(specJson.toStdString(), "study");
    out->clear();
    std::int64_t pendingId = 0;  // ids < 0 until the runner gives database ids
    // A sequential study's later rounds are announced when (and if) it trains them.
    for (const study::PlannedRun& p : study::firstRoundRunsOf(spec)) {
      ShownRun run = pendingRun(spec, p);
      run.runId = --pendingId;
      out->push_back(std::move(run));
    }
    return true;
  });
}

bool runsAddedByEdit(const QString& storedJson, const QString& nextJson,
                     const std::vector<ShownRun>& present, std::vector<ShownRun>* added) {
  return guarded(nullptr, [&] {
    const study::StudySpec next = study::parseStudySpec(nextJson.toStdString());
    std::vector<study::RunIdentity> have;
    for (const ShownRun& run : present) have.push_back({run.backend.toStdString(), run.seed});
    const auto runs =
        study::runsAddedByExtending(study::parseStudySpec(storedJson.toStdString()), next, have);
    if (!runs) return false;
    added->clear();
    for (const study::PlannedRun& p : *runs) added->push_back(pendingRun(next, p));
    return true;
  });
}

bool readImportedResults(const QString& path, ResultsImport* out, QString* error) {
  return readImportedResults(path, ImportChoices{}, out, error);
}

bool readImportedResults(const QString& path, const ImportChoices& choices, ResultsImport* out,
                         QString* error) {
  return guarded(error, [&] {
    if (choices.predictions.empty() != choices.labels.empty())
      throw input::InputError(
          "predictions and labels go together (each run's file, and the test set's labels)");
    study::ImportInput input =
        study::readImportInput(path.toStdString(), choices.format, choices.csv, choices.logs);
    out->predictions.reset();
    if (!choices.predictions.empty()) {
      out->predictions =
          study::readRunsPredictions(choices.predictions, choices.labels, input.runs);
      input.notes.insert(input.notes.end(), out->predictions->notes.begin(),
                         out->predictions->notes.end());
    }
    for (const std::string& note : study::identicalRunNotes(input.runs))
      input.notes.push_back(note);
    out->path = path;
    out->format = QString::fromStdString(study::formatDescription(input.format));
    out->runs = std::move(input.runs);
    out->perplexity = QString::fromStdString(input.perplexity);
    out->skipped.clear();
    for (const study::SkippedRun& s : input.skipped)
      out->skipped << QString::fromStdString(s.folder + ": " + s.why);
    out->notes.clear();
    if (!input.tags.empty())
      out->notes << QObject::tr("tags read: %1").arg(QString::fromStdString(input.tags));
    if (!input.metrics.empty())
      out->notes << QObject::tr("metrics read: %1").arg(QString::fromStdString(input.metrics));
    for (const std::string& note : input.notes) out->notes << QString::fromStdString(note);
    return true;
  });
}

QString importPreview(const ResultsImport& import) {
  struct Backend {
    std::vector<std::uint64_t> seeds;
    std::size_t fewest = SIZE_MAX, most = 0;  // epochs
    int diverged = 0;
  };
  std::map<std::string, Backend> backends;
  for (const study::ImportedRun& r : import.runs) {
    Backend& b = backends[r.run.backend];
    b.seeds.push_back(r.run.seed);
    b.fewest = std::min(b.fewest, r.epochs.size());
    b.most = std::max(b.most, r.epochs.size());
    b.diverged += r.run.status == study::RunState::Diverged ? 1 : 0;
  }
  QStringList parts;
  for (const auto& [name, b] : backends) {
    const auto [low, high] = std::minmax_element(b.seeds.begin(), b.seeds.end());
    const QString seeds = *low == *high ? QObject::tr("seed %1").arg(*low)
                                        : QObject::tr("seeds %1-%2").arg(*low).arg(*high);
    const QString epochs = b.fewest == b.most
                               ? QObject::tr("%1 epochs each").arg(b.most)
                               : QObject::tr("%1 to %2 epochs").arg(b.fewest).arg(b.most);
    const QString diverged =
        b.diverged == 0 ? QString() : QObject::tr(", %1 diverged").arg(b.diverged);
    parts << QObject::tr("%1 %2 (%3, %4%5)")
                 .arg(QString::fromStdString(name))
                 .arg(b.seeds.size())
                 .arg(seeds, epochs, diverged);
  }
  QString text = (import.runs.size() == 1 ? QObject::tr("1 run: %1.")
                                          : QObject::tr("%1 runs: %2.").arg(import.runs.size()))
                     .arg(parts.join(QStringLiteral(", ")));
  if (!import.skipped.isEmpty())
    text += QObject::tr(" Skipped: %1.").arg(import.skipped.join(QStringLiteral("; ")));
  return text;
}

bool writeImportedDatabase(ResultsImport& import, const QString& dbPath, QString* error) {
  return guarded(error, [&] {
    // Built beside the target (the final rename never crosses file systems) and put in its place
    // only when complete; abandoned, the build removes what it created and nothing else.
    study::DatabaseBuild build(std::filesystem::absolute(dbPath.toStdString()).string());
    {
      const auto store = study::ResultsStore::open(build.path(), true);
      study::importRuns(*store, import.path.toStdString(), import.runs);
      if (import.predictions) study::storeRunsPredictions(*store, *import.predictions, import.runs);
    }  // closed: the last connection folds the -wal into the file
    build.commit();
    return true;
  });
}

bool importResults(const QString& csvPath, const QString& dbPath, QString* error,
                   QStringList* notes) {
  ResultsImport import;
  if (!readImportedResults(csvPath, &import, error) ||
      !writeImportedDatabase(import, dbPath, error))
    return false;
  if (notes) *notes = import.notes;
  return true;
}

int storedRunCount(const QString& path) {
  try {
    return static_cast<int>(
        study::ResultsStore::openReadOnly(path.toStdString())->loadRuns().size());
  } catch (const std::exception&) {
    return -1;
  }
}

QString unusedDatabaseName(const QString& folder, const QString& stem) {
  const QDir dir(folder);
  QString name = stem + QStringLiteral(".db");
  for (int n = 2; dir.exists(name); ++n) name = QStringLiteral("%1-%2.db").arg(stem).arg(n);
  return name;
}

bool writeCsvReport(const QString& dbPath, const QString& csvPath,
                    const study::ReportOptions& options, QStringList* written, QString* note,
                    QString* error) {
  return guarded(error, [&] {
    const auto store = study::ResultsStore::openReadOnly(dbPath.toStdString());
    const study::ReportFiles files =
        study::writeReportFiles(*store, csvPath.toStdString(), options);
    if (written)
      for (const study::ReportFile& file : files.written)
        *written << QString::fromStdString(file.path);
    if (note) *note = QString::fromStdString(files.skipped);
    return true;
  });
}

bool writeXrayCsv(const QString& dbPath, const QString& csvPath, QString* error) {
  return guarded(error, [&] {
    const auto store = study::ResultsStore::openReadOnly(dbPath.toStdString());
    study::writeXrayCsv(*store, csvPath.toStdString());
    return true;
  });
}

bool writeStepCurvesCsv(const QString& dbPath, const QString& csvPath, QString* error) {
  return guarded(error, [&] {
    const auto store = study::ResultsStore::openReadOnly(dbPath.toStdString());
    study::writeStepCurves(*store, csvPath.toStdString());
    return true;
  });
}

}  // namespace paritylab::ui
