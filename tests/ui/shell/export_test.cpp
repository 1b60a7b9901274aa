// Exports write valid PNG (QImage loads it) and SVG (QSvgRenderer accepts it)
// files for the charts and the bit-layout diagram; the diagram shows each format's bits and
// clicking a bit toggles it.
#include <QDir>
#include <QImage>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QtTest>

#include "ui/charts/bit_layout_diagram.h"
#include "ui/charts/chart_export.h"
#include "ui/charts/chart_view.h"
#include "ui/panels/curves/curves_panel.h"
#include "ui/panels/distributions/distributions_panel.h"
#include "ui/session/run_data.h"
#include "ui/session/shown_study.h"

using namespace paritylab;
using namespace paritylab::ui;

class ExportTest : public QObject {
  Q_OBJECT

  static void checkFiles(const QString& stem, QSize minSize) {
    QImage png(stem + ".png");
    QVERIFY2(!png.isNull(), qPrintable(stem + ".png does not load"));
    QVERIFY(png.width() >= minSize.width() && png.height() >= minSize.height());
    // Not blank: some pixel differs from the white background.
    bool ink = false;
    for (int y = 0; y < png.height() && !ink; y += 3)
      for (int x = 0; x < png.width() && !ink; x += 3) ink = png.pixel(x, y) != qRgb(255, 255, 255);
    QVERIFY(ink);
    QSvgRenderer svg(stem + ".svg");
    QVERIFY2(svg.isValid(), qPrintable(stem + ".svg is not valid SVG"));
    QVERIFY(svg.defaultSize().width() > 0);
  }

 private slots:
  void chartsAndDiagramExport() {
    ShownStudy study;
    RunData& data = *study.runs();
    for (std::int64_t id = 1; id <= 4; ++id) {
      study::RunKey k{id, id % 2 ? "tpu-bf16" : "cpu-fp32", static_cast<std::uint64_t>(id)};
      for (int e = 1; e <= 5; ++e) data.applyEpoch({k, e, 5, 1.0 / e, 1.1 / e, 0.5 + 0.06 * e, 1});
      data.applyState({k, study::RunState::Completed, 0, {}, 0.8 + 0.01 * id});
    }
    data.flush();
    CurvesPanel curves(&study);
    curves.resize(900, 600);
    DistributionsPanel dist(&study);
    dist.resize(900, 600);
    BitLayoutDiagram diagram;
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QStringList written;
    QString error;
    const bool ok = exportAll({exportableChart(curves.view(), "curves", QSize(800, 500)),
                               exportableChart(dist.view(), "histogram", QSize(800, 500)),
                               exportableDiagram(&diagram, "bit-layout")},
                              dir.filePath("out"), &written, &error);
    QVERIFY2(ok, qPrintable(error));
    QCOMPARE(written.size(), 6);
    checkFiles(dir.filePath("out/curves"), QSize(800, 500));
    checkFiles(dir.filePath("out/histogram"), QSize(800, 500));
    checkFiles(dir.filePath("out/bit-layout"), diagram.sizeHint());
  }

  void unwritablePathIsAnError() {
    BitLayoutDiagram diagram;
    QString error;
    QVERIFY(!exportPng(exportableDiagram(&diagram, "x"), "/nonexistent-dir/x.png", &error));
    QVERIFY(error.contains("/nonexistent-dir/x.png"));
  }

  // A full disk is an error naming the file (was: success, an empty file), and a
  // failed export never leaves a partial file (or a temporary one) under the final name.
  void fullDiskIsAnErrorAndLeavesNoPartialFile() {
    BitLayoutDiagram diagram;
    QString error;
    QVERIFY(!exportPng(exportableDiagram(&diagram, "x"), "/dev/full", &error));
    QVERIFY2(error.contains("/dev/full") && error.contains("No space left"), qPrintable(error));
    QVERIFY(!exportSvg(exportableDiagram(&diagram, "x"), "/dev/full", &error));
    QVERIFY2(error.contains("/dev/full"), qPrintable(error));
    QTemporaryDir dir;
    const QString svg = dir.filePath("x.svg");
    QVERIFY(exportSvg(exportableDiagram(&diagram, "x"), svg, &error));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{"x.svg"});
  }

  void diagramShowsBitsAndTogglesThem() {
    BitLayoutDiagram diagram;
    diagram.setValue(1.0);
    const auto& rows = diagram.anatomies();
    // fp32, tf32, bf16, fp16, e4m3, e5m2, the MX elements fp6 e3m2 / e2m3 and fp4 e2m1, and fnuz
    QCOMPARE(rows.size(), std::size_t(11));
    QCOMPARE(rows[0].format.name, std::string("fp32"));
    QCOMPARE(rows[0].exponentField, 127u);
    QCOMPARE(rows[3].exponentField, 15u);  // fp16 bias
    QCOMPARE(rows[2].stored, 1.0);
    // Same cell width per bit, aligned at the sign bit.
    QCOMPARE(diagram.bitRect(0, 0).left(), diagram.bitRect(5, 0).left());
    QCOMPARE(diagram.bitRect(0, 9).width(), diagram.bitRect(4, 7).width());
    // Clicking bf16's sign bit makes the value -1 in every row.
    QTest::mouseClick(&diagram, Qt::LeftButton, {}, diagram.bitRect(2, 0).center());
    QCOMPARE(diagram.value(), -1.0);
    for (const auto& a : diagram.anatomies()) QCOMPARE(a.stored, -1.0);
    // Toggling bf16's first mantissa bit (bit 9 = 1 + 8 exponent bits) gives -1.5.
    diagram.toggleBit(2, 9);
    QCOMPARE(diagram.value(), -1.5);
    QVERIFY(diagram.bitWeightText(2, 9).contains("2^-1"));
    // 0.1 in bf16 (nearest-even) is 0.10009765625.
    diagram.setValue(0.1);
    QCOMPARE(diagram.anatomies()[2].stored, 0.10009765625);
  }
};

QTEST_MAIN(ExportTest)
#include "export_test.moc"
