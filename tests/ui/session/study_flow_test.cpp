// The study flow: Start acts on what is shown (an opened database is finished with its own
// spec, imported results cannot start, header and status bar name the database); a bad study
// file lists every problem with file, line and field, and keeps Start disabled; one QAction per
// command in menu, toolbar and panel, disabled while training; planned runs listed as pending
// from load; the database path is asked for, in a visible documents folder, and remembered
// (tests bypass the dialog).
#include <QAction>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QtTest>

#include "core/study/spec/study_spec.h"
#include "core/study/store/results_store.h"
#include "ui/panels/divergence/divergence_panel.h"
#include "ui/panels/runs/runs_panel.h"
#include "ui/panels/runs/runs_table_model.h"
#include "ui/panels/statistics/statistics_panel.h"
#include "ui/panels/xray/xray_panel.h"
#include "ui/session/run_data.h"
#include "ui/session/study_actions.h"
#include "ui/session/study_controller.h"
#include "ui/session/study_session.h"
#include "ui/shell/main_window.h"
#include "ui/shell/study_dialog.h"

using namespace paritylab;
using namespace paritylab::ui;

namespace {

// 2 backends x 2 seeds of a 1-epoch mlp on 200 synthetic examples: a second of training.
const char* kTinySpec = R"({"version": 1, "name": "tiny",
  "dataset": {"source": "synthetic", "train_size": 200, "test_size": 100},
  "model": "mlp", "epochs": 1, "batch_size": 50,
  "chaos_floor": false, "backends": ["cpu-fp32", "tpu-bf16"], "seeds": 2, "threads": 1})";

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& text) {
  const QString path = dir.filePath(name);
  QFile file(path);
  file.open(QIODevice::WriteOnly);
  file.write(text);
  return path;
}

// A database holding the tiny study with two runs finished and two not started.
QString halfDoneDatabase(const QTemporaryDir& dir) {
  const QString path = dir.filePath("half.db");
  for (const char* suffix : {"", "-wal", "-shm"}) QFile::remove(path + suffix);  // made anew
  auto store = study::ResultsStore::open(path.toStdString(), true);
  store->saveStudySpec(study::studySpecToJson(study::parseStudySpec(kTinySpec)).dump());
  for (const auto& [backend, seed, done] : {std::tuple{"cpu-fp32", 0, true},
                                            {"tpu-bf16", 0, true},
                                            {"cpu-fp32", 1, false},
                                            {"tpu-bf16", 1, false}}) {
    study::RunRecord run;
    run.backend = backend;
    run.seed = std::uint64_t(seed);
    run.status = done ? study::RunState::Completed : study::RunState::Pending;
    run.finalAccuracy = done ? 0.5 : std::nan("");
    run.epochsDone = done ? 1 : 0;
    run.id = store->addRun(run);
    if (done) store->addEpoch(run.id, {1, 1.0, 1.0, 0.5, 0.1});
  }
  return path;
}

QByteArray fileBytes(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

QAction* menuAction(QMenuBar* bar, const QString& menuTitle, const QString& objectName) {
  for (QAction* m : bar->actions())
    if (m->menu() && m->text().remove('&') == menuTitle)
      for (QAction* a : m->menu()->actions())
        if (a->objectName() == objectName) return a;
  return nullptr;
}

}  // namespace

class StudyFlowTest : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  QStringList asked_;  // the suggested paths the database chooser was asked with

  void useChooser(MainWindow& w, const QString& answer) {
    w.controller()->setDatabaseChooser([this, answer](const QString&, const QString& suggested) {
      asked_ << suggested;
      return answer;
    });
  }

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("ParityLabTests"));
    QCoreApplication::setApplicationName(QStringLiteral("study-flow-test"));
    QSettings().clear();
    QVERIFY(dir_.isValid());
  }

  // An opened database is what Start acts on, with its own spec, into the same file.
  void startFinishesTheOpenedDatabase() {
    MainWindow w;
    asked_.clear();
    useChooser(w, dir_.filePath("never.db"));
    QVERIFY(w.controller()->loadSpecText(R"({"version": 1, "name": "other",
      "dataset": {"source": "synthetic", "train_size": 100, "test_size": 50},
      "backends": ["gpu-tf32"], "seeds": 5})",
                                         "other.json"));
    const QString db = halfDoneDatabase(dir_);
    QVERIFY(w.openDatabase(db));
    QCOMPARE(w.controller()->mode(), StudyController::Mode::Study);
    QVERIFY(w.runs()->studyText().contains("tiny"));
    QVERIFY(w.runs()->studyText().contains("half.db"));
    QVERIFY(w.databaseLabel()->text().contains("half.db"));
    QVERIFY(w.actions()->start->isEnabled());
    QVERIFY(w.actions()->start->toolTip().contains("half.db"));
    w.actions()->start->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(!w.controller()->isRunning(), 60000);
    QVERIFY(asked_.isEmpty());  // nothing asked: the runs go to the opened database
    const auto store = study::ResultsStore::open(db.toStdString());
    const auto runs = store->loadRuns();
    QCOMPARE(runs.size(), std::size_t(4));
    for (const auto& r : runs) QVERIFY(r.status == study::RunState::Completed);
    QCOMPARE(w.runData()->runs().size(), std::size_t(4));
    QVERIFY(!QFileInfo::exists(dir_.filePath("never.db")));
    QVERIFY(w.databaseLabel()->text().contains("half.db"));
    // Every run finished: Start says so and is disabled.
    QVERIFY(!w.actions()->start->isEnabled());
    QVERIFY(w.actions()->start->toolTip().contains("finished"));
  }

  // An opened study edited to more seeds is extended in its own database.
  void editedStudyExtendsItsDatabase() {
    MainWindow w;
    asked_.clear();
    useChooser(w, dir_.filePath("never2.db"));
    QTemporaryDir own;
    const QString db = halfDoneDatabase(own);
    QVERIFY(w.openDatabase(db));
    QString more = kTinySpec;
    more.replace("\"seeds\": 2", "\"seeds\": 3");
    w.controller()->setEditedSpec(more);
    QCOMPARE(w.controller()->mode(), StudyController::Mode::Study);
    QCOMPARE(w.controller()->databasePath(), db);
    QCOMPARE(w.runs()->model()->rowCount(), 6);  // 4 stored + 2 new, pending
    QVERIFY(w.runs()->studyText().contains("3 seeds"));
    QVERIFY(w.controller()->start());
    QTRY_VERIFY_WITH_TIMEOUT(!w.controller()->isRunning(), 60000);
    QVERIFY(asked_.isEmpty());
    const auto store = study::ResultsStore::open(db.toStdString());
    QCOMPARE(store->loadRuns().size(), std::size_t(6));
    for (const auto& r : store->loadRuns()) QVERIFY(r.status == study::RunState::Completed);
    QCOMPARE(store->loadStudySpec().seeds.size(), std::size_t(3));
    QCOMPARE(w.runs()->model()->rowCount(), 6);
    // Another batch size is another study: a new spec, Start asks for a new database.
    QString other = kTinySpec;
    other.replace("\"batch_size\": 50", "\"batch_size\": 40");
    w.controller()->setEditedSpec(other);
    QCOMPARE(w.controller()->mode(), StudyController::Mode::Spec);
    QVERIFY(w.controller()->databasePath().isEmpty());
  }

  // Imported results cannot start; the import asked where its database goes.
  void importedResultsCannotStart() {
    MainWindow w;
    asked_.clear();
    const QString db = dir_.filePath("chosen/reference.db");
    useChooser(w, db);
    QVERIFY(w.importResultsFile(PARITYLAB_REFERENCE_DIR "/torchprime-resnet18-metrics.csv"));
    QCOMPARE(asked_.size(), 1);
    QVERIFY(asked_.front().endsWith("torchprime-resnet18-metrics.db"));
    QVERIFY(QFileInfo::exists(db));
    QCOMPARE(w.controller()->mode(), StudyController::Mode::Imported);
    QVERIFY(!w.actions()->start->isEnabled());
    QVERIFY(!w.actions()->resume->isEnabled());
    QVERIFY(w.actions()->start->toolTip().contains("Imported"));
    QVERIFY(w.runs()->studyText().contains("reference.db"));
    QVERIFY(w.databaseLabel()->text().contains("reference.db"));
    QCOMPARE(w.runData()->runs().size(), std::size_t(28));
    // The chosen folder is remembered for the next database.
    QCOMPARE(StudyController::databaseFolder(), QFileInfo(db).absolutePath());
  }

  // The first Start asks (suggesting a visible documents folder); declining starts
  // nothing and creates nothing.
  void firstStartAsksForTheDatabase() {
    QSettings().remove("databaseFolder");
    MainWindow w;
    asked_.clear();
    useChooser(w, QString());
    QVERIFY(w.controller()->loadSpecText(kTinySpec, "tiny.json"));
    QVERIFY(w.actions()->start->isEnabled());
    QVERIFY(w.databaseLabel()->text().contains("Start asks"));
    QVERIFY(!w.controller()->start());
    QCOMPARE(asked_.size(), 1);
    const QString documents = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    QVERIFY2(asked_.front().startsWith(documents + "/ParityLab/tiny-"), qPrintable(asked_.front()));
    QVERIFY(!asked_.front().contains(".local"));
    QVERIFY(!w.controller()->isRunning());
    QVERIFY(w.controller()->databasePath().isEmpty());
  }

  // Every planned run is listed, pending, from the moment the study is loaded;
  // one action per command, disabled everywhere while training.
  void plannedRunsAndSharedActions() {
    MainWindow w;
    const QString db = dir_.filePath("tiny-run.db");
    useChooser(w, db);
    QVERIFY(w.controller()->loadSpecText(kTinySpec, "tiny.json"));
    RunsTableModel* model = w.runs()->model();
    QCOMPARE(model->rowCount(), 4);
    for (int row = 0; row < 4; ++row) {
      QCOMPARE(model->index(row, RunsTableModel::Status).data().toString(), QString("pending"));
      QCOMPARE(model->index(row, RunsTableModel::Epoch).data().toString(), QString("0/1"));
    }
    QCOMPARE(model->index(0, RunsTableModel::Backend).data().toString(), QString("cpu-fp32"));
    QCOMPARE(model->index(1, RunsTableModel::Backend).data().toString(), QString("tpu-bf16"));

    QAction* start = w.actions()->start;
    QCOMPARE(menuAction(w.menuBar(), "Study", "start"), start);
    QCOMPARE(menuAction(w.menuBar(), "Study", "resume"), w.actions()->resume);
    QCOMPARE(menuAction(w.menuBar(), "Study", "editStudy"), w.actions()->editStudy);
    auto* toolbar = w.findChild<QToolBar*>("mainToolbar");
    QVERIFY(toolbar->actions().contains(start));
    bool panelUsesIt = false;
    for (QToolButton* b : w.runs()->findChildren<QToolButton*>())
      panelUsesIt |= b->defaultAction() == start;
    QVERIFY(panelUsesIt);

    QVERIFY(w.controller()->start());
    QVERIFY(w.controller()->isRunning());
    for (QAction* a : {start, w.actions()->resume, w.actions()->editStudy, w.actions()->openSpec,
                       w.actions()->openDatabase, w.actions()->importCsv})
      QVERIFY2(!a->isEnabled(), qPrintable(a->objectName()));
    QVERIFY(w.actions()->cancel->isEnabled());
    QVERIFY(w.databaseLabel()->text().contains("tiny-run.db"));
    // Overall progress in the title and the status bar while training.
    QVERIFY2(w.windowTitle().startsWith(QString::fromUtf8("ParityLab — 0/4 runs")),
             qPrintable(w.windowTitle()));
    QVERIFY(w.databaseLabel()->text().startsWith("Training: 0/4 runs"));
    QTRY_VERIFY_WITH_TIMEOUT(!w.controller()->isRunning(), 60000);
    QCOMPARE(model->rowCount(), 4);  // the planned rows became the runs: none added
    for (int row = 0; row < 4; ++row)
      QCOMPARE(model->index(row, RunsTableModel::Status).data().toString(), QString("completed"));
    QVERIFY(w.actions()->editStudy->isEnabled());
    QVERIFY(!w.actions()->cancel->isEnabled());
    QVERIFY(w.windowTitle().contains("tiny-run.db"));
  }

  // After OK in the Study dialog, the header and the status bar show the new spec.
  void editedSpecIsShown() {
    MainWindow w;
    QVERIFY(w.controller()->loadSpecText(kTinySpec, "tiny.json"));
    QTimer::singleShot(0, [] {
      auto* dialog = qobject_cast<StudyDialog*>(QApplication::activeModalWidget());
      QVERIFY(dialog);
      dialog->seedsEdit()->setText("3");
      dialog->accept();
    });
    w.actions()->editStudy->trigger();
    const QString header = w.runs()->studyText();
    QVERIFY2(
        header.contains("3 seeds") && header.contains("1 epoch") && !header.contains("1 epochs"),
        qPrintable(header));
    QVERIFY(w.statusBar()->currentMessage().contains("6 runs"));
    QCOMPARE(w.runs()->model()->rowCount(), 6);
  }

  // Export all writes the difference plot, the step-loss chart, the per-step CSV and the
  // spec, and the report takes the Statistics tab's current choices.
  void exportAllWritesEverything() {
    MainWindow w;
    QTemporaryDir out;
    QVERIFY(w.openDatabase(halfDoneDatabase(dir_)));
    w.statistics()->setAllAgainstReference(false);
    w.statistics()->setSelection("tpu-bf16", "cpu-fp32");
    w.statistics()->setMargin(2.0);
    QString error;
    QStringList written;
    QVERIFY2(w.exportAllTo(out.path(), &error, &written), qPrintable(error));
    for (const char* name :
         {"difference.png", "difference.svg", "curves-step-loss.png", "curves-steps.csv",
          "study.json", "report.csv", "report-summary.csv", "report-epochs.csv"}) {
      QVERIFY2(written.contains(out.filePath(name)), name);
      QVERIFY2(QFileInfo::exists(out.filePath(name)), name);
    }
    QFile spec(out.filePath("study.json"));
    QVERIFY(spec.open(QIODevice::ReadOnly));
    QVERIFY(study::parseStudySpec(spec.readAll().toStdString()).name == "tiny");
    QFile summary(out.filePath("report-summary.csv"));
    QVERIFY(summary.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(summary.readAll());
    QVERIFY2(text.contains("\nwelch,tpu-bf16,cpu-fp32,"), qPrintable(text));
    QVERIFY2(text.contains(",0.02,"), qPrintable(text));  // the tab's margin, 2 points
    // The data behind the epoch charts: every run's test accuracy and loss per epoch.
    QFile epochs(out.filePath("report-epochs.csv"));
    QVERIFY(epochs.open(QIODevice::ReadOnly));
    const QString rows = QString::fromUtf8(epochs.readAll());
    QVERIFY2(rows.startsWith("run_id,backend,seed,status,epoch,metric,value"), qPrintable(rows));
    QVERIFY2(rows.contains(",cpu-fp32,0,completed,1,test_accuracy,0.5"), qPrintable(rows));
    QVERIFY(rows.contains(",tpu-bf16,0,completed,1,test_loss,1"));
  }

  // Every problem at once, with file, line and field; Start disabled until valid.
  void badStudyFileListsEveryProblem() {
    MainWindow w;
    const QString path = writeFile(dir_, "bad.json",
                                   "{\n"
                                   "  \"version\": 1,\n"
                                   "  \"name\": \"bad\",\n"
                                   "  \"model\": \"transformer\",\n"
                                   "  \"epochs\": -1,\n"
                                   "  \"backends\": [\"cpu-fp32\"],\n"
                                   "  \"seeds\": 0\n"
                                   "}\n");
    QVERIFY(!w.loadStudySpec(path));
    QCOMPARE(w.controller()->mode(), StudyController::Mode::InvalidSpec);
    const QStringList problems = w.controller()->problems();
    QCOMPARE(problems.size(), 3);
    QVERIFY2(problems[0].startsWith(path + ":4:"), qPrintable(problems[0]));
    QVERIFY(problems[0].contains("model"));
    QVERIFY(problems[1].startsWith(path + ":5:") && problems[1].contains("epochs"));
    QVERIFY(problems[2].startsWith(path + ":7:") && problems[2].contains("seeds"));
    QVERIFY(!w.actions()->start->isEnabled());
    QVERIFY(w.actions()->start->toolTip().contains("transformer"));
    const QString header = w.runs()->studyText();
    QVERIFY(header.contains("3 problems"));
    QVERIFY(header.contains("epochs"));
    QCOMPARE(w.runData()->runs().size(), std::size_t(0));  // nothing "ready to run"

    // A malformed file: the line and column of the syntax error in the user's file.
    const QString broken = writeFile(dir_, "broken.json", "{\n  \"name\": ,\n}");
    QVERIFY(!w.loadStudySpec(broken));
    QVERIFY2(w.controller()->problems().value(0).startsWith(broken + ":2:"),
             qPrintable(w.controller()->problems().value(0)));
    QVERIFY(!w.actions()->start->isEnabled());

    // Fixed (e.g. in the Study dialog): ready, Start enabled.
    w.controller()->setEditedSpec(kTinySpec);
    QCOMPARE(w.controller()->mode(), StudyController::Mode::Spec);
    QVERIFY(w.actions()->start->isEnabled());
  }

  // The file a CSV import is pointed at holds a study: nothing is replaced unless a confirmation
  // naming the file and its run count says yes; declining keeps the file to the byte.
  void importNeverReplacesADatabaseUnasked() {
    MainWindow w;
    QTemporaryDir own;
    const QString db = halfDoneDatabase(own);
    QVERIFY(w.openDatabase(db));
    const QByteArray before = fileBytes(db);
    useChooser(w, db);  // the user (or --db) picks the open study's file
    QStringList questions;
    w.controller()->setConfirmation([&questions](const QString&, const QString& text) {
      questions << text;
      return false;
    });
    QVERIFY(!w.importResultsFile(PARITYLAB_REFERENCE_DIR "/torchprime-resnet18-metrics.csv"));
    QCOMPARE(questions.size(), 1);
    QVERIFY2(questions.front().contains("half.db holds 4 runs"), qPrintable(questions.front()));
    QVERIFY(questions.front().contains("28 runs"));
    QCOMPARE(fileBytes(db), before);
    QCOMPARE(w.runData()->runs().size(), std::size_t(4));  // still the study shown
    QCOMPARE(w.controller()->mode(), StudyController::Mode::Study);
    QVERIFY(w.statusBar()->currentMessage().contains("kept as it was"));

    // Confirmed: replaced whole by the imported runs.
    w.controller()->setConfirmation([](const QString&, const QString&) { return true; });
    QVERIFY(w.importResultsFile(PARITYLAB_REFERENCE_DIR "/torchprime-resnet18-metrics.csv"));
    QCOMPARE(w.controller()->mode(), StudyController::Mode::Imported);
    const auto store = study::ResultsStore::openReadOnly(db.toStdString());
    QCOMPARE(store->loadRuns().size(), std::size_t(28));
  }

  // A CSV that fails to parse (a negative accuracy) is refused before any database is chosen or
  // touched: the file the import would have replaced is still whole.
  void failedImportLeavesTheDatabaseWhole() {
    MainWindow w;
    QTemporaryDir own;
    const QString db = halfDoneDatabase(own);
    QVERIFY(w.openDatabase(db));
    const QByteArray before = fileBytes(db);
    asked_.clear();
    useChooser(w, db);
    bool asked = false;
    w.controller()->setConfirmation([&asked](const QString&, const QString&) {
      asked = true;
      return true;
    });
    const QString csv = writeFile(own, "bad.csv",
                                  "run,backend,epoch,accuracy\n"
                                  "r1,xla,1,0.5\n"
                                  "r1,xla,2,-3\n");
    QVERIFY(!w.importResultsFile(csv));
    QVERIFY(asked_.isEmpty());  // refused before the question of where
    QVERIFY(!asked);
    QCOMPARE(fileBytes(db), before);
    QCOMPARE(QDir(own.path()).entryList(QStringList{"*.building-*"}, QDir::Files | QDir::Hidden),
             QStringList());
    QVERIFY(w.databaseLabel()->text().contains("half.db"));
    QCOMPARE(w.runData()->runs().size(), std::size_t(4));
  }

  // The import suggests a file name that is not taken yet, so the default never replaces one.
  void importSuggestsAFreeName() {
    MainWindow w;
    QTemporaryDir folder;
    QSettings().setValue("databaseFolder", folder.path());
    writeFile(folder, "torchprime-resnet18-metrics.db", "taken");
    asked_.clear();
    useChooser(w, QString());  // declined: nothing written
    QVERIFY(!w.importResultsFile(PARITYLAB_REFERENCE_DIR "/torchprime-resnet18-metrics.csv"));
    QCOMPARE(asked_.size(), 1);
    QVERIFY2(asked_.front().endsWith("/torchprime-resnet18-metrics-2.db"),
             qPrintable(asked_.front()));
    QSettings().remove("databaseFolder");
  }

  // With a database given for Start (--db), the header and the status bar both name it, before
  // and during training, and Start writes there without asking.
  void startDatabaseIsNamedEverywhere() {
    MainWindow w;
    QTemporaryDir own;
    const QString db = own.filePath("given.db");
    asked_.clear();
    useChooser(w, QString());
    w.controller()->setStartDatabase(db);
    QVERIFY(w.controller()->loadSpecText(kTinySpec, "tiny.json"));
    QVERIFY2(w.databaseLabel()->text().contains("given.db"), qPrintable(w.databaseLabel()->text()));
    QVERIFY(w.runs()->studyText().contains("given.db"));
    QVERIFY(!w.runs()->studyText().contains("not saved"));
    QVERIFY(w.controller()->start());
    QVERIFY(asked_.isEmpty());
    QVERIFY2(w.statusBar()->currentMessage().contains("given.db"),
             qPrintable(w.statusBar()->currentMessage()));
    QVERIFY(!w.statusBar()->currentMessage().contains("not saved"));
    QVERIFY(w.runs()->studyText().contains("given.db"));
    // The tabs that read the database themselves know it from Start on.
    QCOMPARE(w.divergence()->database(), db);
    QCOMPARE(w.xray()->database(), db);
    QTRY_VERIFY_WITH_TIMEOUT(!w.controller()->isRunning(), 60000);
  }

  // Cancel says cancelled (not "finished"), and how many runs Resume would finish.
  void cancelledStudySaysSo() {
    MainWindow w;
    QTemporaryDir own;
    useChooser(w, own.filePath("cancel.db"));
    QString longer = kTinySpec;
    longer.replace("\"epochs\": 1", "\"epochs\": 30");
    QVERIFY(w.controller()->loadSpecText(longer, "long.json"));
    QVERIFY(w.controller()->start());
    w.controller()->cancel();
    QTRY_VERIFY_WITH_TIMEOUT(!w.controller()->isRunning(), 60000);
    const QString message = w.statusBar()->currentMessage();
    QVERIFY2(message.startsWith("Study cancelled") && message.contains("Resume"),
             qPrintable(message));
  }

  // Imported results have no study to edit.
  void editStudyIsDisabledForImportedResults() {
    MainWindow w;
    QTemporaryDir own;
    useChooser(w, own.filePath("imported.db"));
    QVERIFY(w.actions()->editStudy->isEnabled());
    QVERIFY(w.importResultsFile(PARITYLAB_REFERENCE_DIR "/torchprime-resnet18-metrics.csv"));
    QVERIFY(!w.actions()->editStudy->isEnabled());
    QVERIFY(w.actions()->editStudy->toolTip().contains("no study to edit"));
  }
};

QTEST_MAIN(StudyFlowTest)
#include "study_flow_test.moc"
