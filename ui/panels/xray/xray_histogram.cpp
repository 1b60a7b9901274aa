#include "ui/panels/xray/xray_histogram.h"

#include <QPainter>
#include <algorithm>
#include <cmath>

#include "ui/charts/bit_layout_diagram.h"

namespace paritylab::ui {
namespace {

constexpr int kLeft = 52, kRight = 10, kTop = 22, kBottom = 34;

}  // namespace

std::optional<numerics::FloatFormat> xrayFormat(const QString& name) {
  QString base = name;
  if (base == QLatin1String("bf16x3") || base == QLatin1String("bf16x6"))
    base = QStringLiteral("bf16");
  return numerics::parseFormat(base.toStdString());
}

XrayHistogram::XrayHistogram(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void XrayHistogram::setTensor(const numerics::TensorXray& xray,
                              std::optional<numerics::FloatFormat> format, const QString& title) {
  xray_ = xray;
  format_ = std::move(format);
  title_ = title;
  shown_ = true;
  using TX = numerics::TensorXray;
  first_ = TX::kMaxExponent;
  last_ = TX::kMinExponent;
  for (int i = 0; i < TX::kExponentBins; ++i) {
    if (xray.exponentBins[std::size_t(i)] > 0) {
      first_ = std::min(first_, TX::kMinExponent + i);
      last_ = std::max(last_, TX::kMinExponent + i);
    }
  }
  if (format_) {  // show the format's whole range around the data
    first_ = std::min(first_, int(std::floor(std::log2(format_->minSubnormal()))) - 1);
    last_ = std::max(last_, int(std::floor(std::log2(format_->maxFinite()))) + 1);
  }
  first_ = std::max(first_, TX::kMinExponent);
  last_ = std::min(std::max(last_, first_), TX::kMaxExponent);
  update();
}

QString XrayHistogram::emptyHint() const {
  return tr("Click a cell to see that tensor's exponents");
}

QRect XrayHistogram::emptyHintRect() const {
  return rect().adjusted(8, 4, -8, -4);
}

void XrayHistogram::clear() {
  shown_ = false;
  update();
}

void XrayHistogram::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), Qt::white);
  const QFontMetrics fm(p.font());
  if (!shown_) {
    p.setPen(Qt::darkGray);
    p.drawText(emptyHintRect(), Qt::AlignCenter | Qt::TextWordWrap, emptyHint());
    return;
  }
  const QRectF plot(kLeft, kTop, width() - kLeft - kRight, height() - kTop - kBottom);
  const int n = last_ - first_ + 1;
  const double w = plot.width() / n;
  auto xOf = [&](double exponent) { return plot.left() + (exponent - first_) * w; };
  if (format_) {  // the format's ranges, behind the bars
    const double sub = std::log2(format_->minSubnormal()), normal = std::log2(format_->minNormal());
    const double top = std::floor(std::log2(format_->maxFinite())) + 1;  // end of its binade
    QColor subColour = mantissaFieldColour(), normalColour = exponentFieldColour();
    if (format_->hasSubnormals)
      p.fillRect(QRectF(QPointF(xOf(sub), plot.top()), QPointF(xOf(normal), plot.bottom())),
                 subColour);
    p.fillRect(QRectF(QPointF(xOf(normal), plot.top()), QPointF(xOf(top), plot.bottom())),
               normalColour);
    p.setPen(QPen(signFieldColourOn(), 2));
    const double maxX = xOf(std::log2(format_->maxFinite()));
    p.drawLine(QPointF(maxX, plot.top()), QPointF(maxX, plot.bottom()));
  }
  std::int64_t most = 1;
  for (int e = first_; e <= last_; ++e)
    most = std::max(most, xray_.exponentBins[std::size_t(e - numerics::TensorXray::kMinExponent)]);
  p.setPen(Qt::NoPen);
  p.setBrush(QColor(0x30, 0x30, 0x30));
  for (int e = first_; e <= last_; ++e) {
    const auto c = xray_.exponentBins[std::size_t(e - numerics::TensorXray::kMinExponent)];
    if (c == 0) continue;
    const double h = plot.height() * double(c) / double(most);
    p.drawRect(QRectF(xOf(e) + w * 0.1, plot.bottom() - h, std::max(1.0, w * 0.8), h));
  }
  p.setPen(QColor(0x50, 0x50, 0x50));
  p.setBrush(Qt::NoBrush);
  p.drawRect(plot);
  // Axes: count on the left, exponent ticks below (about every 60 px).
  p.drawText(QRectF(0, plot.top(), kLeft - 4, fm.height()), Qt::AlignRight, QString::number(most));
  p.drawText(QRectF(0, plot.bottom() - fm.height(), kLeft - 4, fm.height()), Qt::AlignRight,
             QStringLiteral("0"));
  const int every = std::max(1, int(std::ceil(60.0 / w)));
  for (int e = first_; e <= last_; ++e) {
    if ((e % every) == 0)
      p.drawText(QRectF(xOf(e) - 30, plot.bottom() + 1, 60 + w, fm.height()), Qt::AlignHCenter,
                 QString::number(e));
  }
  p.drawText(QRectF(plot.left(), plot.bottom() + fm.height(), plot.width(), fm.height()),
             Qt::AlignCenter, tr("binary exponent floor(log2 |x|); count per exponent"));
  QString head = tr("%1 — %2 values, %3 zero, %4 non-finite")
                     .arg(title_)
                     .arg(xray_.count)
                     .arg(xray_.zeros)
                     .arg(xray_.nonFinite);
  if (format_)
    head += tr("; %1: subnormal (orange), normal (blue), max finite (line)")
                .arg(QString::fromStdString(format_->name));
  p.drawText(QRectF(4, 2, width() - 8, kTop - 4), Qt::AlignLeft | Qt::AlignVCenter,
             fm.elidedText(head, Qt::ElideRight, width() - 8));
}

}  // namespace paritylab::ui
