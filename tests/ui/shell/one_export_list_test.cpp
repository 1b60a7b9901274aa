// What the app exports comes from one list, each panel's exportables(): the File > Export entries
// take the visible tab's currentExportable() (one of that panel's), Export all writes exactly the
// union of the result tabs' lists and `report --charts` the same files; a report for another
// pair leaves the tabs' options as the user had them. Real results: a tiny quick study (mlp,
// 3 backends, 2 seeds) with weights kept every epoch and X-ray samples, so every chart is there.
#include <QAction>
#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QMenuBar>
#include <QSet>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>

#include "core/study/run/study_runner.h"
#include "core/study/store/results_store.h"
#include "ui/charts/chart_export.h"
#include "ui/panels/curves/curves_panel.h"
#include "ui/panels/divergence/divergence_panel.h"
#include "ui/panels/playground/playground_panel.h"
#include "ui/panels/xray/xray_panel.h"
#include "ui/session/study_actions.h"
#include "ui/shell/main_window.h"
#include "ui/shell/report_charts.h"

static void initResources() {
  Q_INIT_RESOURCE(paritylab);
}

using namespace paritylab;
using namespace paritylab::ui;

namespace {

QSet<QString> namesOf(const std::vector<Exportable>& items) {
  QSet<QString> names;
  for (const Exportable& e : items) {
    if (names.contains(e.name)) qWarning("%s is listed twice", qPrintable(e.name));
    names.insert(e.name);
  }
  return names;
}

// The stems of the chart files among `files`; each must come as PNG and SVG.
QSet<QString> chartStems(const QStringList& files) {
  QSet<QString> png, svg;
  for (const QString& file : files) {
    const QFileInfo info(file);
    if (info.suffix() == "png") png.insert(info.completeBaseName());
    if (info.suffix() == "svg") svg.insert(info.completeBaseName());
  }
  if (png != svg) qWarning("PNG and SVG files differ");
  return png;
}

bool sameOptions(const CurveOptions& a, const CurveOptions& b) {
  return a.metric == b.metric && a.band == b.band && a.showBand == b.showBand &&
         a.showRuns == b.showRuns && a.includeInterrupted == b.includeInterrupted &&
         a.smoothing == b.smoothing && a.logX == b.logX && a.logY == b.logY;
}

}  // namespace

class OneExportListTest : public QObject {
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
    spec.train.xrayEverySteps = 4;
    spec.seeds = {0, 1};
    spec.keepWeights = "epochs";
    auto store = study::ResultsStore::open(db_.toStdString(), true);
    study::StudyRunner runner(spec, *store);
    QCOMPARE(runner.run().completed, 10);  // 3 backends and the chaos floor's 2, 2 seeds
  }

  void menuExportAllAndReportTakeTheSameList() {
    MainWindow window;
    QVERIFY(window.openDatabase(db_));
    window.divergence()->settle();
    window.xray()->settle();  // both tabs read the database off the GUI thread
    QVERIFY2(window.divergence()->hasReport(), qPrintable(window.divergence()->errorText()));
    QVERIFY(window.xray()->hasXray());

    // The union of the result tabs' lists, each name once; every chart of these results.
    std::vector<Exportable> all;
    for (const ChartExports* panel : window.resultPanels().sources())
      for (const Exportable& e : panel->exportables()) all.push_back(e);
    const QSet<QString> names = namesOf(all);
    QCOMPARE(names.size(), qsizetype(all.size()));
    QCOMPARE(namesOf(window.exportables()), names);
    for (const char* name : {"curves-accuracy", "curves-test-loss", "curves-train-loss",
                             "curves-step-loss", "histogram", "difference", "divergence-churn",
                             "divergence-classes", "divergence-weights", "bit-layout"})
      QVERIFY2(names.contains(name), name);
    QCOMPARE(std::count_if(names.begin(), names.end(),
                           [](const QString& n) { return n.startsWith("xray-"); }),
             1);

    // File > Export: on every tab, the current chart is one of that tab's own list (the
    // Playground's included), and the entries, as the menu opens, name it.
    QMenu* exportMenu = nullptr;
    for (QMenu* menu : window.menuBar()->findChildren<QMenu*>())
      if (menu->actions().contains(window.actions()->exportPng)) exportMenu = menu;
    QVERIFY(exportMenu);
    for (int t = 0; t < window.tabs()->count(); ++t) {
      window.tabs()->setCurrentIndex(t);
      emit exportMenu->aboutToShow();
      const auto* panel = dynamic_cast<const ChartExports*>(window.tabs()->widget(t));
      QVERIFY2(panel, qPrintable(window.tabs()->tabText(t) + " says nothing about exports"));
      if (panel->exportables().empty()) {  // no chart to draw (the Sweep tab: no sweep here)
        QVERIFY(!window.currentExportable());
        QVERIFY(!window.actions()->exportPng->isEnabled());
        QVERIFY(window.actions()->exportPng->statusTip().contains("no chart to save"));
        continue;
      }
      const std::optional<Exportable> current = window.currentExportable();
      QVERIFY2(current, qPrintable(window.tabs()->tabText(t)));
      QVERIFY2(namesOf(panel->exportables()).contains(current->name), qPrintable(current->name));
      QVERIFY(window.actions()->exportPng->isEnabled());
      QVERIFY(window.actions()->exportSvg->isEnabled());
      QVERIFY2(window.actions()->exportPng->statusTip().contains(current->name),
               qPrintable(window.actions()->exportPng->statusTip()));
      if (qobject_cast<PlaygroundPanel*>(window.tabs()->widget(t)))
        QVERIFY(!names.contains(current->name));  // its own Export all writes the playground
      else
        QVERIFY(names.contains(current->name));
    }

    // Export all: exactly the list's charts (beside them the CSV files and the spec).
    QTemporaryDir exported;
    QString error;
    QStringList written;
    QVERIFY2(window.exportAllTo(exported.path(), &error, &written), qPrintable(error));
    QCOMPARE(chartStems(written), names);

    // report --charts: the same files, for the pair the tab shows.
    QTemporaryDir reported;
    std::string message;
    std::vector<std::string> files;
    QVERIFY2(renderReportCharts(db_.toStdString(), reported.path().toStdString(), &message, &files,
                                {window.divergence()->backendA().toStdString(),
                                 window.divergence()->backendB().toStdString(), 0.05}),
             message.c_str());
    QStringList reportFiles;
    for (const std::string& file : files) reportFiles << QString::fromStdString(file);
    QCOMPARE(chartStems(reportFiles), names);
    // Nothing else in the folder.
    QCOMPARE(QDir(reported.path()).entryList(QDir::Files).size(), 2 * names.size());
  }

  // Drawing every curve metric and another pair's divergence charts puts back what the user had:
  // the metric and the other curve options, the pair picked (or not) and alpha.
  void reportLeavesThePanelsOptions() {
    MainWindow window;
    QVERIFY(window.openDatabase(db_));
    CurvesPanel* curves = window.curves();
    CurveOptions mine = curves->options();
    mine.metric = CurveMetric::TrainLoss;
    mine.logY = true;
    mine.smoothing = 0.3;
    mine.showRuns = false;
    curves->setOptions(mine);
    DivergencePanel* divergence = window.divergence();
    divergence->setPair("gpu-tf32", "cpu-fp32");
    divergence->setAlpha(0.1);
    divergence->settle();

    QTemporaryDir out;
    QStringList written;
    QString error;
    QVERIFY2(writeReportCharts(window.resultPanels(), {"tpu-bf16", "cpu-fp32", 0.05}, out.path(),
                               &written, &error),
             qPrintable(error));
    QVERIFY(written.contains(out.filePath("divergence-churn.png")));
    QVERIFY(written.contains(out.filePath("curves-step-loss.svg")));
    QVERIFY(sameOptions(curves->options(), mine));
    QCOMPARE(divergence->backendA(), QString("gpu-tf32"));
    QCOMPARE(divergence->backendB(), QString("cpu-fp32"));
    QVERIFY(divergence->pairPicked());
    QCOMPARE(divergence->alpha(), 0.1);
    QVERIFY(!divergence->busy());
    QCOMPARE(divergence->report().a, std::string("gpu-tf32"));  // its own report on screen

    // A pair the tab only follows (the Statistics tab's) is followed again afterwards.
    MainWindow fresh;
    QVERIFY(fresh.openDatabase(db_));
    fresh.divergence()->settle();
    QVERIFY(!fresh.divergence()->pairPicked());
    const QString a = fresh.divergence()->backendA(), b = fresh.divergence()->backendB();
    QVERIFY(a != "gpu-tf32");
    QVERIFY2(writeReportCharts(fresh.resultPanels(), {"gpu-tf32", "cpu-fp32", 0.05}, out.path(),
                               &written, &error),
             qPrintable(error));
    QVERIFY(!fresh.divergence()->pairPicked());
    QCOMPARE(fresh.divergence()->backendA(), a);
    QCOMPARE(fresh.divergence()->backendB(), b);

    // A backend the results do not hold is an error naming it, and changes nothing.
    QVERIFY(!writeReportCharts(fresh.resultPanels(), {"tpu-bf17", "cpu-fp32", 0.05}, out.path(),
                               &written, &error));
    QVERIFY2(error.contains("tpu-bf17"), qPrintable(error));
    QCOMPARE(fresh.divergence()->backendA(), a);
  }

 private:
  QTemporaryDir dir_;
  QString db_;
};

QTEST_MAIN(OneExportListTest)
#include "one_export_list_test.moc"
