// The Divergence tab's Lockstep view: a stored comparison per mode, the heatmap's colours on the
// decades the differences take (larger: darker; grey where a layer has no such tensor; black where
// not finite), one line per layer with the tolerance and the first crossing, the core's sentence
// beneath, both charts exported; without a comparison it says how to make one. And in the window:
// a study run with "lockstep" shows its comparison in the tab, and runs imported from hardware
// say a lockstep is for emulated backends. A tall stack of layers keeps its row labels apart and
// names each cell on hover.
#include "ui/panels/divergence/lockstep_view.h"

#include <QChart>
#include <QComboBox>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <limits>

#include "core/nn/lockstep.h"
#include "core/study/run/study_runner.h"
#include "core/study/store/results_store.h"
#include "ui/charts/matrix_cells.h"
#include "ui/panels/divergence/divergence_panel.h"
#include "ui/panels/divergence/lockstep_heatmap.h"
#include "ui/shell/main_window.h"

static void initResources() {
  Q_INIT_RESOURCE(paritylab);
}

using namespace paritylab;
using namespace paritylab::ui;

namespace {

study::LockstepRecord record(const std::string& mode) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  study::LockstepRecord r{mode, "tpu-bf16", "cpu-fp32", 0, 0.01, {}};
  r.result.layers = {{"fc1", backends::LayerKind::Linear, true, false},
                     {"fc2", backends::LayerKind::Linear, true, true}};
  for (int s = 1; s <= 4; ++s) {
    const double grow = mode == "free" ? double(s) : 1.0;
    r.result.steps.push_back(
        {s, 2.0, 2.0, {{{1e-3 * grow, nan, 2e-3 * grow, 0.0}, {4e-3 * grow, 5e-3, 1e-2, 1e-4}}}});
  }
  r.result.firstCrossing = nn::LockstepCrossing{3, 1, nn::LockstepQuantity::Activation, 1.2e-2};
  r.result.stepsTrained = 4;
  return r;
}

// As resnet18's: 21 layers with products, layer0 .. layer20, the same differences everywhere.
study::LockstepRecord deepRecord() {
  study::LockstepRecord r = record("resync");
  r.result.layers.clear();
  for (int l = 0; l < 21; ++l)
    r.result.layers.push_back(
        {"layer" + std::to_string(l), backends::LayerKind::Conv, true, false});
  for (nn::LockstepStep& s : r.result.steps) s.difference.assign(21, {2e-3, 1e-3, 1e-2, 1e-4});
  return r;
}

}  // namespace

class LockstepViewTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { initResources(); }

  void withoutAComparisonItSaysHowToMakeOne() {
    LockstepView view;
    QVERIFY(!view.hasRecords());
    QVERIFY(view.exportables().empty());
    QVERIFY(view.words().isEmpty());
    QVERIFY(view.emptyText().contains("Add \"lockstep\""));
    view.setRecords({}, true);  // runs imported from hardware: no spec to edit
    QVERIFY2(view.emptyText().startsWith("These runs were measured on hardware"),
             qPrintable(view.emptyText()));
  }

  void eachModeShowsItsComparison() {
    LockstepView view;
    view.setRecords({record("resync"), record("free")});
    QCOMPARE(view.modeBox()->count(), 2);
    QCOMPARE(view.modeBox()->itemText(0), QString("re-synchronised"));
    QCOMPARE(view.modeBox()->itemText(1), QString("free-running"));
    nn::LockstepOptions options;
    options.tolerance = 0.01;
    options.steps = 4;
    QCOMPARE(view.words(), QString::fromStdString(nn::describeLockstep(
                               record("resync").result, options, "tpu-bf16", "cpu-fp32")));
    view.modeBox()->setCurrentIndex(1);
    options.mode = nn::LockstepMode::FreeRunning;
    QCOMPARE(view.words(), QString::fromStdString(nn::describeLockstep(
                               record("free").result, options, "tpu-bf16", "cpu-fp32")));
    std::vector<QString> names;
    for (const Exportable& e : view.exportables()) names.push_back(e.name);
    QCOMPARE(names, (std::vector<QString>{"divergence-lockstep", "divergence-lockstep-lines"}));
  }

  void theHeatmapColoursOnTheDecadesShown() {
    LockstepHeatmap map;
    const study::LockstepRecord r = record("free");
    map.setRecord(&r, nn::LockstepQuantity::Activation);  // 1e-3 .. 1.6e-2: 1e-3 to 1e-1
    QCOMPARE(map.colourOf(1e-3), rampColour(QColor(0xff, 0xf5, 0xf0), QColor(0x67, 0x00, 0x0d), 0));
    QVERIFY(map.colourOf(1e-2).lightnessF() < map.colourOf(1e-3).lightnessF());
    QVERIFY(map.colourOf(1e-1).lightnessF() < map.colourOf(1e-2).lightnessF());
    QCOMPARE(map.colourOf(std::numeric_limits<double>::quiet_NaN()), undefinedCellColour());
    QCOMPARE(map.colourOf(std::numeric_limits<double>::infinity()), QColor(Qt::black));
    QVERIFY(map.title().contains("free-running"));
  }

  // resnet18 has 21 layers with products: in a short view the rows are thinner than a line of
  // text, so only every few rows are labelled (never overlapping), and hovering a cell names it.
  void aTallStackLabelsEveryFewRowsAndEachCellNamesItself() {
    study::LockstepRecord r = deepRecord();
    r.result.steps[2].difference[20][0] = 0.25;
    r.result.firstCrossing.reset();
    LockstepHeatmap map;
    map.resize(700, 220);
    map.setRecord(&r, nn::LockstepQuantity::Activation);
    QCOMPARE(LockstepHeatmap::labelEvery(20.0, 15), 1);
    QCOMPARE(LockstepHeatmap::labelEvery(6.0, 15), 3);
    QCOMPARE(LockstepHeatmap::labelEvery(0.0, 15), 1);
    // The bottom row's third step (the grid ends above the axis, the step labels and the legend).
    QString under;
    for (int y = 219; y > 0 && under.isEmpty(); --y) under = map.cellText(QPointF(600, y));
    QVERIFY2(under.startsWith("layer20, step 4: outputs"), qPrintable(under));
    bool found = false;
    for (int y = 0; y < 220 && !found; ++y)
      for (int x = 0; x < 700 && !found; x += 4)
        if (map.cellText(QPointF(x, y)) == "layer20, step 3: outputs 25% from the reference")
          found = true;
    QVERIFY(found);
    QVERIFY(map.cellText(QPointF(2, 2)).isEmpty());  // the title, not a cell
  }

  void theLinesHaveALayerEachTheToleranceAndTheCrossing() {
    LockstepView view;
    view.setRecords({record("resync")});
    int lines = 0, crossings = 0;
    for (QAbstractSeries* s : view.linesChart()->series()) {
      if (auto* scatter = qobject_cast<QScatterSeries*>(s)) {
        ++crossings;
        QCOMPARE(scatter->points().front(), QPointF(3, 1.2e-2));
        QCOMPARE(scatter->name(), QString("first crossing: fc2, step 3"));
      } else if (auto* line = qobject_cast<QLineSeries*>(s)) {
        ++lines;
        if (line->name() == "fc1") QCOMPARE(line->points().size(), qsizetype(4));
      }
    }
    QCOMPARE(lines, 3);  // fc1, fc2, the tolerance
    QCOMPARE(crossings, 1);
    // The weights of fc1 are equal (0): they cannot sit on the log axis, and the title says so.
    view.quantityBox()->setCurrentIndex(int(nn::LockstepQuantity::Weight));
    QVERIFY2(view.linesChart()->title().contains("4 zero differences"),
             qPrintable(view.linesChart()->title()));
    // Drawn again, not on top: one x and one y axis.
    view.setRecords({record("resync"), record("free")});
    view.modeBox()->setCurrentIndex(1);
    QCOMPARE(view.linesChart()->axes().size(), qsizetype(2));
  }

  // More layers than a legend beside the chart shows: coloured by depth, the title says so, and
  // the legend keeps the tolerance instead of cutting the layers short.
  void aDeepStacksLinesAreColouredByDepth() {
    study::LockstepRecord r = deepRecord();
    r.result.firstCrossing = nn::LockstepCrossing{2, 20, nn::LockstepQuantity::Activation, 0.2};
    LockstepView view;
    view.resize(900, 600);
    view.show();  // a hidden chart's legend markers all read as hidden
    view.setRecords({r});
    view.chartChooser()->setCurrentIndex(1);
    QVERIFY2(view.linesChart()->title().contains("21 layers: deeper, darker"),
             qPrintable(view.linesChart()->title()));
    QStringList shown;
    for (QAbstractSeries* s : view.linesChart()->series())
      for (QLegendMarker* m : view.linesChart()->legend()->markers(s))
        if (m->isVisible()) shown << m->label();
    QCOMPARE(shown, QStringList{"tolerance 1%"});  // the crossing is named on hover
    int lines = 0;
    for (QAbstractSeries* s : view.linesChart()->series())
      lines += bool(qobject_cast<QLineSeries*>(s));
    QCOMPARE(lines, 22);  // every layer drawn, and the tolerance
  }

  void aStudyRunWithLockstepShowsItInTheTab() {
    QTemporaryDir dir;
    const QString db = dir.filePath("l.db");
    const study::StudySpec spec = study::parseStudySpec(R"({"name": "l",
      "dataset": {"source": "synthetic", "train_size": 64, "test_size": 32}, "model": "mlp",
      "epochs": 1, "batch_size": 16, "backends": ["cpu-fp32", "tpu-bf16"], "seeds": 2,
      "chaos_floor": false, "serve": false, "threads": 1,
      "lockstep": {"backend": "tpu-bf16", "steps": 3}})");
    {
      auto store = study::ResultsStore::open(db.toStdString(), true);
      study::StudyRunner runner(spec, *store);
      QCOMPARE(runner.run().completed, 4);
    }
    MainWindow window;
    QVERIFY(window.openDatabase(db));
    DivergencePanel* panel = window.divergence();
    panel->settle();
    LockstepView* view = panel->lockstepView();
    QVERIFY(view->hasRecords());
    QCOMPARE(view->modeBox()->count(), 2);
    QVERIFY2(view->words().startsWith("Re-synchronised lockstep of tpu-bf16 against cpu-fp32"),
             qPrintable(view->words()));
    bool exported = false;
    for (const Exportable& e : panel->exportables()) exported |= e.name == "divergence-lockstep";
    QVERIFY(exported);
  }

  // Runs imported from hardware: the view says a lockstep is for emulated backends, and does not
  // offer to edit a spec the window cannot edit.
  void importedRunsSayALockstepIsForEmulatedBackends() {
    QTemporaryDir dir;
    MainWindow window;
    QVERIFY(window.importResultsFile(PARITYLAB_REFERENCE_DIR "/torchprime-resnet18-metrics.csv",
                                     dir.filePath("reference.db")));
    DivergencePanel* panel = window.divergence();
    panel->settle();
    QVERIFY(!panel->lockstepView()->hasRecords());
    QVERIFY2(panel->lockstepView()->emptyText().startsWith("These runs were measured on hardware"),
             qPrintable(panel->lockstepView()->emptyText()));
  }
};

QTEST_MAIN(LockstepViewTest)
#include "lockstep_view_test.moc"
