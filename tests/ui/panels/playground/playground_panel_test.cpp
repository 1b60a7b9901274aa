// The Playground tab builds, shows the regression table, the reduction plot (with a legend whose
// lines can be told apart) and the product under every backend, fits 1024x700 and 1600x1000
// windows, and exports everything.
#include "ui/panels/playground/playground_panel.h"

#include <QAbstractSeries>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineEdit>
#include <QLineSeries>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QProcess>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "core/backends/precision_policy.h"
#include "core/playground/playground_export.h"
#include "ui/charts/chart_export.h"
#include "ui/panels/playground/playground_product_view.h"
#include "ui/panels/playground/playground_reduction_view.h"
#include "ui/panels/playground/playground_regression_view.h"
#include "ui/shell/main_window.h"

using namespace paritylab;
using namespace paritylab::ui;

namespace {

// A quick reduction run (K up to 2^12, 2 trials) instead of the default second-long one.
void runSmallReduction(PlaygroundReductionView* reduction) {
  for (QComboBox* box : reduction->findChildren<QComboBox*>())
    if (box->findText("2^12") >= 0) box->setCurrentIndex(box->findText("2^12"));
  for (QSpinBox* box : reduction->findChildren<QSpinBox*>())
    if (box->maximum() == 100) box->setValue(2);
  reduction->run();
}

QChart* reductionChart(PlaygroundReductionView* reduction) {
  return reduction->findChild<QChartView*>()->chart();
}

// The line series drawn (the bands are area series), by name.
QList<QLineSeries*> linesOf(QChart* chart) {
  QList<QLineSeries*> lines;
  for (QAbstractSeries* s : chart->series())
    if (auto* line = qobject_cast<QLineSeries*>(s)) lines << line;
  return lines;
}

}  // namespace

class PlaygroundPanelTest : public QObject {
  Q_OBJECT

 private slots:
  // The tab builds and shows the regression table: both references, then every preset
  // with the coefficients the core computed, and the rank-deficiency note.
  void showsTheRegressionTable() {
    PlaygroundPanel panel;
    panel.resize(1000, 700);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QCOMPARE(panel.sections()->tabText(0), QStringLiteral("Regression"));
    PlaygroundRegressionView* view = panel.regression();
    QTableWidget* table = view->table();
    const auto& presets = backends::presetPolicies();
    QCOMPARE(table->rowCount(), int(presets.size()) + 2);
    QCOMPARE(table->columnCount(), 1 + 3 + 4);  // source, w1, w2, b, loss, 2 distances, notes
    QCOMPARE(table->horizontalHeaderItem(1)->text(), QStringLiteral("w1"));
    QCOMPARE(table->item(0, 0)->text(), QStringLiteral("fp64 GD (reference a)"));
    QCOMPARE(table->item(1, 0)->text(), QStringLiteral("fp64 lstsq (reference b)"));
    // The minimum-norm solution (-4/3, 7/3, 11/3).
    QCOMPARE(table->item(1, 1)->text(), QStringLiteral("-1.3333333"));
    QCOMPARE(table->item(1, 3)->text(), QStringLiteral("3.6666667"));
    const auto& e = view->experiment();
    for (std::size_t i = 0; i < presets.size(); ++i) {
      QCOMPARE(table->item(int(i) + 2, 0)->text(), QString::fromStdString(presets[i].name));
      QCOMPARE(table->item(int(i) + 2, 2)->text(),
               QString::number(e.runs[i].trajectory.final()[1], 'f', 7));
    }
    QVERIFY(view->note()->text().contains("rank-deficient"));
    QVERIFY(view->note()->text().contains("Emulated"));
  }

  // The README's regression table is what `paritylab-cli playground regression` prints, row for
  // row (trailing spaces aside).
  void readmeRegressionTableMatchesTheCli() {
#ifndef PARITYLAB_CLI
    QSKIP("built without paritylab-cli");
#else
    QProcess cli;
    cli.start(QStringLiteral(PARITYLAB_CLI),
              {QStringLiteral("playground"), QStringLiteral("regression")});
    QVERIFY(cli.waitForFinished(60000));
    QCOMPARE(cli.exitCode(), 0);
    auto rows = [](const QStringList& lines) {
      QStringList out;
      for (QString line : lines) {
        while (line.endsWith(QLatin1Char(' '))) line.chop(1);
        if (!line.isEmpty()) out << line;
      }
      return out;
    };
    const QStringList printed = rows(QString::fromUtf8(cli.readAllStandardOutput()).split('\n'));
    QFile readme(QStringLiteral(PARITYLAB_SOURCE_DIR "/README.md"));
    QVERIFY(readme.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(readme.readAll()).split('\n');
    const auto at = lines.indexOf(QStringLiteral("$ paritylab-cli playground regression"));
    QVERIFY2(at >= 0, "README.md shows no `$ paritylab-cli playground regression`");
    QStringList shown;
    for (auto i = at + 1; i < lines.size() && !lines[i].startsWith(QLatin1String("```")); ++i)
      shown << lines[i];
    shown = rows(shown);
    QCOMPARE(shown.size(), printed.size());
    for (int i = 0; i < shown.size(); ++i) QCOMPARE(shown[i], printed[i]);
#endif
  }

  void badFieldsNameTheFieldAndKeepTheResults() {
    PlaygroundRegressionView view;
    view.yEdit()->setText("1, 2");
    QVERIFY(!view.run());
    QVERIFY2(view.error()->text().contains("y has 2 values"), qPrintable(view.error()->text()));
    QCOMPARE(view.experiment().problem.epochs, 100);
    view.yEdit()->setText("7, 9, 11");
    view.epochsBox()->setValue(10);
    view.weightsEdit()->setText("0.5 -0.5");
    QVERIFY(view.run());
    QCOMPARE(view.experiment().problem.epochs, 10);
    QCOMPARE(view.experiment().runs[0].trajectory.coefficients.front()[0], 0.5);
    QCOMPARE(view.experiment().runs[0].trajectory.loss.size(), std::size_t(11));
  }

  // The jax example preloaded, every backend side by side with bits; differing cells
  // highlighted with their ulp distance.
  void showsTheProductUnderEveryBackend() {
    PlaygroundProductView view;
    QTableWidget* table = view.table();
    QCOMPARE(table->columnCount(), 4);
    QCOMPARE(table->rowCount(), int(backends::presetPolicies().size()) + 1);
    QCOMPARE(table->verticalHeaderItem(1)->text(), QStringLiteral("cpu-fp32"));
    QVERIFY(table->item(1, 0)->text().contains("0x3e31e3e3"));
    QVERIFY(table->horizontalHeaderItem(0)->text().contains(QStringLiteral("≠")));
    int tpuRow = -1;
    for (int r = 1; r < table->rowCount(); ++r)
      if (table->verticalHeaderItem(r)->text() == "tpu-bf16") tpuRow = r;
    QVERIFY(tpuRow > 0);
    QVERIFY(table->item(tpuRow, 0)->text().contains("0x3e323a80"));
    QVERIFY(table->item(tpuRow, 0)->text().contains("22173 ulp"));
    QVERIFY(table->item(tpuRow, 0)->background().style() != Qt::NoBrush);
    QCOMPARE(table->item(1, 0)->background().style(), Qt::NoBrush);
    view.aEdit()->setPlainText("1, x");
    QVERIFY(!view.run());
    QVERIFY2(view.error()->text().contains("A: row 1, column 2: 'x' is not a number"),
             qPrintable(view.error()->text()));
  }

  // The reduction chart names its lines in a legend, on screen and in the exported chart (which
  // has no curve list beside it): every curve drawn and both reference slopes.
  void reductionChartHasLegend() {
    PlaygroundReductionView reduction;
    runSmallReduction(&reduction);
    reduction.resize(1000, 700);
    reduction.show();
    QVERIFY(QTest::qWaitForWindowExposed(&reduction));
    QChart* chart = reductionChart(&reduction);
    QVERIFY(chart->legend()->isVisible());
    QStringList named;
    for (QLineSeries* line : linesOf(chart))
      for (QLegendMarker* m : chart->legend()->markers(line))
        if (m->isVisible()) named << m->label();
    QVERIFY2(named.contains(QStringLiteral("√K·u")) && named.contains(QStringLiteral("K·u")),
             qPrintable(named.join(", ")));
    int checked = 0;
    for (int i = 0; i < reduction.curveList()->count(); ++i) {
      const QListWidgetItem* item = reduction.curveList()->item(i);
      if (item->checkState() != Qt::Checked) continue;
      ++checked;
      QVERIFY2(named.contains(item->text()), qPrintable(item->text()));
    }
    QCOMPARE(named.size(), checked + 2);

    QTemporaryDir dir;
    QString error;
    const auto items = reduction.exportables();
    QCOMPARE(items.size(), std::size_t(1));
    QVERIFY2(exportSvg(items[0], dir.filePath("r.svg"), &error), qPrintable(error));
    QFile svg(dir.filePath("r.svg"));
    QVERIFY(svg.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(svg.readAll());
    for (const QString& name : named) QVERIFY2(text.contains(name), qPrintable(name));
  }

  // No two lines of the reduction chart share colour and dash pattern: in particular the bf16
  // accumulation curve (dotted) is not black like the dotted K·u slope.
  void reductionBf16AccumulationIsNotDrawnLikeTheSlope() {
    PlaygroundReductionView reduction;
    runSmallReduction(&reduction);
    const QList<QLineSeries*> lines = linesOf(reductionChart(&reduction));
    const QLineSeries* slope = nullptr;
    const QLineSeries* bf16 = nullptr;
    for (const QLineSeries* line : lines) {
      if (line->name() == QStringLiteral("K·u")) slope = line;
      if (line->name() == QStringLiteral("bf16 operands · bf16 sequential")) bf16 = line;
    }
    QVERIFY(slope && bf16);
    QVERIFY(bf16->pen().color() != slope->pen().color());
    for (int i = 0; i < lines.size(); ++i)
      for (int j = i + 1; j < lines.size(); ++j)
        QVERIFY2(lines[i]->pen().color() != lines[j]->pen().color() ||
                     lines[i]->pen().style() != lines[j]->pen().style(),
                 qPrintable(lines[i]->name() + " and " + lines[j]->name()));
  }

  // In a 1600x1000 window every entry of the reduction's curve list is whole: no horizontal
  // scrolling.
  void reductionListNeedsNoHorizontalScrollAt1600x1000() {
    PlaygroundPanel panel;
    panel.resize(1600, 1000);
    panel.sections()->setCurrentIndex(1);
    runSmallReduction(panel.reduction());
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QTest::qWait(50);
    QListWidget* list = panel.reduction()->curveList();
    QVERIFY(list->count() > 0);
    QCOMPARE(list->horizontalScrollBar()->maximum(), 0);
    QVERIFY2(list->sizeHintForColumn(0) <= list->viewport()->width(),
             qPrintable(QStringLiteral("%1 wide entries in a %2 wide list")
                            .arg(list->sizeHintForColumn(0))
                            .arg(list->viewport()->width())));
  }

  // In a 1024x700 main window the regression charts keep a readable plot (stacked when the page
  // is too narrow for two side by side) and the reduction section does not scroll sideways.
  void regressionChartsDoNotCollapseAt1024x700() {
    Q_INIT_RESOURCE(paritylab);  // the main window's icons, linked into the static ui library
    MainWindow window;
    window.resize(1024, 700);
    auto* panel = window.findChild<PlaygroundPanel*>();
    QVERIFY(panel);
    window.tabs()->setCurrentWidget(panel);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QTest::qWait(100);
    for (QChartView* view : panel->regression()->findChildren<QChartView*>()) {
      const QRectF plot = view->chart()->plotArea();
      QVERIFY2(plot.width() >= 300 && plot.height() >= 120,
               qPrintable(QStringLiteral("%1: plot %2x%3")
                              .arg(view->chart()->title())
                              .arg(plot.width())
                              .arg(plot.height())));
    }
    panel->sections()->setCurrentIndex(1);
    QTest::qWait(100);
    auto* area = qobject_cast<QScrollArea*>(panel->sections()->currentWidget());
    QVERIFY(area);
    QCOMPARE(area->horizontalScrollBar()->maximum(), 0);
    const QRectF plot = reductionChart(panel->reduction())->plotArea();
    QVERIFY2(plot.width() >= 300, qPrintable(QString::number(plot.width())));
  }

  // In a 1600x1000 window the regression table shows every row without scrolling.
  void regressionTableShowsEveryRowAt1600x1000() {
    PlaygroundPanel panel;
    panel.resize(1600, 1000);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QTest::qWait(50);
    QTableWidget* table = panel.regression()->table();
    QCOMPARE(table->verticalScrollBar()->maximum(), 0);
    const int last = table->rowCount() - 1;
    QVERIFY(table->viewport()->rect().contains(table->visualItemRect(table->item(last, 0))));
  }

  // A small reduction run plots its curves; every section exports PNG, SVG and the CSV the CLI
  // writes.
  void reductionPlotsAndEverythingExports() {
    PlaygroundPanel panel;
    PlaygroundReductionView* reduction = panel.reduction();
    runSmallReduction(reduction);
    QVERIFY(reduction->hasRun());
    QCOMPARE(reduction->experiment().config.lengths, (std::vector<int>{16, 64, 256, 1024, 4096}));
    QCOMPARE(reduction->curveList()->count(), int(reduction->experiment().curves.size()));
    QVERIFY(reduction->summary()->text().contains("K = 4096"));

    QTemporaryDir dir;
    QStringList written;
    QString error;
    QVERIFY2(panel.exportTo(dir.path(), true, &written, &error), qPrintable(error));
    for (const char* name :
         {"playground-regression-table.png", "playground-regression-loss.svg",
          "playground-regression-coefficients.png", "playground-reduction.png",
          "playground-reduction.svg", "playground-product.png", "playground-regression.csv",
          "playground-reduction.csv", "playground-product.csv"})
      QVERIFY2(QFile::exists(dir.filePath(name)), name);
    QFile csv(dir.filePath("playground-regression.csv"));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(csv.readAll()),
             QString::fromStdString(playground::regressionCsv(panel.regression()->experiment())));
  }
};

QTEST_MAIN(PlaygroundPanelTest)
#include "playground_panel_test.moc"
