#include "ui/charts/bit_layout_diagram.h"

#include <QFontDatabase>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>

namespace paritylab::ui {
namespace {

// Geometry, in logical pixels. Every format uses the same cell width per bit.
constexpr int kMargin = 12;
constexpr int kLabelWidth = 92;
constexpr int kCell = 20;
constexpr int kCompactCell = 10;
constexpr int kCompactLabelWidth = 76;
constexpr int kTightCell = 16;  // narrower bits get 8-point texts
constexpr int kCellHeight = 24;
constexpr int kRowPitch = 46;         // cells + one line of figures beneath
constexpr int kCompactRowPitch = 80;  // cells + the stored value + two lines of figures
constexpr int kLineHeight = 17;
constexpr int kLegendHeight = 28;
constexpr int kMaxBits = 32;
constexpr int kTextWidth = 430;  // at least; wider when a text needs it
constexpr int kTextGap = 16;
constexpr double kMaxScale = 2.5;

// The reference figure's colours for a 0 bit, and a stronger shade of the same hue for a 1 bit.
const QColor kSign(0xcc, 0xcc, 0xcc), kExponent(0xad, 0xd8, 0xe6), kMantissa(0xff, 0xd5, 0x80);
const QColor kSignOn(0x8c, 0x8c, 0x8c), kExponentOn(0x4a, 0x9b, 0xc7),
    kMantissaOn(0xf2, 0xa5, 0x1a);

QColor fieldColor(int bit, int exponentBits, bool one) {
  if (bit == 0) return one ? kSignOn : kSign;
  if (bit <= exponentBits) return one ? kExponentOn : kExponent;
  return one ? kMantissaOn : kMantissa;
}

QString displayName(const numerics::FloatFormat& f) {
  if (f.name == "fp32") return QStringLiteral("FP32");
  if (f.name == "tf32") return QStringLiteral("TF32");
  if (f.name == "bf16") return QStringLiteral("bfloat16");
  if (f.name == "fp16") return QStringLiteral("FP16");
  if (f.name == "fp8-e4m3") return QStringLiteral("FP8 E4M3");
  if (f.name == "fp8-e5m2") return QStringLiteral("FP8 E5M2");
  return QString::fromStdString(f.name);
}

QString number(double v) {
  if (std::isnan(v)) return QStringLiteral("NaN");
  if (std::isinf(v)) return v > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
  return QString::number(v, 'g', 6);
}

// The shortest text that reads back as the same value: as an fp32 when the value is one
// (-1.5078125, 0.1 for the fp32 nearest 0.1), else as a double.
QString valueName(double v) {
  if (!std::isfinite(v)) return number(v);
  char buf[64];
  const bool isFloat = std::abs(v) <= std::numeric_limits<float>::max() &&
                       static_cast<double>(static_cast<float>(v)) == v;
  const auto end = isFloat ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(v))
                           : std::to_chars(buf, buf + sizeof buf, v);
  return QString::fromLatin1(buf, static_cast<int>(end.ptr - buf));
}

QFont monoFont(int pointSize, bool bold = false) {
  QFont f = QFontDatabase::systemFont(QFontDatabase::FixedFont);
  f.setPointSize(pointSize);
  f.setBold(bold);
  return f;
}

}  // namespace

QColor exponentFieldColour() {
  return kExponent;
}
QColor mantissaFieldColour() {
  return kMantissa;
}
QColor signFieldColourOn() {
  return kSignOn;
}

BitLayoutDiagram::BitLayoutDiagram(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setFormats(numerics::presetFormats());
}

void BitLayoutDiagram::setFormats(std::vector<numerics::FloatFormat> formats) {
  formats_ = std::move(formats);
  recompute();
  updateGeometry();
}

void BitLayoutDiagram::setValue(float value) {
  // Same bits, same rows (-0 and -nan differ from 0 and nan).
  if (std::bit_cast<std::uint32_t>(value) == std::bit_cast<std::uint32_t>(value_)) return;
  value_ = value;
  recompute();
  emit valueChanged(value_);
}

void BitLayoutDiagram::setRounding(numerics::RoundingMode mode, numerics::OverflowMode overflow,
                                   numerics::SubnormalMode subnormals) {
  mode_ = mode;
  overflow_ = overflow;
  subnormals_ = subnormals;
  recompute();
}

void BitLayoutDiagram::recompute() {
  anatomies_.clear();
  for (const numerics::FloatFormat& format : formats_) {
    numerics::RoundingSpec spec{format, mode_, overflow_, subnormals_};
    anatomies_.push_back(numerics::dissect(value_, spec));
  }
  updateGeometry();  // the texts' widths follow the value
  update();
}

QString BitLayoutDiagram::roundingLabel() const {
  const auto mode = numerics::toString(mode_);
  return tr("value %1 rounded %2")
      .arg(valueName(value_), QString::fromUtf8(mode.data(), static_cast<int>(mode.size())));
}

QString BitLayoutDiagram::storedText(int row) const {
  const numerics::BitAnatomy& a = anatomies_[static_cast<std::size_t>(row)];
  // An exact decimal is shown whole or not at all: a long one (a tiny or huge value has up to
  // hundreds of digits) is named by its shortest round-trip text, marked as not exact.
  if (a.storedExact.size() <= 44) return tr("= %1").arg(QString::fromStdString(a.storedExact));
  return tr("≈ %1 (exact: %2 characters)").arg(valueName(a.stored)).arg(a.storedExact.size());
}

QStringList BitLayoutDiagram::figureLines(int row) const {
  const numerics::BitAnatomy& a = anatomies_[static_cast<std::size_t>(row)];
  const numerics::FloatFormat& f = a.format;
  const auto cls = numerics::toString(a.valueClass);
  return {tr("1+%1+%2 bits  %3  exp %4  ulp %5")
              .arg(f.exponentBits)
              .arg(f.mantissaBits)
              .arg(QString::fromUtf8(cls.data(), static_cast<int>(cls.size())))
              .arg(a.valueClass == numerics::ValueClass::Normal ||
                           a.valueClass == numerics::ValueClass::Subnormal
                       ? QString::number(a.unbiasedExponent)
                       : QStringLiteral("-"))
              .arg(number(a.ulp)),
          tr("|err| %1  rel %2").arg(number(a.absoluteError), number(a.relativeError))};
}

BitLayoutDiagram::Geometry BitLayoutDiagram::geometry(bool compact, int cell) const {
  const QFontMetrics big(monoFont(9)), small(monoFont(8));
  const int rows = static_cast<int>(formats_.size());
  Geometry g;
  g.compact = compact;
  g.cell = compact ? std::clamp(cell, kCompactCell, kCell) : kCell;
  g.smallText = compact && g.cell < kTightCell;
  g.labelWidth = g.smallText ? kCompactLabelWidth : kLabelWidth;
  g.rowPitch = compact ? kCompactRowPitch : kRowPitch;
  // Compact: the rounding label gets its own line under the legend.
  g.rowsTop = kMargin + kLegendHeight + (compact ? kLineHeight : 0);
  const int cells = kMaxBits * g.cell;
  int stored = big.horizontalAdvance(roundingLabel()), figures = 0, legend = 0;
  for (const QString& text : {tr("sign"), tr("exponent"), tr("mantissa"), tr("not in format")})
    legend += g.smallText ? 22 + small.horizontalAdvance(text) : 28 + big.horizontalAdvance(text);
  for (int r = 0; r < rows; ++r) {
    // Compact: the stored value beneath the bits, in the figures' smaller font.
    stored = std::max(stored, (g.smallText ? small : big).horizontalAdvance(storedText(r)));
    const QStringList lines = figureLines(r);
    figures = std::max(figures, compact ? std::max(small.horizontalAdvance(lines[0]),
                                                   small.horizontalAdvance(lines[1]))
                                        : small.horizontalAdvance(lines.join("  ")));
  }
  if (compact) {
    // Everything beneath the cells, from their left edge.
    // The legend starts at the left margin, above the names.
    g.textWidth = std::max({cells, legend - g.labelWidth, stored + 8, figures + 8});
    g.size = {2 * kMargin + g.labelWidth + g.textWidth, g.rowsTop + rows * g.rowPitch + kMargin};
  } else {
    // The stored value beside the cells; the figure line starts under the cells and may run on
    // under the text column.
    g.textWidth = std::max({kTextWidth, stored + 8, figures + 8 - cells - kTextGap});
    g.size = {2 * kMargin + kLabelWidth + cells + kTextGap + g.textWidth,
              g.rowsTop + rows * g.rowPitch + kMargin};
  }
  return g;
}

QSize BitLayoutDiagram::sizeHint() const {
  return geometry(false).size;
}

QSize BitLayoutDiagram::minimumSizeHint() const {
  return geometry(true).size;
}

BitLayoutDiagram::Geometry BitLayoutDiagram::screenGeometry() const {
  if (!compact()) return geometry(false);
  // The widest bits that fit (8-point texts below 16 pixels).
  int cell = (width() - 2 * kMargin - kLabelWidth) / kMaxBits;
  if (cell < kTightCell) cell = (width() - 2 * kMargin - kCompactLabelWidth) / kMaxBits;
  return geometry(true, cell);
}

bool BitLayoutDiagram::compact() const {
  return width() < sizeHint().width();
}

double BitLayoutDiagram::scale() const {
  if (compact()) return 1.0;
  const QSize natural = sizeHint();
  const double s = std::min(double(width()) / natural.width(), double(height()) / natural.height());
  return std::clamp(s, 1.0, kMaxScale);
}

QRect BitLayoutDiagram::cellRect(const Geometry& g, int row, int bit) const {
  return {kMargin + g.labelWidth + bit * g.cell, g.rowsTop + row * g.rowPitch, g.cell, kCellHeight};
}

QRect BitLayoutDiagram::bitRect(int row, int bit) const {
  const QRect r = cellRect(screenGeometry(), row, bit);
  const double s = scale();
  return QRectF(r.x() * s, r.y() * s, r.width() * s, r.height() * s).toAlignedRect();
}

bool BitLayoutDiagram::bitAt(const QPoint& pos, int* row, int* bit) const {
  const Geometry g = screenGeometry();
  const double s = scale();
  const int x = static_cast<int>(std::floor(pos.x() / s)) - kMargin - g.labelWidth;
  const int y = static_cast<int>(std::floor(pos.y() / s)) - g.rowsTop;
  if (x < 0 || y < 0) return false;
  const int r = y / g.rowPitch, b = x / g.cell;
  if (r >= static_cast<int>(formats_.size()) || y % g.rowPitch >= kCellHeight) return false;
  if (b >= formats_[static_cast<std::size_t>(r)].totalBits()) return false;
  *row = r;
  *bit = b;
  return true;
}

std::uint32_t BitLayoutDiagram::pattern(int row) const {
  const numerics::BitAnatomy& a = anatomies_[static_cast<std::size_t>(row)];
  const numerics::FloatFormat& f = a.format;
  return (static_cast<std::uint32_t>(a.sign) << (f.exponentBits + f.mantissaBits)) |
         (a.exponentField << f.mantissaBits) | a.mantissaField;
}

void BitLayoutDiagram::toggleBit(int row, int bit) {
  const numerics::FloatFormat& f = formats_[static_cast<std::size_t>(row)];
  const int shift = f.totalBits() - 1 - bit;
  const std::uint32_t toggled = pattern(row) ^ (1u << shift);
  setValue(static_cast<float>(numerics::decodeBits(f, toggled)));  // exact: formats <= fp32
}

QString BitLayoutDiagram::bitWeightText(int row, int bit) const {
  const numerics::BitAnatomy& a = anatomies_[static_cast<std::size_t>(row)];
  const numerics::FloatFormat& f = a.format;
  const QString name = displayName(f);
  if (bit == 0) return tr("%1 sign bit: 0 = positive, 1 = negative").arg(name);
  if (bit <= f.exponentBits) {
    const int power = f.exponentBits - bit;  // weight of this bit inside the biased field
    return tr("%1 exponent bit %2: adds %3 to the biased exponent (bias %4), "
              "i.e. scales the value by 2^%3")
        .arg(name)
        .arg(power)
        .arg(1 << power)
        .arg(f.bias);
  }
  const int j = bit - f.exponentBits;  // 1-based fraction bit from the most significant
  const bool normal = a.valueClass == numerics::ValueClass::Normal;
  const int e = normal ? a.unbiasedExponent : 1 - f.bias;
  const double weight = std::ldexp(1.0, e - j);
  return tr("%1 mantissa bit %2: weight 2^-%2 of the significand = 2^%3 = %4 at this exponent")
      .arg(name)
      .arg(j)
      .arg(e - j)
      .arg(QString::number(weight, 'g', 9));
}

void BitLayoutDiagram::render(QPainter& p) const {
  paintDiagram(p, geometry(false));
}

void BitLayoutDiagram::paintDiagram(QPainter& p, const Geometry& g) const {
  p.save();
  p.setRenderHint(QPainter::Antialiasing, false);
  p.fillRect(QRect(QPoint(0, 0), g.size), Qt::white);
  const QPen border(QColor(0x50, 0x50, 0x50), 1);

  // Legend.
  p.setFont(monoFont(g.smallText ? 8 : 9));
  int lx = g.compact ? kMargin : kMargin + g.labelWidth;
  const std::pair<QColor, QString> legend[] = {{kSign, tr("sign")},
                                               {kExponent, tr("exponent")},
                                               {kMantissa, tr("mantissa")},
                                               {Qt::white, tr("not in format")}};
  for (const auto& [color, text] : legend) {
    p.setPen(border);
    p.setBrush(color);
    const int box = g.smallText ? 12 : 14;
    p.drawRect(lx, kMargin + 4, box, box);
    p.setPen(Qt::black);
    p.drawText(QRect(lx + box + 4, kMargin + 2, 120, 18), Qt::AlignVCenter | Qt::AlignLeft, text);
    lx += (g.smallText ? 22 : 28) + p.fontMetrics().horizontalAdvance(text);
  }
  const int cellsLeft = kMargin + g.labelWidth;
  const int textX = g.compact ? cellsLeft : cellsLeft + kMaxBits * g.cell + kTextGap;
  p.setPen(QColor(0x60, 0x60, 0x60));
  p.drawText(QRect(textX, g.compact ? kMargin + kLegendHeight - 4 : kMargin + 2, g.textWidth, 18),
             Qt::AlignVCenter | Qt::AlignLeft, roundingLabel());

  for (std::size_t r = 0; r < anatomies_.size(); ++r) {
    const numerics::BitAnatomy& a = anatomies_[r];
    const numerics::FloatFormat& f = a.format;
    const int row = static_cast<int>(r);
    const QRect first = cellRect(g, row, 0);
    // Name box.
    p.setPen(border);
    p.setBrush(Qt::white);
    const QRect label(kMargin, first.top(), g.labelWidth - 6, kCellHeight);
    p.drawRect(label);
    p.setPen(Qt::black);
    p.setFont(monoFont(9, true));
    p.drawText(label.adjusted(4, 0, 0, 0), Qt::AlignVCenter | Qt::AlignLeft, displayName(f));

    const std::uint32_t bits = pattern(row);
    for (int b = 0; b < kMaxBits; ++b) {
      const QRect cell = cellRect(g, row, b);
      p.setPen(border);
      if (b >= f.totalBits()) {
        p.setBrush(Qt::white);
        p.drawRect(cell);
        continue;
      }
      const bool one = (bits >> (f.totalBits() - 1 - b)) & 1u;
      p.setBrush(fieldColor(b, f.exponentBits, one));
      p.drawRect(cell);
      p.setPen(one ? Qt::white : QColor(0x50, 0x50, 0x50));
      p.setFont(monoFont(g.smallText ? 8 : 9, one));
      p.drawText(cell, Qt::AlignCenter, one ? QStringLiteral("1") : QStringLiteral("0"));
    }

    // The stored value beside the cells (compact: beneath them), the figures beneath.
    p.setPen(Qt::black);
    p.setFont(monoFont(g.smallText ? 8 : 9));
    const QRect stored = g.compact ? QRect(cellsLeft, first.bottom() + 2, g.textWidth, kLineHeight)
                                   : QRect(textX, first.top(), g.textWidth, kCellHeight);
    p.drawText(stored, Qt::AlignVCenter | Qt::AlignLeft, storedText(row));
    p.setPen(QColor(0x40, 0x40, 0x40));
    p.setFont(monoFont(8));
    const int figuresTop = g.compact ? stored.bottom() + 1 : first.bottom() + 2;
    const QStringList lines = figureLines(row);
    const QStringList shown = g.compact ? lines : QStringList{lines.join(QStringLiteral("  "))};
    for (int i = 0; i < shown.size(); ++i)
      p.drawText(QRect(cellsLeft, figuresTop + 16 * i, g.size.width() - cellsLeft, 16),
                 Qt::AlignVCenter | Qt::AlignLeft, shown[i]);
  }
  p.restore();
}

void BitLayoutDiagram::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), Qt::white);
  p.scale(scale(), scale());
  paintDiagram(p, screenGeometry());
}

void BitLayoutDiagram::mousePressEvent(QMouseEvent* event) {
  int row = 0, bit = 0;
  if (event->button() == Qt::LeftButton && bitAt(event->pos(), &row, &bit)) toggleBit(row, bit);
}

bool BitLayoutDiagram::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(e);
    int row = 0, bit = 0;
    if (bitAt(help->pos(), &row, &bit)) {
      QToolTip::showText(help->globalPos(), bitWeightText(row, bit), this, bitRect(row, bit));
    } else {
      QToolTip::hideText();
    }
    return true;
  }
  return QWidget::event(e);
}

}  // namespace paritylab::ui
