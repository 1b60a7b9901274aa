// The Divergence tab on real results: a tiny quick study (mlp, 600 training images, 2 epochs,
// 3 seeds, cpu-fp32 / gpu-tf32 / tpu-bf16, weights kept every epoch) opened in the main window:
// the Divergence tab shows exactly what study::analyseDivergence gives for its pair (the numbers
// in the app and the core agree), `report --charts` renders the tab's charts, and imported runs
// from real hardware say in words that they carry no predictions.
#include <QImage>
#include <QLineSeries>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

#include "core/study/run/study_runner.h"
#include "core/study/store/results_store.h"
#include "ui/panels/divergence/churn_matrix_view.h"
#include "ui/panels/divergence/class_difference_view.h"
#include "ui/panels/divergence/divergence_panel.h"
#include "ui/panels/divergence/weight_divergence_view.h"
#include "ui/session/study_bridge.h"
#include "ui/shell/main_window.h"
#include "ui/shell/report_charts.h"

static void initResources() {
  Q_INIT_RESOURCE(paritylab);
}

using namespace paritylab;
using namespace paritylab::ui;

class DivergenceStudyTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    initResources();
    QVERIFY(dir_.isValid());
    db_ = dir_.filePath("quick.db");
    study::StudySpec spec =
        study::loadStudySpecFile(PARITYLAB_SOURCE_DIR "/resources/studies/quick.json");
    spec.dataset.trainSize = 600;
    spec.dataset.testSize = 300;
    spec.train.epochs = 2;
    spec.seeds = {0, 1, 2};
    spec.keepWeights = "epochs";
    auto store = study::ResultsStore::open(db_.toStdString(), true);
    study::StudyRunner runner(spec, *store);
    QCOMPARE(runner.run().completed, 15);  // 3 backends and the chaos floor's 2, 3 seeds
  }

  // The tab's report is the core's, for the pair the Statistics tab shows.
  void tabShowsTheCoreAnalysis() {
    MainWindow window;
    QVERIFY(window.openDatabase(db_));
    DivergencePanel* panel = window.divergence();
    panel->settle();
    QVERIFY2(panel->hasReport(), qPrintable(panel->errorText()));
    QCOMPARE(panel->backendA(), QString("tpu-bf16"));  // the Statistics tab's default pair
    QCOMPARE(panel->backendB(), QString("cpu-fp32"));

    study::DivergenceOptions options;
    options.a = "tpu-bf16";
    options.b = "cpu-fp32";
    const auto store = study::ResultsStore::openReadOnly(db_.toStdString());
    const study::DivergenceReport core = study::analyseDivergence(*store, options);
    const study::DivergenceReport& shown = panel->report();
    QVERIFY(core.churn);
    QCOMPARE(shown.churn->headline, core.churn->headline);
    QVERIFY(panel->summaryText().contains(QString::fromStdString(core.churn->headline)));
    QCOMPARE(shown.backends, core.backends);
    const int n = 5;  // cpu-fp32, gpu-tf32, tpu-bf16, nudged-cpu-fp32, reordered-cpu-fp32
    QCOMPARE(shown.churnMatrix.size(), std::size_t(n * n));
    ChurnMatrixView* churn = panel->churnView();
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < n; ++c) {
        const study::ChurnCell& cell = core.churnMatrix[std::size_t(r * n + c)];
        QCOMPARE(churn->cell(r, c)->churn.mean, cell.churn.mean);
        QCOMPARE(churn->cell(r, c)->churn.ci.ci_low, cell.churn.ci.ci_low);
      }
    // gpu-tf32 rounds only convolutions: on the mlp it is cpu-fp32, churn 0 at the same seed.
    QCOMPARE(churn->cellText(0, 1).front(), QString("0.00%"));
    // Precision and seed churn both > 0 for tpu-bf16 against cpu-fp32.
    QVERIFY(core.churn->precision.mean > 0 && core.churn->seed_floor.mean > 0);
    QCOMPARE(panel->classView()->bars().size(), core.classes.size());
    QCOMPARE(core.classes.size(), std::size_t(10));
    for (std::size_t k = 0; k < core.classes.size(); ++k) {
      const ClassBar& bar = panel->classView()->bars()[k];
      QCOMPARE(bar.label, QString::fromStdString(core.classes[k].className));
      QVERIFY(std::abs(bar.diff - 100 * (core.classes[k].meanA - core.classes[k].meanB)) < 1e-9);
    }
    QCOMPARE(panel->weightView()->layerCount(), int(core.layers.size()));
    QVERIFY(!core.layers.empty());
    const study::LayerDivergence& first = core.layers.front();
    QCOMPARE(first.epochs, (std::vector<int>{1, 2}));
    QCOMPARE(panel->weightView()->floorSeries(0)->count(), 2);
    QCOMPARE(panel->weightView()->floorSeries(0)->at(1).y(), 100 * first.seedFloor[1]);
    // The chaos floor: the headline is its sentence, each layer has its dotted line.
    QVERIFY(core.chaos);
    QCOMPARE(core.chaos->parts.size(), std::size_t(2));
    QVERIFY(!core.chaos->headline.empty());
    QVERIFY2(panel->summaryText().contains(QString::fromStdString(core.chaos->headline)),
             qPrintable(panel->summaryText()));
    QVERIFY(panel->summaryText().contains("Chaos floor (cpu-fp32 perturbed"));
    QCOMPARE(int(panel->weightView()->chaosSeries().size()), panel->weightView()->layerCount());

    // The user's pair: gpu-tf32 against cpu-fp32 changes no prediction, and no weight.
    panel->setPair("gpu-tf32", "cpu-fp32");
    panel->settle();
    QCOMPARE(panel->report().a, std::string("gpu-tf32"));
    QCOMPARE(panel->report().churn->precision.mean, 0.0);
    QVERIFY(panel->summaryText().contains("the precision changes no prediction"));
    QVERIFY(panel->weightView()->zeroDistances() > 0);  // identical weights: off the log axis
  }

  void reportChartsIncludeTheTab() {
    QTemporaryDir out;
    std::string error;
    std::vector<std::string> written;
    QVERIFY2(renderReportCharts(db_.toStdString(), out.path().toStdString(), &error, &written,
                                {"tpu-bf16", "cpu-fp32", 0.05}),
             error.c_str());
    for (const char* stem : {"divergence-churn", "divergence-classes", "divergence-weights"}) {
      const QString base = out.filePath(stem);
      QVERIFY2(!QImage(base + ".png").isNull(), stem);
      QVERIFY2(QSvgRenderer(base + ".svg").isValid(), stem);
      QVERIFY(std::find(written.begin(), written.end(), (base + ".png").toStdString()) !=
              written.end());
    }
    QVERIFY(!renderReportCharts(db_.toStdString(), out.path().toStdString(), &error, nullptr,
                                {"tpu-bf17", "cpu-fp32", 0.05}));
    QVERIFY2(error.find("tpu-bf17") != std::string::npos, error.c_str());
  }

  void importedRunsSayTheyHaveNoPredictions() {
    const QString db = dir_.filePath("reference.db");
    QString error;
    QVERIFY2(importResults(QStringLiteral(PARITYLAB_REFERENCE_DIR) + "/torchprime-resnet18-metrics.csv",
                       db, &error),
             qPrintable(error));
    MainWindow window;
    QVERIFY(window.openDatabase(db));
    window.divergence()->settle();
    QVERIFY2(window.divergence()->hasReport(), qPrintable(window.divergence()->errorText()));
    QVERIFY2(window.divergence()->summaryText().contains("no per-example predictions"),
             qPrintable(window.divergence()->summaryText()));
    QVERIFY(window.divergence()->exportables().empty());
    QTemporaryDir out;
    std::string message;
    std::vector<std::string> written;
    QVERIFY2(renderReportCharts(db.toStdString(), out.path().toStdString(), &message, &written),
             message.c_str());
    QVERIFY(!QFile::exists(out.filePath("divergence-churn.png")));
  }

 private:
  QTemporaryDir dir_;
  QString db_;
};

QTEST_MAIN(DivergenceStudyTest)
#include "divergence_study_test.moc"
