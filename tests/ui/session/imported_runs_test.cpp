// Imported runs in the app: an imported run keeps its name (a Run column), its seed is shown
// only when the source gives one, the import summary says what the file holds, and the Statistics
// tab flags the published CSV's identical xla runs ("n would be 12 without them"); viewing a
// database leaves it unchanged.
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

#include "core/study/store/results_store.h"
#include "ui/panels/runs/runs_table_model.h"
#include "ui/panels/statistics/statistics_panel.h"
#include "ui/session/shown_study.h"
#include "ui/session/study_bridge.h"
#include "ui/session/study_controller.h"
#include "ui/shell/main_window.h"

static void initResources() {
  Q_INIT_RESOURCE(paritylab);
}

using namespace paritylab;
using namespace paritylab::ui;

class ImportedRunsTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { initResources(); }

  void referenceRunsKeepNamesAndIdenticalPairsAreFlagged() {
    QTemporaryDir dir;
    const QString db = dir.filePath("reference.db");
    const QString csv = QStringLiteral(PARITYLAB_REFERENCE_DIR "/torchprime-resnet18-metrics.csv");
    QString error;
    QStringList notes;
    QVERIFY2(importResults(csv, db, &error, &notes), qPrintable(error));
    QVERIFY2(notes.contains("xla: 2 pairs of identical runs (prod_42 and prod_42; prod_3 and "
                            "prod_3); n would be 12 without them (14 runs)"),
             qPrintable(notes.join('\n')));

    // Viewing a database never changes it (read-only connection).
    const auto bytes = [&db] {
      QFile file(db);
      return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    };
    const QByteArray before = bytes();
    LoadedStudy loaded;
    QVERIFY2(loadDatabase(db, &loaded, &error), qPrintable(error));
    QCOMPARE(bytes(), before);
    QCOMPARE(loaded.runs.size(), std::size_t(28));
    ShownStudy study;
    RunData& data = *study.runs();
    data.setRuns(std::move(loaded.runs), loaded.title);
    RunsTableModel model(&data);
    QCOMPARE(model.headerData(RunsTableModel::Run, Qt::Horizontal, Qt::DisplayRole).toString(),
             QStringLiteral("Run"));
    QCOMPARE(model.index(0, RunsTableModel::Run).data().toString(), QStringLiteral("prod_42"));
    QCOMPARE(model.index(2, RunsTableModel::Run).data().toString(), QStringLiteral("prod_0"));
    // torchprime files give no seeds: none is shown (the tooltip says why).
    QCOMPARE(model.index(0, RunsTableModel::Seed).data().toString(), QStringLiteral("—"));
    QVERIFY(
        model.index(0, RunsTableModel::Seed).data(Qt::ToolTipRole).toString().contains("no seed"));

    StatisticsPanel panel(&study);
    panel.setSelection("xla", "cuda");
    QVERIFY2(panel.verdictText().contains("xla: 2 pairs of identical runs (prod_42 and prod_42; "
                                          "prod_3 and prod_3); n would be 12 without them (14 "
                                          "runs)"),
             qPrintable(panel.verdictText()));
    QVERIFY(!panel.verdictText().contains("cuda: "));  // cuda's repeated runs differ
  }

  // TensorBoard logs import as the CSV does (the reference runs written as event files give the
  // same Statistics), after a preview of what was found: runs per backend, seeds, epochs.
  void tensorBoardLogsImportAfterAPreview() {
    QTemporaryDir dir;
    const QString logs =
        QStringLiteral(PARITYLAB_SOURCE_DIR "/tests/study/files/fixtures/tensorboard/reference");
    const QString db = dir.filePath("logs.db");
    MainWindow window;
    QStringList previews;
    window.controller()->setImportPreview([&previews](const QString& title, const QString& text) {
      previews << title + "|" + text;
      return false;  // declined: nothing is written
    });
    window.controller()->setDatabaseChooser([&db](const QString&, const QString&) { return db; });
    QVERIFY(!window.importResultsFile(logs));
    QVERIFY(!QFile::exists(db));
    QCOMPARE(previews.size(), 1);
    QVERIFY2(previews[0].startsWith("Import from reference?|28 runs: cuda 14 (seeds 0-13, "),
             qPrintable(previews[0]));
    QVERIFY2(previews[0].contains("xla 14 (seeds 0-13, "), qPrintable(previews[0]));

    window.controller()->setImportPreview([](const QString&, const QString&) { return true; });
    QVERIFY(window.importResultsFile(logs));
    QCOMPARE(window.shownStudy()->runs()->runs().size(), std::size_t(28));
    window.statistics()->setSelection("xla", "cuda");
    const StatRow& row = window.statistics()->rows().front();
    QVERIFY(row.comparison.t_test.has_value());
    const double p = row.comparison.t_test->p_value;
    QVERIFY2(std::abs(p - 0.1734) < 5e-5, qPrintable(QString::number(p)));
  }

  // A stored spec this version cannot parse was once silently ignored (and Resume stayed
  // offered); the runs are still shown, with the reason nothing can be resumed.
  void unreadableStoredSpecIsSaidNotSwallowed() {
    QTemporaryDir dir;
    const QString db = dir.filePath("future.db");
    {
      auto store = study::ResultsStore::open(db.toStdString(), true);
      store->saveStudySpec(R"({"version": 1, "name": "x", "model": "perceptron-9000"})");
      study::RunRecord pending;
      pending.backend = "cpu-fp32";
      store->addRun(pending);
    }
    LoadedStudy loaded;
    QString error;
    QVERIFY2(loadDatabase(db, &loaded, &error), qPrintable(error));
    QCOMPARE(loaded.runs.size(), std::size_t(1));
    QVERIFY2(loaded.warning.contains("cannot be resumed") && loaded.warning.contains("future.db"),
             qPrintable(loaded.warning));
    QVERIFY(!loaded.canResume);
  }
};

QTEST_MAIN(ImportedRunsTest)
#include "imported_runs_test.moc"
