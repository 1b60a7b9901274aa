// The Formats tab adds custom eXmY rows (refusing invalid names with the reason),
// and every row follows the typed value in the chosen rounding mode. Below the diagram, one block
// of a block-scaled format shows its shared scale and each element's bits.
#include "ui/panels/formats/formats_panel.h"

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QTableWidget>
#include <QtTest>

#include "core/numerics/float_format.h"
#include "ui/charts/bit_layout_diagram.h"

using namespace paritylab::ui;

class FormatsPanelTest : public QObject {
  Q_OBJECT

 private slots:
  void addsCustomFormats() {
    FormatsPanel panel;
    QCOMPARE(panel.diagram()->formats().size(), paritylab::numerics::presetFormats().size());
    QString error;
    QVERIFY2(panel.addFormat("e5m7", &error), qPrintable(error));
    QCOMPARE(panel.diagram()->formats().size(), paritylab::numerics::presetFormats().size() + 1);
    QCOMPARE(panel.diagram()->formats().back().mantissaBits, 7);
    QVERIFY(!panel.addFormat("e5m7", &error));  // already shown
    QVERIFY(!panel.addFormat("e9m3", &error));  // exponent out of range
    QVERIFY2(error.contains("e9m3"), qPrintable(error));
    QVERIFY(!panel.addFormat("banana", &error));
    QVERIFY2(error.contains("banana"), qPrintable(error));
  }

  void typedValueAndRoundingMode() {
    FormatsPanel panel;
    auto* edit = panel.findChild<QLineEdit*>();
    QVERIFY(edit);
    edit->setText("0x3f800001");  // fp32 bits: 1 + 2^-23
    emit edit->editingFinished();
    QCOMPARE(panel.diagram()->value(), 1.0 + std::ldexp(1.0, -23));
    QCOMPARE(panel.diagram()->anatomies()[2].stored, 1.0);  // bf16 nearest-even
    // 1 + 2^-8 + 2^-9 lies above bf16's half-way point: nearest rounds up, toward-zero down.
    panel.diagram()->setValue(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -9));
    QCOMPARE(panel.diagram()->anatomies()[2].stored, 1.0 + std::ldexp(1.0, -7));
    QComboBox* mode = nullptr;
    for (QComboBox* box : panel.findChildren<QComboBox*>())
      if (box->findText("toward-zero") >= 0) mode = box;
    QVERIFY(mode);
    mode->setCurrentIndex(mode->findText("toward-zero"));
    QCOMPARE(panel.diagram()->anatomies()[2].stored, 1.0);
    QCOMPARE(panel.diagram()->anatomies()[2].ulp, std::ldexp(1.0, -7));
  }

  // The tab takes the path of `bits` and `round`: text -> nearest fp32 (saying when
  // the decimal is not exactly one) -> the same Rounder; NaN keeps its sign.
  void typedDecimalIsReadAsTheNearestFp32() {
    FormatsPanel panel;
    auto* edit = panel.findChild<QLineEdit*>();
    auto noteText = [&] {
      for (QLabel* label : panel.findChildren<QLabel*>())
        if (label->text().contains("exactly an fp32")) return label->text();
      return QString();
    };
    QVERIFY2(noteText().contains("0.1 is not exactly an fp32"),
             qPrintable(noteText()));   // at start
    edit->setText("1.00390625000001");  // nearest fp32: 1 + 2^-8, bf16's tie, nearest-even -> 1
    emit edit->editingFinished();
    QCOMPARE(panel.diagram()->value(), 1.00390625);
    QCOMPARE(panel.diagram()->anatomies()[2].stored, 1.0);
    QVERIFY2(noteText().contains("every row rounds the nearest fp32, 1.00390625"),
             qPrintable(noteText()));
    QCOMPARE(edit->text(), QStringLiteral("1.00390625000001"));  // what was typed stays
    edit->setText("0x3f800000");
    emit edit->editingFinished();
    QVERIFY(noteText().isEmpty());
    edit->setText("-nan");
    emit edit->editingFinished();
    QVERIFY(panel.diagram()->anatomies()[2].bits.starts_with("1 11111111"));
  }

  // The header names the value as typed (every digit that makes it that fp32), and a stored
  // value's exact decimal is shown whole or marked as approximate, never cut mid-number.
  void headerShowsTheValueAsTypedAndNoDecimalIsCut() {
    FormatsPanel panel;
    auto* edit = panel.findChild<QLineEdit*>();
    edit->setText("-1.5078125");
    emit edit->editingFinished();
    QVERIFY2(panel.diagram()->roundingLabel().contains("-1.5078125 "),
             qPrintable(panel.diagram()->roundingLabel()));
    edit->setText("1e-40");  // an fp32 subnormal: its exact decimal has over a hundred digits
    emit edit->editingFinished();
    for (int row = 0; row < static_cast<int>(panel.diagram()->formats().size()); ++row) {
      const QString text = panel.diagram()->storedText(row);
      QVERIFY2(!text.contains(QString::fromUtf8("…")), qPrintable(text));
      if (text.startsWith("= "))
        QCOMPARE(text.mid(2), QString::fromStdString(
                                  panel.diagram()->anatomies()[std::size_t(row)].storedExact));
      else
        QVERIFY2(text.startsWith(QString::fromUtf8("≈ ")), qPrintable(text));
    }
  }

  // OCP MX FP4, worked by hand: amax 3 shares the scale 2^(floor(log2 3) - 2) = 2^-1; 1.5 is the
  // element 3 (0 10 1), 0.1 rounds to 0, -3 is -6 (1 11 1), E2M1's largest.
  void showsOneBlockWithItsSharedScaleAndEachElementsBits() {
    FormatsPanel panel;
    QVERIFY(panel.setBlock("mxfp4", "1.5, 0.1, -3"));
    QVERIFY2(panel.blockScaleText().startsWith("Scale 2^-1 = 0.5 (E8M0 code 126)"),
             qPrintable(panel.blockScaleText()));
    QTableWidget* t = panel.blockTable();
    QCOMPARE(t->rowCount(), 3);
    QCOMPARE(t->item(0, 1)->text(), QString("0 10 1"));
    QCOMPARE(t->item(0, 3)->text(), QString("1.5"));
    QCOMPARE(t->item(1, 3)->text(), QString("0"));
    QCOMPARE(t->item(2, 1)->text(), QString("1 11 1"));
    QCOMPARE(t->item(2, 2)->text(), QString("-6"));
    // NVFP4 names its two scales.
    QVERIFY(panel.setBlock("nvfp4", "1, 2, 3, 6"));
    QVERIFY2(panel.blockScaleText().contains("block scale 448 (E4M3 0 1111 110)"),
             qPrintable(panel.blockScaleText()));
    // Bad input names the value; a block too long names the count; nothing stale is shown.
    QVERIFY(!panel.setBlock("mxfp4", "1, x"));
    QVERIFY2(panel.blockScaleText().contains("Value 2, \"x\", is not a number"),
             qPrintable(panel.blockScaleText()));
    QCOMPARE(panel.blockTable()->rowCount(), 0);
    QString many = "1";
    for (int i = 1; i < 17; ++i) many += ", 1";
    QVERIFY(!panel.setBlock("nvfp4", many));
    QVERIFY2(panel.blockScaleText().contains("17 values: one block holds 1 to 16"),
             qPrintable(panel.blockScaleText()));
  }
};

QTEST_MAIN(FormatsPanelTest)
#include "formats_panel_test.moc"
