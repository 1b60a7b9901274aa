#include "ui/session/study_controller.h"

#include <QAction>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QSettings>
#include <QStandardPaths>
#include <QWidget>

#include "core/study/spec/spec_check.h"
#include "core/study/spec/study_spec.h"
#include "ui/session/background_read.h"
#include "ui/session/run_data.h"
#include "ui/session/shown_study.h"
#include "ui/session/spec_description.h"
#include "ui/session/study_actions.h"
#include "ui/session/study_bridge.h"
#include "ui/session/study_follower.h"
#include "ui/session/study_session.h"

namespace paritylab::ui {
namespace {

const char* kFolderKey = "databaseFolder";

}  // namespace

StudyController::StudyController(ShownStudy* shown, StudyActions* actions, QObject* parent)
    : QObject(parent),
      shown_(shown),
      data_(shown->runs()),
      actions_(actions),
      session_(new StudySession(data_, this)),
      follower_(new StudyFollower(data_, this)),
      progress_(data_) {
  connect(follower_, &StudyFollower::writersChanged, this, [this] {
    updateActions();
    emit changed();
  });
  connect(follower_, &StudyFollower::runsChanged, this, [this](int added, int) {
    if (added > 0)
      emit statusMessage(tr("%1 added to %2 by another process")
                             .arg(countedRuns(added), QFileInfo(shown_->database()).fileName()));
  });
  connect(follower_, &StudyFollower::databaseReplaced, this, [this](const QString& why) {
    const QString path = shown_->database();
    if (!openDatabase(path)) return;
    emit statusMessage(tr("%1: reloaded %2, now %3 of %4")
                           .arg(why, QFileInfo(path).fileName(), countedRuns(data_->runs().size()),
                                shown_->specName()));
  });
  connect(follower_, &StudyFollower::databaseMissing, this, [this] {
    emit errorOccurred(
        tr("%1 is gone").arg(QFileInfo(shown_->database()).fileName()),
        tr("%1 was deleted or moved by another program. The runs shown are what it "
           "held when last read; they are not saved anywhere else.")
            .arg(QDir::toNativeSeparators(QFileInfo(shown_->database()).absoluteFilePath())));
  });
  connect(session_, &StudySession::runningChanged, this, [this](bool running) {
    updateFollowing();
    if (running) {
      progress_.start();
      emit statusMessage(tr("Training %1 · %2").arg(shown_->specName(), databaseText()));
    } else {
      progress_.stop();
    }
    updateActions();
    emit changed();
  });
  connect(session_, &StudySession::finished, this, [this](bool cancelled) {
    int completed = 0, stopped = 0;
    for (const ShownRun& run : data_->runs()) {
      completed += run.state == study::RunState::Completed ? 1 : 0;
      stopped += run.state == study::RunState::Cancelled || run.state == study::RunState::Pending ||
                         run.state == study::RunState::Running
                     ? 1
                     : 0;
    }
    const int total = static_cast<int>(data_->runs().size());
    emit statusMessage(cancelled
                           ? tr("Study cancelled: %1 of %2 runs completed, %3 not finished (Resume "
                                "finishes them) · %4")
                                 .arg(completed)
                                 .arg(total)
                                 .arg(stopped)
                                 .arg(databaseText())
                           : tr("Study finished: %1 of %2 runs completed · %3")
                                 .arg(completed)
                                 .arg(total)
                                 .arg(databaseText()));
    updateActions();
    emit changed();
  });
  connect(session_, &StudySession::lockstepStored, shown_, &ShownStudy::announceLockstepStored);
  connect(session_, &StudySession::failed, this, [this](const QString& reason) {
    emit errorOccurred(tr("The study stopped"), reason);
    updateActions();
    emit changed();
  });
  connect(data_, &RunData::updated, this, [this] {
    if (isRunning()) emit progressChanged();
  });
  updateActions();
}

bool StudyController::isRunning() const {
  return session_->isRunning();
}

QString StudyController::databaseFolder() {
  QString remembered = QSettings().value(kFolderKey).toString();
  if (!remembered.isEmpty()) return remembered;
  return QDir(QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation))
      .filePath(QStringLiteral("ParityLab"));
}

QString StudyController::chooseDatabase(const QString& title, const QString& fileName,
                                        bool dialogConfirmsOverwrite) {
  const QString folder = databaseFolder();
  QString path;
  if (chooser_) {
    path = chooser_(title, QDir(folder).filePath(fileName));
  } else {
    QDir().mkpath(folder);  // a visible folder the dialog opens in
    path = QFileDialog::getSaveFileName(
        qobject_cast<QWidget*>(parent()), title, QDir(folder).filePath(fileName),
        tr("Results database (*.db);;All files (*)"), nullptr,
        dialogConfirmsOverwrite ? QFileDialog::Options() : QFileDialog::DontConfirmOverwrite);
  }
  if (path.isEmpty()) return {};
  if (QFileInfo(path).suffix().isEmpty()) path += QStringLiteral(".db");
  const QString chosenFolder = QFileInfo(path).absolutePath();
  QDir().mkpath(chosenFolder);
  QSettings().setValue(kFolderKey, chosenFolder);
  return path;
}

bool StudyController::loadSpecFile(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) {
    shown_->setSpec({}, shown_->specName());
    specSource_ = path;
    shown_->setSpec(shown_->specJson(), QFileInfo(path).fileName());
    problems_ = QStringList{tr("%1: %2").arg(path, file.errorString())};
    shown_->setDatabase({});
    data_->clear(shown_->specName());
    setMode(Mode::InvalidSpec);
    emit errorOccurred(tr("Cannot open the study"), problems_.front());
    return false;
  }
  return loadSpecText(QString::fromUtf8(file.readAll()), path);
}

bool StudyController::loadSpecText(const QString& json, const QString& sourceName) {
  shown_->setSpec(json, shown_->specName());
  specSource_ = sourceName;
  shown_->setDatabase({});
  importedFrom_.clear();
  problems_.clear();
  for (const study::SpecIssue& issue :
       study::checkStudySpec(json.toStdString(), sourceName.toStdString()))
    problems_ << QString::fromStdString(issue.message);
  if (!problems_.isEmpty()) {
    shown_->setSpec(shown_->specJson(), QFileInfo(sourceName).fileName());
    data_->clear(shown_->specName());
    setMode(Mode::InvalidSpec);
    emit errorOccurred(tr("The study %1 has %2").arg(sourceName, countedProblems(problems_.size())),
                       problems_.join(QLatin1Char('\n')));
    return false;
  }
  describeShownSpec();
  std::vector<ShownRun> planned;
  QString error;
  plannedRuns(shown_->specJson(), &planned, &error);
  data_->setRuns(std::move(planned), shown_->specName());
  setMode(Mode::Spec);
  emit statusMessage(tr("Study %1 ready: %2 runs · %3")
                         .arg(shown_->specName())
                         .arg(data_->runs().size())
                         .arg(databaseText()));
  return true;
}

void StudyController::setEditedSpec(const QString& json) {
  std::vector<ShownRun> newRuns;
  if (shown_->mode() == Mode::Study &&
      runsAddedByEdit(shown_->specJson(), json, data_->runs(), &newRuns)) {
    // The same study (e.g. another thread count; results do not depend on it) or more
    // seeds/backends: the same database, which Start finishes and extends; the new runs are
    // listed as pending, with ids < 0 below those already listed.
    shown_->setSpec(json, shown_->specName());
    describeShownSpec();
    std::int64_t nextId = 0;
    for (const ShownRun& run : data_->runs()) nextId = std::min(nextId, run.runId);
    const int added = int(newRuns.size());
    for (ShownRun& run : newRuns) {
      run.runId = --nextId;
      data_->upsertRun(run);
    }
    data_->flush();
    setMode(Mode::Study);
    emit statusMessage(added > 0 ? tr("%1 runs added to %2; Start runs them")
                                       .arg(added)
                                       .arg(QFileInfo(shown_->database()).fileName())
                                 : tr("Same study: %1").arg(databaseText()));
    return;
  }
  loadSpecText(json, tr("edited study"));
}

bool StudyController::openDatabase(const QString& path) {
  if (isRunning()) {
    emit errorOccurred(tr("Cannot open a database"), tr("A study is running; cancel it first."));
    return false;
  }
  LoadedStudy loaded;
  QString error;
  if (!loadDatabase(path, &loaded, &error)) {
    emit errorOccurred(tr("Cannot open the database"), error);
    return false;
  }
  shown_->setDatabase(path);
  problems_.clear();
  if (!loaded.specJson.isEmpty()) {
    shown_->setSpec(loaded.specJson, shown_->specName());
    specSource_ = path;
    importedFrom_.clear();
    describeShownSpec();
  } else {
    shown_->setSpec({}, loaded.title);
    importedFrom_ = loaded.title;
  }
  data_->setRuns(std::move(loaded.runs), loaded.title);
  setMode(importedFrom_.isEmpty() ? Mode::Study : Mode::Imported);
  emit databaseUsed(path);
  emit statusMessage(
      tr("Opened %1: %2 runs").arg(path).arg(data_->runs().size()) +
      (loaded.warning.isEmpty() ? QString() : QStringLiteral(". ") + loaded.warning));
  return true;
}

bool StudyController::importResults(const QString& path, const QString& target) {
  const QString sourceName = QFileInfo(path).fileName();
  if (isRunning()) {
    emit errorOccurred(tr("Cannot import %1").arg(sourceName),
                       tr("A study is running; cancel it first."));
    return false;
  }
  // Every row is read and checked before a database is chosen or touched, off the GUI thread
  // (the window keeps repainting while a large file is read).
  struct Read {
    ResultsImport import;
    QString error;
    bool ok = false;
  };
  Read read;
  BackgroundRead<Read> reader([&read](const Read* done, const QString& error) {
    if (done)
      read = *done;
    else
      read.error = error;
  });
  reader.start([path] {
    Read r;
    r.ok = readImportedResults(path, &r.import, &r.error);
    return r;
  });
  emit statusMessage(tr("Reading %1…").arg(sourceName));
  reader.waitResponsive();
  if (!read.ok) {
    emit errorOccurred(tr("Cannot import %1 (nothing was written)").arg(sourceName), read.error);
    return false;
  }
  if (target.isEmpty() && !acceptImport(read.import)) {
    emit statusMessage(tr("Import cancelled: nothing was written"));
    return false;
  }
  return storeImport(std::move(read.import), target);
}

bool StudyController::storeImport(ResultsImport import, const QString& target) {
  const QString path = import.path;
  const QString sourceName = QFileInfo(path).fileName();
  if (isRunning()) {
    emit errorOccurred(tr("Cannot import %1").arg(sourceName),
                       tr("A study is running; cancel it first."));
    return false;
  }
  QString error;
  QString db = target;
  if (db.isEmpty()) {
    db = chooseDatabase(tr("Save the imported results as"),
                        unusedDatabaseName(databaseFolder(), QFileInfo(path).completeBaseName()),
                        false);
    if (db.isEmpty()) {
      emit statusMessage(tr("Import cancelled: no database chosen"));
      return false;
    }
  }
  if (QFileInfo::exists(db) && !confirmReplace(db, import)) {
    emit statusMessage(tr("Import cancelled: %1 kept as it was").arg(db));
    return false;
  }
  if (!writeImportedDatabase(import, db, &error)) {
    emit errorOccurred(tr("Cannot import %1").arg(sourceName), error);
    return false;
  }
  if (!openDatabase(db)) return false;
  importedFrom_ = sourceName;
  emit changed();
  emit statusMessage(
      tr("Imported %1 from %2 into %3").arg(countedRuns(data_->runs().size()), importedFrom_, db) +
      (import.notes.isEmpty() ? QString()
                              : QStringLiteral(". ") + import.notes.join(QStringLiteral("; "))));
  return true;
}

bool StudyController::acceptImport(const ResultsImport& import) {
  const QString title = tr("Import from %1?").arg(QFileInfo(import.path).fileName());
  const QString preview = importPreview(import);
  if (importPreview_) return importPreview_(title, preview);
  auto* window = qobject_cast<QWidget*>(parent());
  if (!window || !window->isVisible()) return true;  // nobody to ask (command line): import
  QMessageBox box(QMessageBox::Question, title,
                  tr("%1\nMeasured on real hardware; each run is kept with the file it came from.")
                      .arg(preview),
                  QMessageBox::Yes | QMessageBox::Cancel, window);
  box.setDefaultButton(QMessageBox::Yes);
  if (!import.notes.isEmpty()) box.setDetailedText(import.notes.join(QLatin1Char('\n')));
  return box.exec() == QMessageBox::Yes;
}

bool StudyController::confirmReplace(const QString& db, const ResultsImport& import) {
  const int held = storedRunCount(db);
  const QString name = QDir::toNativeSeparators(QFileInfo(db).absoluteFilePath());
  const QString what = held >= 0 ? tr("%1 holds %2.").arg(name, countedRuns(held))
                                 : tr("%1 exists and is not a results database.").arg(name);
  const QString question = tr("%1 Replace it with the %2 imported from %3? What it holds is lost.")
                               .arg(what, countedRuns(static_cast<qsizetype>(import.runs.size())),
                                    QFileInfo(import.path).fileName());
  if (confirmation_)
    return confirmation_(tr("Replace %1?").arg(QFileInfo(db).fileName()), question);
  auto* window = qobject_cast<QWidget*>(parent());
  if (!window || !window->isVisible()) {  // nobody to ask (command line): keep the file
    emit errorOccurred(tr("Cannot import into %1").arg(QFileInfo(db).fileName()),
                       tr("%1 Choose a new file for the import.").arg(what));
    return false;
  }
  return QMessageBox::warning(window, tr("Replace %1?").arg(QFileInfo(db).fileName()), question,
                              QMessageBox::Yes | QMessageBox::Cancel,
                              QMessageBox::Cancel) == QMessageBox::Yes;
}

bool StudyController::startSession(const QString& path, bool resume) {
  // The database is named before the session starts, so that every text written while it
  // starts (the status bar's "Training …", the header) names it; the shown study (and the panels
  // that read it) gets it once it exists.
  startingDatabase_ = path;
  QString error;
  const bool started = session_->start(shown_->specJson(), path, resume, &error);
  startingDatabase_.clear();
  if (!started) {
    emit errorOccurred(tr("Cannot start the study"), error);
    emit changed();
    return false;
  }
  shown_->setDatabase(path);
  emit databaseUsed(path);
  setMode(Mode::Study);
  return true;
}

void StudyController::setStartDatabase(const QString& path) {
  startDatabase_ = path;
  emit changed();
}

bool StudyController::start() {
  if (isRunning()) return false;
  switch (shown_->mode()) {
    case Mode::Spec: {
      const QString stamp =
          QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"));
      const QString path =
          !startDatabase_.isEmpty()
              ? startDatabase_
              : chooseDatabase(tr("Save the results of %1 as").arg(shown_->specName()),
                               QStringLiteral("%1-%2.db").arg(shown_->specName(), stamp));
      if (path.isEmpty()) {
        emit statusMessage(tr("Not started: no database chosen"));
        return false;
      }
      return startSession(path, false);
    }
    case Mode::Study:
      if (!hasUnfinishedRuns()) {
        emit errorOccurred(
            tr("Nothing to run"),
            tr("Every run of %1 in %2 is finished.").arg(shown_->specName(), shown_->database()));
        return false;
      }
      return startSession(shown_->database(), true);
    case Mode::Imported:
      emit errorOccurred(tr("Nothing to run"), actions_->start->toolTip());
      return false;
    case Mode::InvalidSpec:
    case Mode::Empty:
      emit errorOccurred(tr("Cannot start the study"), actions_->start->toolTip());
      return false;
  }
  return false;
}

bool StudyController::resume() {
  if (isRunning() || shown_->mode() != Mode::Study || !hasUnfinishedRuns()) return false;
  return startSession(shown_->database(), true);
}

void StudyController::cancel() {
  session_->cancel();
}

void StudyController::describeShownSpec() {
  QString name = shown_->specName();
  describeSpec(shown_->specJson(), &name);
  shown_->setSpec(shown_->specJson(), name);
}

bool StudyController::hasUnfinishedRuns() const {
  for (const ShownRun& run : data_->runs())
    if (run.state != study::RunState::Completed && run.state != study::RunState::Diverged)
      return true;
  return false;
}

void StudyController::setMode(Mode mode) {
  shown_->setMode(mode);
  updateFollowing();
  updateActions();
  emit changed();
}

void StudyController::updateFollowing() {
  if (shown_->mode() == Mode::Study && !shown_->database().isEmpty() && !isRunning()) {
    if (!follower_->isFollowing() || follower_->path() != shown_->database())
      follower_->follow(shown_->database());
  } else {
    follower_->stop();
  }
}

void StudyController::updateActions() {
  const bool running = isRunning();
  const bool unfinished = shown_->mode() == Mode::Study && hasUnfinishedRuns();
  QString tip;
  switch (shown_->mode()) {
    case Mode::Empty:
      tip = tr("Open a study spec or edit one first");
      break;
    case Mode::Spec:
      tip = tr("Run %1 (%2 runs); asks where to save the results database")
                .arg(shown_->specName())
                .arg(data_->runs().size());
      break;
    case Mode::InvalidSpec:
      tip = tr("The study has %1 to fix first (Edit study… or the file): %2")
                .arg(countedProblems(problems_.size()), problems_.value(0));
      break;
    case Mode::Study:
      tip = unfinished ? tr("Run the unfinished runs of %1 in %2 with its own spec, keeping its "
                            "finished runs")
                             .arg(shown_->specName(), QFileInfo(shown_->database()).fileName())
                       : tr("Every run of %1 in %2 is finished; edit the study to run a new one")
                             .arg(shown_->specName(), QFileInfo(shown_->database()).fileName());
      break;
    case Mode::Imported:
      tip =
          tr("Imported results from real hardware have no study to run; open or edit a study "
             "spec to train");
      break;
  }
  // Another process is training into this database: Start would compete for its runs.
  const bool writtenElsewhere = shown_->mode() == Mode::Study && follower_->runningElsewhere() > 0;
  if (writtenElsewhere)
    tip = tr("Another process is writing %1: %2 running elsewhere (%3). Start is available once "
             "none is; the runs shown here follow the database as it commits them.")
              .arg(QFileInfo(shown_->database()).fileName(),
                   countedRuns(follower_->runningElsewhere()),
                   follower_->writers().join(QStringLiteral(", ")));
  if (running) tip = tr("A study is running");
  actions_->start->setEnabled(!running && !writtenElsewhere &&
                              (shown_->mode() == Mode::Spec || unfinished));
  actions_->start->setToolTip(tip);
  actions_->start->setStatusTip(tip);
  actions_->resume->setEnabled(!running && !writtenElsewhere && unfinished);
  if (!actions_->resume->property("usualTip").isValid())  // StudyActions' own tooltip
    actions_->resume->setProperty("usualTip", actions_->resume->toolTip());
  actions_->resume->setToolTip(
      writtenElsewhere ? tip : actions_->resume->property("usualTip").toString());
  actions_->cancel->setEnabled(running);
  for (QAction* a :
       {actions_->openSpec, actions_->openDatabase, actions_->importCsv, actions_->importLogs})
    a->setEnabled(!running);
  // Results from real hardware have no study to edit (Open study spec starts one).
  actions_->editStudy->setEnabled(!running && shown_->mode() != Mode::Imported);
  if (!actions_->editStudy->property("usualTip").isValid())
    actions_->editStudy->setProperty("usualTip", actions_->editStudy->toolTip());
  actions_->editStudy->setToolTip(
      shown_->mode() == Mode::Imported
          ? tr("Imported results from real hardware have no study to edit; open a study spec to "
               "train one")
          : actions_->editStudy->property("usualTip").toString());
}

}  // namespace paritylab::ui
