// The Curves tab's equivalence band on a stored study whose pure-bf16 runs' step losses shift
// from step 120 on: the tab draws the reference's simultaneous band and marks the first exit
// exactly where core/study's analysis finds it (the numbers in the app and the core agree), says
// the core's sentence beneath the chart, draws the compared metric's band in its units
// (accuracy in percent), and draws nothing once switched off.
#include "ui/panels/curves/equivalence_band.h"

#include <QAreaSeries>
#include <QLabel>
#include <QLineSeries>
#include <QScatterSeries>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <random>

#include "core/study/analysis/curve_equivalence.h"
#include "core/study/store/results_store.h"
#include "tests/study/analysis/stored_curves.h"
#include "ui/panels/curves/curves_panel.h"
#include "ui/panels/divergence/divergence_panel.h"
#include "ui/shell/main_window.h"

static void initResources() {
  Q_INIT_RESOURCE(paritylab);
}

using namespace paritylab;
using namespace paritylab::ui;

namespace {

QAreaSeries* bandSeries(QChart* chart) {
  for (QAbstractSeries* s : chart->series())
    if (auto* area = qobject_cast<QAreaSeries*>(s); area && area->name().contains("seed band"))
      return area;
  return nullptr;
}

QScatterSeries* exitSeries(QChart* chart) {
  for (QAbstractSeries* s : chart->series())
    if (auto* scatter = qobject_cast<QScatterSeries*>(s)) return scatter;
  return nullptr;
}

}  // namespace

class EquivalenceBandTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    initResources();
    QVERIFY(dir_.isValid());
    db_ = dir_.filePath("curves.db");
    auto store = study::ResultsStore::open(db_.toStdString(), true);
    store->saveStudySpec(R"({"version": 1, "name": "curves", "dataset": {"source": "synthetic"},
      "model": "mlp", "backends": ["cpu-fp32", "pure-bf16"], "seeds": 6})");
    std::mt19937_64 rng(7);
    study::testing::addCurveRuns(*store, "cpu-fp32", 6, rng);
    study::testing::addCurveRuns(*store, "pure-bf16", 6, rng, 0.25, 120);
  }

  void theBandAndItsFirstExitAreTheCoresOnTheStepLoss() {
    MainWindow window;
    QVERIFY(window.openDatabase(db_));
    CurvesPanel* panel = window.curves();
    panel->settle();
    QCOMPARE(panel->equivalence()->backendA(), QString("pure-bf16"));
    QCOMPARE(panel->equivalence()->backendB(), QString("cpu-fp32"));
    CurveOptions o = panel->options();
    o.metric = CurveMetric::StepLoss;
    panel->setOptions(o);

    const auto store = study::ResultsStore::openReadOnly(db_.toStdString());
    const study::CurveEquivalence core =
        study::analyseCurveEquivalence(*store, "cpu-fp32", "pure-bf16");
    QVERIFY(core.trainLoss && core.trainLoss->firstExit);
    QCOMPARE(core.steps[*core.trainLoss->firstExit], std::int64_t(120));

    QAreaSeries* band = bandSeries(panel->chart());
    QVERIFY(band);
    QCOMPARE(band->name(), QString("cpu-fp32 seed band for pure-bf16 (simultaneous 95%)"));
    const QList<QPointF> upper = band->upperSeries()->points();
    QCOMPARE(upper.size(), qsizetype(core.steps.size()));
    for (std::size_t i = 0; i < core.steps.size(); ++i) {
      QCOMPARE(upper[qsizetype(i)].x(), double(core.steps[i]));
      QCOMPARE(upper[qsizetype(i)].y(), core.trainLoss->meanA[i] + core.trainLoss->halfWidth[i]);
    }
    QScatterSeries* exit = exitSeries(panel->chart());
    QVERIFY(exit);
    QCOMPARE(exit->name(), QString("pure-bf16 leaves it at step 120"));
    QCOMPARE(exit->points().size(), qsizetype(1));
    QCOMPARE(exit->points().front(),
             QPointF(120, core.trainLoss->meanB[*core.trainLoss->firstExit]));
    QCOMPARE(panel->equivalenceWords(),
             QString::fromStdString(core.trainLossWords) + " (emulated backends)");
  }

  void theComparedMetricsBandIsInItsUnits() {
    MainWindow window;
    QVERIFY(window.openDatabase(db_));
    CurvesPanel* panel = window.curves();
    panel->settle();
    QCOMPARE(panel->options().metric, CurveMetric::TestAccuracy);  // the compared metric
    const auto store = study::ResultsStore::openReadOnly(db_.toStdString());
    const study::CurveEquivalence core =
        study::analyseCurveEquivalence(*store, "cpu-fp32", "pure-bf16");
    QVERIFY(core.testMetric);
    QAreaSeries* band = bandSeries(panel->chart());
    QVERIFY(band);
    const QList<QPointF> lower = band->lowerSeries()->points();
    QCOMPARE(lower.size(), qsizetype(4));
    QCOMPARE(lower[0].x(), 1.0);
    QVERIFY(std::abs(lower[0].y() -
                     100.0 * (core.testMetric->meanA[0] - core.testMetric->halfWidth[0])) < 1e-9);
    QVERIFY(panel->equivalenceWords().startsWith("pure-bf16's accuracy stays inside"));
    // Another curve has no band, and says on which it is drawn.
    CurveOptions o = panel->options();
    o.metric = CurveMetric::TrainLoss;
    panel->setOptions(o);
    QVERIFY(!bandSeries(panel->chart()));
    QCOMPARE(panel->equivalenceWords(),
             QString("The equivalence band is drawn on the step loss and on the test accuracy "
                     "per epoch."));
  }

  // The band compares the pair the Statistics tab shows (as the Divergence tab does) until one
  // is picked in its own choosers.
  void itFollowsTheStatisticsTabsPairUntilOneIsPicked() {
    MainWindow window;
    QVERIFY(window.openDatabase(db_));
    CurvesPanel* panel = window.curves();
    panel->settle();
    const QString a = panel->equivalence()->backendA(), b = panel->equivalence()->backendB();
    QCOMPARE(window.divergence()->backendA(), a);
    QCOMPARE(window.divergence()->backendB(), b);
    panel->equivalence()->setPair("cpu-fp32", "pure-bf16");
    panel->equivalence()->followSuggestion();
    QCOMPARE(panel->equivalence()->backendA(), QString("cpu-fp32"));  // picked: kept
    panel->settle();
    QVERIFY(panel->equivalenceWords().startsWith("cpu-fp32's"));
  }

  // Runs imported from real hardware have their band too, and the words say they were measured.
  void importedRunsHaveTheirBandAndAreNotCalledEmulated() {
    MainWindow window;
    QVERIFY(window.importResultsFile(PARITYLAB_REFERENCE_DIR "/torchprime-resnet18-metrics.csv",
                                 dir_.filePath("reference.db")));
    CurvesPanel* panel = window.curves();
    panel->settle();
    QVERIFY(bandSeries(panel->chart()));
    const QString words = panel->equivalenceWords();
    QVERIFY2(words.contains("band of") && words.endsWith("(runs measured on hardware)"),
             qPrintable(words));
    QVERIFY(!words.contains("emulated"));
  }

  void switchedOffItDrawsNothing() {
    MainWindow window;
    QVERIFY(window.openDatabase(db_));
    CurvesPanel* panel = window.curves();
    panel->settle();
    QVERIFY(bandSeries(panel->chart()));
    panel->equivalence()->setOn(false);
    QVERIFY(!bandSeries(panel->chart()));
    QVERIFY(!exitSeries(panel->chart()));
    QVERIFY(panel->equivalenceWords().isEmpty());
    panel->equivalence()->setOn(true);
    panel->settle();
    QVERIFY(bandSeries(panel->chart()));
  }

 private:
  QTemporaryDir dir_;
  QString db_;
};

QTEST_MAIN(EquivalenceBandTest)
#include "equivalence_band_test.moc"
