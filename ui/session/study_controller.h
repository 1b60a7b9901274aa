#pragma once
// What the main window shows and what Start acts on: a study spec (not started yet), a study in
// a results database (opened, or started here), imported results, or a spec with problems. It
// owns the StudySession and the StudyFollower (a database another process writes), keeps the shared
// actions' enabled state and tooltips true to that state, and names the database the runs go to.
// The first Start and every import ask where the results database goes (a dialog in a visible
// documents folder, remembered); tests and `--db` replace the dialog with setDatabaseChooser().

#include <QObject>
#include <QString>
#include <QStringList>
#include <functional>

#include "ui/session/shown_study.h"
#include "ui/session/study_progress.h"

namespace paritylab::ui {

class RunData;
class StudyActions;
class StudyFollower;
class StudySession;
struct ResultsImport;

class StudyController : public QObject {
  Q_OBJECT

 public:
  using Mode = ShownStudy::Mode;
  // Asks for a results database path; returns "" when the user declines.
  using DatabaseChooser = std::function<QString(const QString& title, const QString& suggested)>;

  // Changes `shown` (the window's one shown study) as studies are loaded, started and imported.
  StudyController(ShownStudy* shown, StudyActions* actions, QObject* parent = nullptr);

  // Asks before a file is replaced (its name and run count in `text`); true = replace.
  using Confirmation = std::function<bool(const QString& title, const QString& text)>;

  void setDatabaseChooser(DatabaseChooser chooser) { chooser_ = std::move(chooser); }
  // Replaces the question asked before an import replaces an existing file (tests). Without it,
  // a visible window asks with a dialog (Cancel by default) and a hidden one keeps the file.
  void setConfirmation(Confirmation confirm) { confirmation_ = std::move(confirm); }
  // Replaces the question asked, after reading and before a database is chosen, whether to import
  // what was found (its preview: runs per backend, seeds, epochs, what was skipped) (tests).
  // Without it, a visible window asks with a dialog and a hidden one imports.
  void setImportPreview(Confirmation confirm) { importPreview_ = std::move(confirm); }
  // The database the first Start of a spec writes to, instead of asking (`--db`); "" = ask.
  void setStartDatabase(const QString& path);
  // The folder suggested for new databases: the last one chosen (QSettings), else
  // Documents/ParityLab.
  static QString databaseFolder();

  // Loads a spec file: every problem at once (file:line: field: what), Start disabled until valid.
  bool loadSpecFile(const QString& path);
  bool loadSpecText(const QString& json, const QString& sourceName);
  bool openDatabase(const QString& path);
  // Reads and checks the whole of `path` (a results CSV, or TensorBoard logs: a folder of runs or
  // an event file), then writes its runs as a new database: at `target`, or, after the preview is
  // accepted, where the user chooses (a name not taken yet is suggested). An existing file is
  // replaced only after a confirmation naming it and its run count; a failure leaves it as it was.
  bool importResults(const QString& path, const QString& target = {});
  // Stores results already read and shown (the Import dialog's preview): asks where the new
  // database goes when `target` is "", and before replacing a file, as importResults does.
  bool storeImport(ResultsImport import, const QString& target = {});
  void setEditedSpec(const QString& json);  // the Study dialog's (valid) spec
  bool start();                             // acts on what is shown
  bool resume();
  void cancel();

  Mode mode() const { return shown_->mode(); }
  ShownStudy* shown() const { return shown_; }
  bool isRunning() const;
  StudySession* session() const { return session_; }
  // Follows the opened database while this window is not training into it: what another process
  // commits appears live, and Start is disabled while runs are running elsewhere.
  StudyFollower* follower() const { return follower_; }
  QString specJson() const { return shown_->specJson(); }
  QString specName() const { return shown_->specName(); }
  // "" until the first Start of a new spec; while a session starts, the database it starts in.
  QString databasePath() const {
    return startingDatabase_.isEmpty() ? shown_->database() : startingDatabase_;
  }
  QString importedFrom() const { return importedFrom_; }
  QStringList problems() const { return problems_; }
  QString headerHtml() const;     // the study line above the runs table
  QString databaseText() const;   // "Results: /path/x.db" or where they will go
  QString progressTitle() const;  // "7/15 runs, 0:42 left" while running, else ""

 signals:
  void changed();  // mode, spec, database or running state changed: refresh header and title
  void progressChanged();
  void statusMessage(const QString& text);
  void errorOccurred(const QString& what, const QString& detail);
  void databaseUsed(const QString& path);  // for File > Recent

 private:
  void setMode(Mode mode);
  void describeShownSpec();  // the shown spec's name, from its JSON
  void updateActions();
  void updateFollowing();  // follow the database in Study mode while not training here
  bool hasUnfinishedRuns() const;
  bool startSession(const QString& path, bool resume);
  QString chooseDatabase(const QString& title, const QString& fileName,
                         bool dialogConfirmsOverwrite = true);
  bool confirmReplace(const QString& db, const ResultsImport& import);
  bool acceptImport(const ResultsImport& import);  // the preview, before a database is chosen

  ShownStudy* shown_;
  RunData* data_;  // shown_->runs()
  StudyActions* actions_;
  StudySession* session_;
  StudyFollower* follower_;
  StudyProgress progress_;
  DatabaseChooser chooser_;
  Confirmation confirmation_;
  Confirmation importPreview_;
  QString specSource_, importedFrom_;
  QString startingDatabase_;  // while a session starts: the database it starts in
  QString startDatabase_;     // --db: where the first Start writes
  QStringList problems_;
};

// "1 problem" / "3 problems", "1 run" / "3 runs" (study_controller_text.cpp).
QString countedProblems(qsizetype n);
QString countedRuns(qsizetype n);

}  // namespace paritylab::ui
