// The Sweep tab on a stored sweep whose pure-bf16 runs fall at one learning rate and cpu-fp32's
// do not: the tab shows core/study's analysis (its verdict, word for word), one line per backend
// whose points are the cells' means in the metric's units, exports the chart; a study without a
// sweep says so and exports nothing.
#include "ui/panels/sweep/sweep_panel.h"

#include <QLabel>
#include <QLineSeries>
#include <QTemporaryDir>
#include <QtTest>

#include "core/study/analysis/sweep_analysis.h"
#include "core/study/store/results_store.h"
#include "tests/ui/stored_runs.h"
#include "ui/charts/chart_hint.h"
#include "ui/shell/main_window.h"

static void initResources() {
  Q_INIT_RESOURCE(paritylab);
}

using namespace paritylab;
using namespace paritylab::ui;

namespace {

const char* kSweep = R"({"version": 1, "name": "sweep", "dataset": {"source": "synthetic"},
  "model": "mlp", "backends": ["cpu-fp32", "pure-bf16"], "seeds": 3, "chaos_floor": false,
  "sweep": {"lr": [0.01, 0.1]}})";

QLineSeries* lineNamed(QChart* chart, const QString& name) {
  for (QAbstractSeries* s : chart->series())
    if (auto* line = qobject_cast<QLineSeries*>(s); line && line->name() == name) return line;
  return nullptr;
}

}  // namespace

class SweepPanelTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    initResources();
    QVERIFY(dir_.isValid());
    db_ = dir_.filePath("sweep.db");
    auto store = study::ResultsStore::open(db_.toStdString(), true);
    store->saveStudySpec(kSweep);
    testing::addCompletedRuns(*store, "cpu-fp32 lr=0.01", {0.90, 0.91, 0.92});
    testing::addCompletedRuns(*store, "cpu-fp32 lr=0.1", {0.90, 0.91, 0.92});
    testing::addCompletedRuns(*store, "pure-bf16 lr=0.01", {0.90, 0.91, 0.92});
    testing::addCompletedRuns(*store, "pure-bf16 lr=0.1", {0.80, 0.81, 0.82});
    plain_ = dir_.filePath("plain.db");
    auto other = study::ResultsStore::open(plain_.toStdString(), true);
    other->saveStudySpec(R"({"version": 1, "name": "plain", "dataset": {"source": "synthetic"},
      "model": "mlp", "backends": ["cpu-fp32", "pure-bf16"], "seeds": 3})");
    testing::addCompletedRuns(*other, "cpu-fp32", {0.90, 0.91, 0.92});
  }

  void theTabShowsTheCoresAnalysisAsOneLinePerBackend() {
    MainWindow window;
    QVERIFY(window.openDatabase(db_));
    SweepPanel* panel = window.sweep();
    QVERIFY(panel->analysis().has_value());
    const auto store = study::ResultsStore::openReadOnly(db_.toStdString());
    const study::SweepAnalysis core =
        study::analyseSweep(store->loadStudySpec(), store->loadRuns(), {});
    QCOMPARE(panel->verdictText().toStdString(), core.verdict[0] + " " + core.verdict[1] + " " +
                                                     core.verdict[2] + " " + core.verdict[3]);
    QVERIFY(panel->verdictText().startsWith("The backends' accuracy depends on lr differently"));
    QCOMPARE(panel->lineCount(), 2);
    QLineSeries* bf16 = lineNamed(panel->chart(), "pure-bf16");
    QVERIFY(bf16);
    QCOMPARE(bf16->count(), 2);
    QCOMPARE(bf16->at(0).x(), 0.0);
    QVERIFY(std::abs(bf16->at(1).y() - 81.0) < 1e-9);  // the cell's mean, in percent
    QVERIFY(lineNamed(panel->chart(), "cpu-fp32"));
    const auto exports = panel->exportables();
    QCOMPARE(int(exports.size()), 1);
    QCOMPARE(exports.front().name, QString("sweep"));
  }

  void aStudyWithoutASweepSaysSoAndExportsNothing() {
    MainWindow window;
    QVERIFY(window.openDatabase(plain_));
    SweepPanel* panel = window.sweep();
    QVERIFY(!panel->analysis().has_value());
    QVERIFY(panel->hint()->text().contains("has no sweep"));
    QVERIFY(panel->exportables().empty());
    QCOMPARE(panel->lineCount(), 0);
  }

 private:
  QTemporaryDir dir_;
  QString db_, plain_;
};

QTEST_MAIN(SweepPanelTest)
#include "sweep_panel_test.moc"
