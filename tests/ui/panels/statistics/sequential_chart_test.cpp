// The Statistics tab of a sequential study: its boundaries at every planned look (the nominal p
// each test must reach, core/stats' values), the p-values of the looks made, the look that
// decided, and core/study's words; exported as "sequential". Any other study shows none of it.
#include "ui/panels/statistics/sequential_chart.h"

#include <QChart>
#include <QLineSeries>
#include <QScatterSeries>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

#include "core/study/analysis/sequential_analysis.h"
#include "core/study/store/results_store.h"
#include "tests/ui/stored_runs.h"
#include "ui/panels/statistics/statistics_panel.h"
#include "ui/shell/main_window.h"

static void initResources() {
  Q_INIT_RESOURCE(paritylab);
}

using namespace paritylab;
using namespace paritylab::ui;

namespace {

// tpu-bf16 against cpu-fp32 within one point, a look every 5 seeds up to 20.
const char* kSequential = R"({"version": 1, "name": "seq", "dataset": {"source": "synthetic"},
  "model": "mlp", "backends": ["cpu-fp32", "tpu-bf16"], "chaos_floor": false,
  "sequential": {"margin": 0.01, "max_seeds": 20, "look_every": 5}})";

template <typename Series>
Series* seriesNamed(QChart* chart, const QString& start) {
  for (QAbstractSeries* s : chart->series())
    if (auto* typed = qobject_cast<Series*>(s); typed && typed->name().startsWith(start))
      return typed;
  return nullptr;
}

}  // namespace

class SequentialChartTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    initResources();
    QVERIFY(dir_.isValid());
    db_ = dir_.filePath("seq.db");
    auto store = study::ResultsStore::open(db_.toStdString(), true);
    store->saveStudySpec(kSequential);
    // Two rounds (10 seeds each) of nearly equal accuracies: equivalent at a look.
    std::vector<double> a, b;
    for (int i = 0; i < 10; ++i) {
      a.push_back(0.850 + 0.004 * (i % 5));
      b.push_back(0.852 + 0.004 * ((i + 2) % 5));
    }
    testing::addCompletedRuns(*store, "cpu-fp32", a);
    testing::addCompletedRuns(*store, "tpu-bf16", b);
  }

  void showsTheBoundariesTheLooksAndWhereTheStudyStopped() {
    MainWindow window;
    QVERIFY(window.openDatabase(db_));
    StatisticsPanel* panel = window.statistics();
    SequentialChart* chart = panel->sequentialChart();
    QVERIFY(!chart->isHidden());
    const auto store = study::ResultsStore::openReadOnly(db_.toStdString());
    const study::SequentialAnalysis core =
        study::analyseSequential(store->loadStudySpec(), store->loadRuns());
    QVERIFY(!core.looks.empty());
    QVERIFY(core.stoppedAt.has_value());
    QCOMPARE(core.looks[*core.stoppedAt].decision, stats::SequentialDecision::Equivalent);

    // Every planned look's boundaries, as core/stats computes them.
    auto* equivalence = seriesNamed<QLineSeries>(chart->chart(), "equivalence boundary");
    auto* difference = seriesNamed<QLineSeries>(chart->chart(), "difference boundary");
    QVERIFY(equivalence && difference);
    QCOMPARE(equivalence->count(), 4);
    for (int k = 0; k < 4; ++k) {
      QCOMPARE(equivalence->at(k).x(), double(core.plan.looks[std::size_t(k)]));
      QCOMPARE(equivalence->at(k).y(), core.plan.equivalence.nominalP[std::size_t(k)]);
      QCOMPARE(difference->at(k).y(), 2.0 * core.plan.difference.nominalP[std::size_t(k)]);
    }
    // The looks made, at their seeds; the deciding one ringed and named.
    auto* tost = seriesNamed<QScatterSeries>(chart->chart(), "TOST p");
    QVERIFY(tost);
    QCOMPARE(tost->count(), int(core.looks.size()));
    for (std::size_t k = 0; k < core.looks.size(); ++k) {
      QCOMPARE(tost->at(int(k)).x(), double(core.looks[k].seeds));
      QCOMPARE(tost->at(int(k)).y(), core.looks[k].tost.p_value);
    }
    auto* stop = seriesNamed<QScatterSeries>(chart->chart(), "stopped at look");
    QVERIFY(stop);
    QVERIFY2(stop->name().endsWith("equivalent"), qPrintable(stop->name()));
    QVERIFY(chart->chart()->title().contains("O'Brien-Fleming"));
    // core/study's words, which say the design.
    QString words;
    for (const std::string& s : core.words)
      words += (words.isEmpty() ? "" : " ") + QString::fromStdString(s);
    QCOMPARE(chart->wordsText(), words);
    bool exported = false;
    for (const Exportable& e : panel->exportables()) exported |= e.name == "sequential";
    QVERIFY(exported);
  }

  void aStudyWithoutASequentialDesignShowsNone() {
    const QString plain = dir_.filePath("plain.db");
    {
      auto store = study::ResultsStore::open(plain.toStdString(), true);
      store->saveStudySpec(R"({"version": 1, "name": "plain", "dataset": {"source": "synthetic"},
        "model": "mlp", "backends": ["cpu-fp32", "tpu-bf16"], "seeds": 3})");
      testing::addCompletedRuns(*store, "cpu-fp32", {0.90, 0.91, 0.92});
    }
    MainWindow window;
    QVERIFY(window.openDatabase(plain));
    QVERIFY(window.statistics()->sequentialChart()->isHidden());
    for (const Exportable& e : window.statistics()->exportables()) QVERIFY(e.name != "sequential");
  }

 private:
  QTemporaryDir dir_;
  QString db_;
};

QTEST_MAIN(SequentialChartTest)
#include "sequential_chart_test.moc"
