// Covers issue 14.4: the X-ray tab. A tiny study with the X-ray on (resources/studies/
// underflow.json scaled down) is opened in the main window: one heatmap block per backend with
// the database's sites and sampled steps, a cell's value is what ResultsStore::loadXray gives,
// clicking a cell fills the exponent histogram, "Show in Formats" types the tensor's amax into the
// Formats tab, the heatmap exports, and results without X-ray say so plainly.
#include "ui/xray_panel.h"

#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <set>

#include "core/study/study_runner.h"
#include "ui/curves_panel.h"
#include "ui/formats_panel.h"
#include "ui/main_window.h"
#include "ui/xray_heatmap.h"
#include "ui/xray_histogram.h"

static void initResources() {
  Q_INIT_RESOURCE(paritylab);  // the icons, linked into the static ui library
}

using namespace paritylab;
using namespace paritylab::ui;

class XrayPanelTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    initResources();
    QVERIFY(dir_.isValid());
    db_ = dir_.filePath("xray.db");
    study::StudySpec spec =
        study::loadStudySpecFile(PARITYLAB_SOURCE_DIR "/resources/studies/underflow.json");
    spec.dataset.trainSize = 512;
    spec.dataset.testSize = 100;
    spec.train.batchSize = 64;  // 8 steps
    spec.train.epochs = 1;
    spec.train.xrayEverySteps = 2;  // steps 0, 2, 4, 6
    spec.seeds = {0};
    auto store = study::ResultsStore::open(db_.toStdString(), true);
    study::StudyRunner runner(spec, *store);
    QCOMPARE(runner.run().completed, 3);
  }

  void heatmapBlocksMatchTheStore() {
    MainWindow window;
    QVERIFY(window.openDatabase(db_));
    XrayPanel* panel = window.xray();
    QVERIFY(panel->hasXray());
    panel->setOperand("grad");
    panel->setStatistic(XrayStatistic::Underflow);

    auto store = study::ResultsStore::openReadOnly(db_.toStdString());
    const auto rows = store->loadXray();
    const auto runs = store->loadRuns();
    const XrayGrid& grid = panel->grid();
    QCOMPARE(grid.blocks.size(), std::size_t(3));  // one per backend
    for (std::size_t b = 0; b < runs.size(); ++b) {
      const XrayBlock& block = grid.blocks[b];
      QCOMPARE(block.backend, QString::fromStdString(runs[b].backend));
      std::set<std::string> sites;
      std::set<std::int64_t> steps;
      for (const auto& r : rows)
        if (r.runId == runs[b].id && r.operand == "grad")
          sites.insert(r.site), steps.insert(r.step);
      QCOMPARE(std::size_t(block.sites.size()), sites.size());
      QCOMPARE(block.steps, std::vector<std::int64_t>(steps.begin(), steps.end()));
      QCOMPARE(block.steps, (std::vector<std::int64_t>{0, 2, 4, 6}));
      // Model order: the first layer's products before the next layer's.
      QVERIFY(block.sites.indexOf("conv1.wgrad") < block.sites.indexOf("conv2.dgrad"));
      // Each cell holds the stored row of its (site, step).
      for (int s = 0; s < block.sites.size(); ++s)
        for (int t = 0; t < int(block.steps.size()); ++t) {
          const int index = block.cell(s, t);
          QVERIFY(index >= 0);
          const auto& row = grid.rows[std::size_t(index)];
          QCOMPARE(QString::fromStdString(row.site), block.sites[s]);
          QCOMPARE(row.step, block.steps[std::size_t(t)]);
          const auto stored = std::find_if(rows.begin(), rows.end(), [&](const auto& r) {
            return r.runId == row.runId && r.site == row.site && r.operand == "grad" &&
                   r.step == row.step;
          });
          QVERIFY(stored != rows.end());
          QCOMPARE(xrayStatisticValue(row.xray, XrayStatistic::Underflow),
                   100.0 * stored->xray.underflowFraction());
          QCOMPARE(row.xray.amax, stored->xray.amax);
        }
    }
    // One colour scale over every block: its range covers each block's values.
    const auto [low, high] = panel->heatmap()->scale();
    QCOMPARE(low, 0.0);  // cpu-fp32 flushes nothing
    QVERIFY(high >= low);
  }

  void clickingACellShowsItsHistogramAndFormatsValue() {
    MainWindow window;
    window.resize(1600, 1000);
    QVERIFY(window.openDatabase(db_));
    window.show();
    window.tabs()->setCurrentWidget(window.xray());
    XrayPanel* panel = window.xray();
    panel->setOperand("weight");
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(!panel->histogram()->hasTensor());
    QVERIFY(!panel->showInFormatsButton()->isEnabled());
    // A click in the middle of block 1's (gpu-amp-fp16) cell (site 0, step 1).
    const XrayBlock& block = panel->grid().blocks[1];
    const QPoint at = panel->heatmap()->cellRect(1, 0, 1).center().toPoint();
    QTest::mouseClick(panel->heatmap(), Qt::LeftButton, {}, at);
    QVERIFY(panel->histogram()->hasTensor());
    const auto& row = panel->grid().rows[std::size_t(block.cell(0, 1))];
    QCOMPARE(panel->histogram()->tensor().count, row.xray.count);
    QCOMPARE(panel->histogram()->tensor().exponentBins, row.xray.exponentBins);
    QVERIFY(row.xray.amax > 0);
    // The histogram's bars span the tensor's exponents and the format's range (fp16).
    const auto [first, last] = panel->histogram()->exponentRange();
    QVERIFY(first <= -25 && last >= 16);
    QVERIFY(panel->showInFormatsButton()->isEnabled());
    QTest::mouseClick(panel->showInFormatsButton(), Qt::LeftButton);
    QCOMPARE(window.tabs()->currentWidget(), static_cast<QWidget*>(window.formats()));
    QCOMPARE(window.formats()->valueText(), QString::number(row.xray.amax, 'g', 9));
  }

  // The tab with data fits a 1024x700 window: no wider than the Curves tab (which
  // tests/ui/layout_fit_test fits), its page at that size holds its minimum height, and heatmap
  // and histogram get their minimum sizes.
  void fitsA1024x700Window() {
    MainWindow window;
    QVERIFY(window.openDatabase(db_));
    window.resize(1024, 700);
    window.tabs()->setCurrentWidget(window.xray());
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QTest::qWait(100);  // the splitter settles
    const QSize xray = window.xray()->minimumSizeHint(),
                curves = window.curves()->minimumSizeHint();
    QVERIFY2(xray.width() <= curves.width() && xray.height() <= window.xray()->height(),
             qPrintable(QStringLiteral("X-ray tab %1x%2, Curves tab %3 wide, page %4 high")
                            .arg(xray.width())
                            .arg(xray.height())
                            .arg(curves.width())
                            .arg(window.xray()->height())));
    for (QWidget* w : {static_cast<QWidget*>(window.xray()->heatmap()),
                       static_cast<QWidget*>(window.xray()->histogram())}) {
      QVERIFY2(w->width() >= w->minimumSizeHint().width() &&
                   w->height() >= w->minimumSizeHint().height(),
               qPrintable(QStringLiteral("%1 is %2x%3")
                              .arg(w->metaObject()->className())
                              .arg(w->width())
                              .arg(w->height())));
    }
  }

  void exportsTheHeatmap() {
    MainWindow window;
    QVERIFY(window.openDatabase(db_));
    bool found = false;
    for (const Exportable& e : window.exportables())
      if (e.name == "xray-underflow") found = true;
    QVERIFY(found);
    QTemporaryDir out;
    QString error;
    QStringList written;
    QVERIFY2(window.exportAllTo(out.path(), &error, &written), qPrintable(error));
    QVERIFY(QFileInfo(out.filePath("xray-underflow.png")).size() > 0);
    QVERIFY(QFileInfo(out.filePath("xray-underflow.svg")).size() > 0);
  }

  void resultsWithoutXraySaySo() {
    QTemporaryDir dir;
    const QString plain = dir.filePath("plain.db");
    study::StudySpec spec =
        study::loadStudySpecFile(PARITYLAB_SOURCE_DIR "/resources/studies/underflow.json");
    spec.dataset.trainSize = 128;
    spec.dataset.testSize = 50;
    spec.train.epochs = 1;
    spec.train.xrayEverySteps = 0;  // off
    spec.seeds = {0};
    spec.backends.resize(1);
    {
      auto store = study::ResultsStore::open(plain.toStdString(), true);
      study::StudyRunner runner(spec, *store);
      QCOMPARE(runner.run().completed, 1);
    }
    MainWindow window;
    QVERIFY(window.openDatabase(plain));
    QVERIFY(!window.xray()->hasXray());
    QVERIFY(window.xray()->emptyMessage()->text().startsWith("No X-ray in these results"));
    for (const Exportable& e : window.exportables()) QVERIFY(!e.name.startsWith("xray"));
  }

 private:
  QTemporaryDir dir_;
  QString db_;
};

QTEST_MAIN(XrayPanelTest)
#include "xray_panel_test.moc"
