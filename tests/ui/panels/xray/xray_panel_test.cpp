// The X-ray tab. A tiny study with the X-ray on (resources/studies/
// underflow.json scaled down, two seeds) is opened in the main window: one heatmap block per
// backend with the database's sites and sampled steps, a cell's value is what
// ResultsStore::loadXray gives, every seed can be chosen, the tab opens at the worst case the CLI
// reports, a view whose cells are all equal gets a one-colour scale, clicking a cell fills the
// exponent histogram, "Show in Formats" types the tensor's amax into the Formats tab, the heatmap
// exports with a title naming what it shows, its titles fit a 1024x700 window, and results
// without X-ray say so plainly.
#include "ui/panels/xray/xray_panel.h"

#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <set>

#include "core/study/analysis/xray_findings.h"
#include "core/study/run/study_runner.h"
#include "ui/charts/chart_export.h"
#include "ui/panels/curves/curves_panel.h"
#include "ui/panels/formats/formats_panel.h"
#include "ui/panels/xray/xray_heatmap.h"
#include "ui/panels/xray/xray_histogram.h"
#include "ui/session/run_data.h"
#include "ui/session/shown_study.h"
#include "ui/shell/main_window.h"

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
    spec.seeds = {0, 1};
    auto store = study::ResultsStore::open(db_.toStdString(), true);
    study::StudyRunner runner(spec, *store);
    QCOMPARE(runner.run().completed, 6);
  }

  void heatmapBlocksMatchTheStore() {
    MainWindow window;
    QVERIFY(window.openDatabase(db_));
    // Until the X-ray is read, the tab says it is reading it, not that the results have none.
    QVERIFY(!window.xray()->hasXray());
    QCOMPARE(window.xray()->emptyMessage()->text(),
             QStringLiteral("Reading the X-ray of xray.db…"));
    window.xray()->settle();  // the X-ray is read off the GUI thread
    XrayPanel* panel = window.xray();
    QVERIFY(panel->hasXray());
    panel->setOperand("grad");
    panel->setStatistic(XrayStatistic::Underflow);
    panel->setSeed(0);

    auto store = study::ResultsStore::openReadOnly(db_.toStdString());
    const auto rows = store->loadXray();
    auto runs = store->loadRuns();
    std::erase_if(runs, [](const study::RunRecord& r) { return r.seed != 0; });
    const XrayGrid& grid = panel->grid();
    QCOMPARE(grid.blocks.size(), std::size_t(3));  // one per backend
    for (std::size_t b = 0; b < runs.size(); ++b) {
      const XrayBlock& block = grid.blocks[b];
      QCOMPARE(block.backend, QString::fromStdString(runs[b].backend));
      QCOMPARE(block.runId, runs[b].id);
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

  // Every seed with X-ray samples is in the chooser; choosing one shows that seed's runs (one per
  // backend) and the heatmap's title says which seed it is.
  void xraySeedChooserShowsEverySeed() {
    MainWindow window;
    QVERIFY(window.openDatabase(db_));
    window.xray()->settle();  // the X-ray is read off the GUI thread
    XrayPanel* panel = window.xray();
    QComboBox* seeds = panel->seedChooser();
    QCOMPARE(seeds->count(), 2);
    QCOMPARE(seeds->itemText(0), QStringLiteral("0"));
    QCOMPARE(seeds->itemText(1), QStringLiteral("1"));
    auto store = study::ResultsStore::openReadOnly(db_.toStdString());
    const auto runs = store->loadRuns();
    for (std::uint64_t seed : {0, 1}) {
      seeds->setCurrentIndex(int(seed));  // as a user picks it
      QCOMPARE(panel->view().seed, seed);
      QCOMPARE(panel->grid().blocks.size(), std::size_t(3));
      for (const XrayBlock& block : panel->grid().blocks) {
        QCOMPARE(block.seed, seed);
        const auto run = std::find_if(runs.begin(), runs.end(),
                                      [&](const auto& r) { return r.id == block.runId; });
        QVERIFY(run != runs.end());
        QCOMPARE(run->seed, seed);
        QCOMPARE(QString::fromStdString(run->backend), block.backend);
      }
      QVERIFY2(panel->heatmap()->title().contains(QStringLiteral("seed %1").arg(seed)),
               qPrintable(panel->heatmap()->title()));
    }
  }

  // Opening the database shows the worst underflow `paritylab-cli xray` reports (its operand,
  // its run's seed), not the first entries of the choosers, and its colour scale has two ends.
  void xrayOpensAtTheWorstCaseTheCliReports() {
    auto store = study::ResultsStore::openReadOnly(db_.toStdString());
    const auto summaries = study::summariseXray(*store, {});
    const auto worst = std::max_element(
        summaries.begin(), summaries.end(),
        [](const auto& a, const auto& b) { return a.underflow.value < b.underflow.value; });
    QVERIFY(worst != summaries.end());
    QVERIFY2(worst->underflow.value > 0, "the test study should flush something to zero");
    std::uint64_t worstSeed = 99;
    for (const auto& run : store->loadRuns())
      if (run.id == worst->underflow.runId) worstSeed = run.seed;

    MainWindow window;
    QVERIFY(window.openDatabase(db_));
    window.xray()->settle();  // the X-ray is read off the GUI thread
    const XrayView view = window.xray()->view();
    QCOMPARE(view.statistic, XrayStatistic::Underflow);
    QCOMPARE(view.operand, QString::fromStdString(worst->operand));
    QCOMPARE(view.seed, worstSeed);
    const auto [low, high] = window.xray()->heatmap()->scale();
    QVERIFY2(low < high, qPrintable(QStringLiteral("scale %1..%2").arg(low).arg(high)));
    QCOMPARE(high, 100.0 * worst->underflow.value);  // the worst cell is the top of the scale
    QCOMPARE(window.xray()->heatmap()->scaleLabels().size(), 2);
  }

  // A view whose cells all hold one value (cpu-fp32 and fp16 overflow nothing here) gets one
  // swatch of the cells' colour labelled with that value, not a ramp from one value to itself.
  void xrayUniformViewShowsOneColourScale() {
    MainWindow window;
    QVERIFY(window.openDatabase(db_));
    window.xray()->settle();  // the X-ray is read off the GUI thread
    XrayPanel* panel = window.xray();
    panel->setOperand("input");
    panel->setStatistic(XrayStatistic::Overflow);
    XrayHeatmap* heatmap = panel->heatmap();
    const auto [low, high] = heatmap->scale();
    QCOMPARE(low, 0.0);
    QCOMPARE(high, 0.0);
    QCOMPARE(heatmap->scaleLabels(), QStringList{"all 0"});
    const Exportable e = exportableXray(heatmap);
    QImage image(e.size, QImage::Format_ARGB32);
    {
      QPainter p(&image);
      e.paint(p, e.size);
    }
    const QRectF bar = heatmap->colourBarRect(e.size);
    const QColor top = image.pixelColor(bar.center().toPoint().x(), int(bar.top()) + 4);
    const QColor bottom = image.pixelColor(bar.center().toPoint().x(), int(bar.bottom()) - 4);
    QCOMPARE(top, bottom);
    QVERIFY(top != QColor(Qt::white));
    // The cells have the swatch's colour.
    const XrayBlock& block = panel->grid().blocks[0];
    QVERIFY(block.cells[0] >= 0);
    QImage widgetImage(heatmap->size(), QImage::Format_ARGB32);
    {
      QPainter p(&widgetImage);
      heatmap->paintTo(p, heatmap->size());
    }
    QCOMPARE(widgetImage.pixelColor(heatmap->cellRect(0, 0, 0).center().toPoint()), top);
  }

  // The exported heatmap says what it shows: operand, statistic and seed, in its title.
  void exportedXrayNamesOperandStatisticAndSeed() {
    MainWindow window;
    QVERIFY(window.openDatabase(db_));
    window.xray()->settle();  // the X-ray is read off the GUI thread
    XrayPanel* panel = window.xray();
    panel->setOperand("weight");
    panel->setStatistic(XrayStatistic::SqnrDb);
    panel->setSeed(1);
    const auto items = window.exportables();
    const auto xray = std::find_if(items.begin(), items.end(),
                                   [](const Exportable& e) { return e.name.startsWith("xray"); });
    QVERIFY(xray != items.end());
    QTemporaryDir out;
    QString error;
    QVERIFY2(exportSvg(*xray, out.filePath("x.svg"), &error), qPrintable(error));
    QFile file(out.filePath("x.svg"));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QString svg = QString::fromUtf8(file.readAll());
    for (const QString& said : {QStringLiteral("X-ray of the weight operand, seed 1: SQNR dB")})
      QVERIFY2(svg.contains(said), qPrintable(said));
  }

  // At 1024x700 the heatmap's title, every block's backend name and the colour scale's title (for
  // every statistic) are drawn whole inside the widget.
  void xrayTitlesFitAt1024x700() {
    MainWindow window;
    QVERIFY(window.openDatabase(db_));
    window.xray()->settle();  // the X-ray is read off the GUI thread
    window.resize(1024, 700);
    window.tabs()->setCurrentWidget(window.xray());
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QTest::qWait(100);
    XrayPanel* panel = window.xray();
    XrayHeatmap* heatmap = panel->heatmap();
    const QFontMetrics fm = heatmap->fontMetrics();
    QFont bold = heatmap->font();
    bold.setBold(true);
    for (XrayStatistic s : {XrayStatistic::Underflow, XrayStatistic::Overflow,
                            XrayStatistic::Subnormal, XrayStatistic::SqnrDb, XrayStatistic::Amax}) {
      panel->setStatistic(s);
      const QRectF legend = heatmap->scaleTitleRect(heatmap->size());
      QVERIFY2(fm.horizontalAdvance(xrayStatisticName(s)) <= legend.width() &&
                   legend.right() <= heatmap->width(),
               qPrintable(xrayStatisticName(s)));
      QVERIFY2(QFontMetrics(bold).horizontalAdvance(heatmap->title()) <= heatmap->width() - 8,
               qPrintable(heatmap->title()));
      for (int b = 0; b < int(panel->grid().blocks.size()); ++b) {
        // Whole, on one line or wrapped after a hyphen.
        const QString backend = panel->grid().blocks[std::size_t(b)].backend;
        const QRectF room = heatmap->blockTitleRect(heatmap->size(), b);
        const QRect drawn =
            fm.boundingRect(room.toAlignedRect(), Qt::AlignCenter | Qt::TextWordWrap, backend);
        QVERIFY2(drawn.width() <= room.width() && drawn.height() <= room.height(),
                 qPrintable(QStringLiteral("%1 needs %2x%3 px, has %4x%5")
                                .arg(backend)
                                .arg(drawn.width())
                                .arg(drawn.height())
                                .arg(room.width())
                                .arg(room.height())));
      }
    }
  }

  // A reload (a study's run finished) keeps the view the user chose; the worst case is only the
  // first view of a database.
  void xrayReloadKeepsTheChosenView() {
    MainWindow window;
    QVERIFY(window.openDatabase(db_));
    window.xray()->settle();  // the X-ray is read off the GUI thread
    XrayPanel* panel = window.xray();
    panel->setOperand("output");
    panel->setStatistic(XrayStatistic::Amax);
    panel->setSeed(0);
    emit window.runData()->runFinished();  // as when runs finish: the X-ray is read again
    panel->settle();
    QCOMPARE(panel->view().operand, QStringLiteral("output"));
    QCOMPARE(panel->view().statistic, XrayStatistic::Amax);
    QCOMPARE(panel->view().seed, std::uint64_t(0));
  }

  // Before a cell is clicked the histogram says so in words that are whole at its narrowest,
  // even with a large font (wrapped, not cut at the edges).
  void xrayEmptyHistogramHintIsWhole() {
    XrayHistogram histogram;
    QFont large = histogram.font();
    large.setPointSizeF(large.pointSizeF() * 1.6);
    histogram.setFont(large);
    histogram.resize(histogram.minimumSizeHint());
    const QRect room = histogram.emptyHintRect();
    QVERIFY(histogram.rect().contains(room));
    const QRect drawn = histogram.fontMetrics().boundingRect(
        room, Qt::AlignCenter | Qt::TextWordWrap, histogram.emptyHint());
    QVERIFY2(room.contains(drawn), qPrintable(QStringLiteral("needs %1x%2 in %3x%4")
                                                  .arg(drawn.width())
                                                  .arg(drawn.height())
                                                  .arg(room.width())
                                                  .arg(room.height())));
  }

  void clickingACellShowsItsHistogramAndFormatsValue() {
    MainWindow window;
    window.resize(1600, 1000);
    QVERIFY(window.openDatabase(db_));
    window.xray()->settle();  // the X-ray is read off the GUI thread
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
    window.xray()->settle();  // the X-ray is read off the GUI thread
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
    window.xray()->settle();  // the X-ray is read off the GUI thread
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

  // A study that X-rays its products, before any of its X-ray is read, says that it will come
  // (not that the results have none); a study without says how to get one.
  void anXrayStudyBeforeItsFirstXraySaysItWillCome() {
    ShownStudy shown;
    XrayPanel panel(&shown);
    QFile file(QStringLiteral(PARITYLAB_SOURCE_DIR "/resources/studies/underflow.json"));
    QVERIFY(file.open(QIODevice::ReadOnly));
    shown.setSpec(QString::fromUtf8(file.readAll()), QStringLiteral("underflow"));
    QVERIFY(panel.emptyMessage()->text().startsWith("This study X-rays its products every"));
    QFile quick(QStringLiteral(PARITYLAB_SOURCE_DIR "/resources/studies/quick.json"));
    QVERIFY(quick.open(QIODevice::ReadOnly));
    shown.setSpec(QString::fromUtf8(quick.readAll()), QStringLiteral("quick"));
    QVERIFY(panel.emptyMessage()->text().startsWith("No X-ray in these results"));
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
    window.xray()->settle();  // the X-ray is read off the GUI thread
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
