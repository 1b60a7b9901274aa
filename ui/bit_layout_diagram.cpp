#include "ui/bit_layout_diagram.h"

#include <QFontDatabase>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <bit>
#include <cmath>
#include <cstdint>

namespace paritylab::ui {
namespace {

// Geometry, in logical pixels. Every format uses the same cell width per bit.
constexpr int kMargin = 12;
constexpr int kLabelWidth = 92;
constexpr int kCell = 20;
constexpr int kCellHeight = 24;
constexpr int kRowPitch = 46;  // cells + one line of figures beneath
constexpr int kLegendHeight = 28;
constexpr int kMaxBits = 32;
constexpr int kTextWidth = 430;

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

QFont monoFont(int pointSize, bool bold = false) {
  QFont f = QFontDatabase::systemFont(QFontDatabase::FixedFont);
  f.setPointSize(pointSize);
  f.setBold(bold);
  return f;
}

}  // namespace

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
  update();
}

QSize BitLayoutDiagram::sizeHint() const {
  const int rows = static_cast<int>(formats_.size());
  return {2 * kMargin + kLabelWidth + kMaxBits * kCell + 16 + kTextWidth,
          2 * kMargin + kLegendHeight + rows * kRowPitch};
}

QRect BitLayoutDiagram::bitRect(int row, int bit) const {
  return {kMargin + kLabelWidth + bit * kCell, kMargin + kLegendHeight + row * kRowPitch, kCell,
          kCellHeight};
}

bool BitLayoutDiagram::bitAt(const QPoint& pos, int* row, int* bit) const {
  const int x = pos.x() - kMargin - kLabelWidth;
  const int y = pos.y() - kMargin - kLegendHeight;
  if (x < 0 || y < 0) return false;
  const int r = y / kRowPitch, b = x / kCell;
  if (r >= static_cast<int>(formats_.size()) || y % kRowPitch >= kCellHeight) return false;
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
  p.save();
  p.setRenderHint(QPainter::Antialiasing, false);
  p.fillRect(QRect(QPoint(0, 0), sizeHint()), Qt::white);
  const QPen border(QColor(0x50, 0x50, 0x50), 1);

  // Legend.
  p.setFont(monoFont(9));
  int lx = kMargin + kLabelWidth;
  const std::pair<QColor, QString> legend[] = {{kSign, tr("sign")},
                                               {kExponent, tr("exponent")},
                                               {kMantissa, tr("mantissa")},
                                               {Qt::white, tr("not in format")}};
  for (const auto& [color, text] : legend) {
    p.setPen(border);
    p.setBrush(color);
    p.drawRect(lx, kMargin + 4, 14, 14);
    p.setPen(Qt::black);
    p.drawText(QRect(lx + 20, kMargin + 2, 120, 18), Qt::AlignVCenter | Qt::AlignLeft, text);
    lx += 28 + p.fontMetrics().horizontalAdvance(text);
  }
  const int textX = kMargin + kLabelWidth + kMaxBits * kCell + 16;
  p.setPen(QColor(0x60, 0x60, 0x60));
  p.drawText(QRect(textX, kMargin + 2, kTextWidth, 18), Qt::AlignVCenter | Qt::AlignLeft,
             tr("value %1 rounded %2")
                 .arg(number(value_), QString::fromUtf8(numerics::toString(mode_).data(),
                                                        numerics::toString(mode_).size())));

  for (std::size_t r = 0; r < anatomies_.size(); ++r) {
    const numerics::BitAnatomy& a = anatomies_[r];
    const numerics::FloatFormat& f = a.format;
    const int row = static_cast<int>(r);
    const QRect first = bitRect(row, 0);
    // Name box.
    p.setPen(border);
    p.setBrush(Qt::white);
    const QRect label(kMargin, first.top(), kLabelWidth - 6, kCellHeight);
    p.drawRect(label);
    p.setPen(Qt::black);
    p.setFont(monoFont(9, true));
    p.drawText(label.adjusted(4, 0, 0, 0), Qt::AlignVCenter | Qt::AlignLeft, displayName(f));

    const std::uint32_t bits = pattern(row);
    for (int b = 0; b < kMaxBits; ++b) {
      const QRect cell = bitRect(row, b);
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
      p.setFont(monoFont(9, one));
      p.drawText(cell, Qt::AlignCenter, one ? QStringLiteral("1") : QStringLiteral("0"));
    }

    // Figures beside the cells and beneath them.
    p.setPen(Qt::black);
    p.setFont(monoFont(9));
    QString stored = QString::fromStdString(a.storedExact);
    if (stored.size() > 44) stored = stored.left(42) + QStringLiteral("…");
    p.drawText(QRect(textX, first.top(), kTextWidth, kCellHeight), Qt::AlignVCenter | Qt::AlignLeft,
               tr("= %1").arg(stored));
    p.setPen(QColor(0x40, 0x40, 0x40));
    p.setFont(monoFont(8));
    const auto cls = numerics::toString(a.valueClass);
    const QString line = tr("1+%1+%2 bits  %3  exp %4  |err| %5  rel %6  ulp %7")
                             .arg(f.exponentBits)
                             .arg(f.mantissaBits)
                             .arg(QString::fromUtf8(cls.data(), static_cast<int>(cls.size())))
                             .arg(a.valueClass == numerics::ValueClass::Normal ||
                                          a.valueClass == numerics::ValueClass::Subnormal
                                      ? QString::number(a.unbiasedExponent)
                                      : QStringLiteral("-"))
                             .arg(number(a.absoluteError), number(a.relativeError), number(a.ulp));
    p.drawText(QRect(first.left(), first.bottom() + 2, kMaxBits * kCell + kTextWidth, 16),
               Qt::AlignVCenter | Qt::AlignLeft, line);
  }
  p.restore();
}

void BitLayoutDiagram::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), Qt::white);
  render(p);
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
