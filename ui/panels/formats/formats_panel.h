#pragma once
// The Formats tab: a value, the rounding controls, custom eXmY formats, and the bit-layout diagram;
// below it, one block of a block-scaled format (MX, NVFP4) with its shared scale.

#include <QWidget>

#include "ui/charts/chart_export.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QTableWidget;

namespace paritylab::ui {

class BitLayoutDiagram;

class FormatsPanel : public QWidget, public ChartExports {
  Q_OBJECT

 public:
  explicit FormatsPanel(QWidget* parent = nullptr);
  BitLayoutDiagram* diagram() const { return diagram_; }
  // Adds a custom format ("e5m7"); false with the reason in *error when the name is invalid.
  bool addFormat(const QString& name, QString* error = nullptr);
  // Types `value` into the value field (9 significant digits) and applies it (the X-ray tab's
  // "Show in Formats").
  void setValue(double value);
  QString valueText() const;
  // Shows `values` (comma-separated) as one block of the block format `format` ("mxfp4"); false
  // with the reason on the tab when the values are not numbers or do not fit one block.
  bool setBlock(const QString& format, const QString& values);
  QTableWidget* blockTable() const { return blockTable_; }  // one row per element
  QString blockScaleText() const;
  // The bit-layout diagram ("bit-layout") at the value shown.
  std::vector<Exportable> exportables() const override;
  std::optional<Exportable> currentExportable() const override;

 private:
  void applyValueText();
  void applyRounding();
  void applyBlock();

  BitLayoutDiagram* diagram_;
  QLineEdit* valueEdit_;
  QComboBox* modeBox_;
  QComboBox* overflowBox_;
  QComboBox* subnormalBox_;
  QLineEdit* customEdit_;
  QLabel* status_;  // errors
  QLabel* note_;    // the typed decimal is not exactly an fp32: which fp32 the rows round
  QComboBox* blockFormatBox_;
  QLineEdit* blockValuesEdit_;
  QLabel* blockScale_;  // the shared scale, or why there is no block
  QTableWidget* blockTable_;
  bool applyingText_ = false;  // the diagram's value comes from the text, not from clicked bits
};

}  // namespace paritylab::ui
