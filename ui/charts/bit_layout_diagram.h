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

// The diagram's field colours, shared with the X-ray histogram's format ranges:
// exponent (0 bit), mantissa (0 bit), sign (1 bit).
QColor exponentFieldColour();
QColor mantissaFieldColour();
QColor signFieldColourOn();

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

  // The natural size of the wide layout (figures beside the bits), used by exports; every text
  // is measured in its font, so no figure or label is ever cut.
  QSize sizeHint() const override;
  // The compact layout at its narrowest (10-pixel bits, figures beneath them). On screen, a
  // window narrower than sizeHint() gets the compact layout with the widest bits that fit.
  QSize minimumSizeHint() const override;
  // Paints the whole diagram at its natural size (sizeHint) into any painter: screen, PNG, SVG.
  void render(QPainter& painter) const;
  // On screen: compact when narrower than sizeHint(); else the wide layout grows with the room
  // it has (up to 2.5x), keeping its proportions.
  bool compact() const;
  double scale() const;
  // The header line: "value 0.1 rounded nearest-even".
  QString roundingLabel() const;
  // What row `row` shows of its stored value: "= <exact decimal>", or "≈ <shortest text>" when
  // the exact decimal is too long to show whole.
  QString storedText(int row) const;

  // Where a bit is drawn on screen (widget coordinates, scaled); row = format index, bit = 0 for
  // the sign, then exponent and mantissa bits from the most significant. bitAt returns false when
  // the point hits no bit.
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
  struct Geometry {
    bool compact = false;    // figures beneath the bits (else beside)
    bool smallText = false;  // narrow bits: 8-point texts
    int cell = 0;            // width of one bit
    int labelWidth = 0;      // the format's name box
    int rowPitch = 0;        // from one row of cells to the next
    int rowsTop = 0;         // top of the first row of cells
    int textWidth = 0;       // the widest text
    QSize size;
  };
  // compact: the stacked arrangement with bits `cell` pixels wide (0: the narrowest).
  Geometry geometry(bool compact, int cell = 0) const;
  Geometry screenGeometry() const;
  void paintDiagram(QPainter& painter, const Geometry& g) const;
  QRect cellRect(const Geometry& g, int row, int bit) const;  // at scale 1
  // "1+8+7 bits  normal  exp -4  ulp ..." and "|err| ...  rel ...": one line (wide) or two.
  QStringList figureLines(int row) const;

  std::vector<numerics::FloatFormat> formats_;
  std::vector<numerics::BitAnatomy> anatomies_;
  float value_ = 0.1f;
  numerics::RoundingMode mode_ = numerics::RoundingMode::NearestEven;
  numerics::OverflowMode overflow_ = numerics::OverflowMode::Ieee;
  numerics::SubnormalMode subnormals_ = numerics::SubnormalMode::Keep;
};

}  // namespace paritylab::ui
