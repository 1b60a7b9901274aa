#pragma once
// The bit-layout diagram: one row per format, sign/exponent/mantissa cells in distinct colours,
// drawn to scale (one cell width per bit) and aligned at the sign bit, as in the reference figure.
// Each row shows the bits of the current value rounded to that format, the exact stored value,
// the rounding error and the ulp. Clicking a bit toggles it (the decoded value becomes the new
// value of every row); hovering a bit shows its weight.

#include <QWidget>
#include <vector>

#include "core/numerics/bit_anatomy.h"

namespace paritylab::ui {

class BitLayoutDiagram : public QWidget {
  Q_OBJECT

 public:
  explicit BitLayoutDiagram(QWidget* parent = nullptr);

  void setFormats(std::vector<numerics::FloatFormat> formats);
  const std::vector<numerics::FloatFormat>& formats() const { return formats_; }
  // The fp32 value every row rounds (parse typed text with numerics::parseFp32Input).
  void setValue(float value);
  double value() const { return value_; }
  void setRounding(numerics::RoundingMode mode, numerics::OverflowMode overflow,
                   numerics::SubnormalMode subnormals);
  const std::vector<numerics::BitAnatomy>& anatomies() const { return anatomies_; }

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override { return sizeHint(); }
  // Paints the whole diagram at its natural size (sizeHint) into any painter: screen, PNG, SVG.
  void render(QPainter& painter) const;

  // Where a bit is drawn; row = format index, bit = 0 for the sign, then exponent and mantissa
  // bits from the most significant. Returns false when the point hits no bit.
  bool bitAt(const QPoint& pos, int* row, int* bit) const;
  QRect bitRect(int row, int bit) const;
  // Toggles one bit of one row's pattern; every row then shows the decoded value.
  void toggleBit(int row, int bit);
  QString bitWeightText(int row, int bit) const;

 signals:
  void valueChanged(double value);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  bool event(QEvent* event) override;

 private:
  void recompute();
  std::uint32_t pattern(int row) const;

  std::vector<numerics::FloatFormat> formats_;
  std::vector<numerics::BitAnatomy> anatomies_;
  float value_ = 0.1f;
  numerics::RoundingMode mode_ = numerics::RoundingMode::NearestEven;
  numerics::OverflowMode overflow_ = numerics::OverflowMode::Ieee;
  numerics::SubnormalMode subnormals_ = numerics::SubnormalMode::Keep;
};

}  // namespace paritylab::ui
