// The X-ray heatmap's labels never draw over each other: site names are thinned to every how many
// rows their height needs, and a block's step axis says its first and last steps only where both
// fit apart (else their range, else nothing), its title as long as the block's width holds.
#include <QApplication>
#include <QFontMetrics>
#include <QtTest>

#include "ui/panels/xray/xray_heatmap.h"

using namespace paritylab::ui;

class XrayHeatmapLabelsTest : public QObject {
  Q_OBJECT

 private slots:
  void siteNamesAreThinnedToTheirHeight() {
    QCOMPARE(siteLabelStride(20.0, 14.0), 1);  // a name per row
    QCOMPARE(siteLabelStride(12.6, 14.0), 1);  // 90% of a line is enough
    QCOMPARE(siteLabelStride(7.0, 14.0), 2);
    QCOMPARE(siteLabelStride(3.0, 14.0), 5);  // 130 sites in a 400-pixel block
    QCOMPARE(siteLabelStride(0.0, 14.0), 1);  // no rows: nothing to thin
  }

  void stepAxisSaysWhatItsWidthHolds() {
    const QFontMetrics fm(QApplication::font());
    const auto width = [&](const QString& s) { return double(fm.horizontalAdvance(s)); };
    // Wide: both ends and the whole title.
    StepAxisText wide = stepAxisText(0, 380, 20, 1000.0, fm);
    QCOMPARE(wide.first, QStringLiteral("0"));
    QCOMPARE(wide.last, QStringLiteral("380"));
    QVERIFY(wide.range.isEmpty());
    QCOMPARE(wide.title, QStringLiteral("training step (20 samples)"));
    // Just too narrow for "0 380" apart: the range, centred.
    const double apart = width("0") + width(" ") + width("380");
    StepAxisText narrow = stepAxisText(0, 380, 20, apart - 1.0, fm);
    QVERIFY(narrow.first.isEmpty() && narrow.last.isEmpty());
    if (width("0-380") <= apart - 1.0) QCOMPARE(narrow.range, QStringLiteral("0-380"));
    // Narrower than any of it: nothing at all, rather than digits drawn over each other.
    StepAxisText none = stepAxisText(0, 380, 20, width("0") - 1.0, fm);
    QVERIFY(none.first.isEmpty() && none.last.isEmpty() && none.range.isEmpty());
    QVERIFY(none.title.isEmpty());
    // The title shortens before it goes.
    QCOMPARE(stepAxisText(0, 380, 20, width("step (20 samples)"), fm).title,
             QStringLiteral("step (20 samples)"));
    QCOMPARE(stepAxisText(0, 380, 20, width("step"), fm).title, QStringLiteral("step"));
  }
};

QTEST_MAIN(XrayHeatmapLabelsTest)
#include "xray_heatmap_labels_test.moc"
