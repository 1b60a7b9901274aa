// The Formats tab adds custom eXmY rows (refusing invalid names with the reason),
// and every row follows the typed value in the chosen rounding mode.
#include "ui/panels/formats/formats_panel.h"

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
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
};

QTEST_MAIN(FormatsPanelTest)
#include "formats_panel_test.moc"
