// Covers issue 16: the Playground tab builds, shows the regression table (item 1), the reduction
// plot (item 2) and the product under every backend (item 3), and exports everything (item 4).
#include "ui/playground_panel.h"

#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "core/backends/precision_policy.h"
#include "core/playground/playground_export.h"
#include "ui/playground_product_view.h"
#include "ui/playground_reduction_view.h"
#include "ui/playground_regression_view.h"

using namespace paritylab;
using namespace paritylab::ui;

class PlaygroundPanelTest : public QObject {
  Q_OBJECT

 private slots:
  // Issue 16.1: the tab builds and shows the regression table: both references, then every preset
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

  // Issue 16.3: the jax example preloaded, every backend side by side with bits; differing cells
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

  // Issue 16.2 and 16.4: a small reduction run plots its curves; every section exports PNG, SVG
  // and the CSV the CLI writes.
  void reductionPlotsAndEverythingExports() {
    PlaygroundPanel panel;
    PlaygroundReductionView* reduction = panel.reduction();
    for (QComboBox* box : reduction->findChildren<QComboBox*>())
      if (box->findText("2^12") >= 0) box->setCurrentIndex(box->findText("2^12"));
    for (QSpinBox* box : reduction->findChildren<QSpinBox*>())
      if (box->maximum() == 100) box->setValue(2);
    reduction->run();
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
