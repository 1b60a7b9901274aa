#include "ui/panels/statistics/difference_plot.h"

#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>

#include "ui/charts/nice_ticks.h"
#include "ui/charts/number_format.h"

namespace paritylab::ui {

DifferencePlot::DifferencePlot(QWidget* parent) : QWidget(parent) {
  setMinimumHeight(120);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
}

void DifferencePlot::setRows(std::vector<DifferenceRow> rows, double margin, double alpha,
                             const QString& estimate, const stats::MetricWords& words) {
  rows_ = std::move(rows);
  estimate_ = estimate;
  words_ = words;
  margin_ = margin;
  alpha_ = alpha;
  updateGeometry();
  update();
}

QString DifferencePlot::title() const {
  bool tost = false;
  for (const DifferenceRow& r : rows_) tost |= std::isfinite(r.tostLow);
  const QString unit = differenceUnit(words_);
  return tr("%1 (A − B, %2), %3% CI%4")
      .arg(estimate_, words_.unit == "points" ? tr("accuracy points")
                      : unit.isEmpty()
                          ? QString::fromStdString(words_.name)
                          : tr("%1, %2").arg(QString::fromStdString(words_.name), unit))
      .arg(100 * (1 - alpha_), 0, 'g', 3)
      .arg(margin_ > 0
               ? (tost ? tr("; thick: %1% CI of the mean difference for TOST")
                             .arg(100 * (1 - 2 * alpha_), 0, 'g', 3)
                       : QString()) +
                     tr("; shaded: ±%1 equivalence zone")
                         .arg(unit.isEmpty() ? QString::number(margin_)
                                             : QStringLiteral("%1 %2").arg(margin_).arg(unit))
               : QString());
}

int DifferencePlot::titleHeight(int width) const {
  // The title wraps to the width it has (a 1024-pixel window cut it on both sides).
  return fontMetrics()
             .boundingRect(QRect(0, 0, std::max(100, width - 8), 1000),
                           Qt::AlignHCenter | Qt::TextWordWrap, title())
             .height() +
         10;
}

QSize DifferencePlot::sizeHint() const {
  const int rows = static_cast<int>(std::max<std::size_t>(1, rows_.size()));
  return {900, titleHeight(width()) + 46 + 44 * rows};
}

bool DifferencePlot::hasHeightForWidth() const {
  return true;
}

int DifferencePlot::heightForWidth(int width) const {
  const int rows = static_cast<int>(std::max<std::size_t>(1, rows_.size()));
  return titleHeight(width) + 46 + 44 * rows;
}

void DifferencePlot::paintEvent(QPaintEvent*) {
  QPainter p(this);
  paintTo(p, size());
}

void DifferencePlot::paintTo(QPainter& p, const QSize& size) const {
  const int w = size.width();
  p.setRenderHint(QPainter::Antialiasing);
  p.fillRect(QRect(QPoint(), size), Qt::white);
  const int top = titleHeight(w);
  // The label column as wide as the longest label, up to half the width.
  int labels = 60;
  for (const DifferenceRow& r : rows_)
    labels = std::max(labels, fontMetrics().horizontalAdvance(r.label));
  const int left = std::min(labels + 16, w / 2), right = 30, rowH = 44;
  const QRect plot(left, top, w - left - right, rowH * int(std::max<size_t>(1, rows_.size())));
  // Symmetric range around zero covering every interval and the margin.
  // At least 50 units of the metric's last written digit (accuracy: ±0.5 points).
  double extent = std::max(margin_ * 1.3, 50.0 * std::pow(10.0, -words_.decimals));
  for (const DifferenceRow& r : rows_)
    for (double v : {r.diff, r.ciLow, r.ciHigh, r.tostLow, r.tostHigh})
      if (std::isfinite(v)) extent = std::max(extent, std::abs(v) * 1.15);
  // An open end (a one-sided interval) runs to the plot's edge.
  const auto xOf = [&](double v) {
    return plot.left() + (std::clamp(v, -extent, extent) + extent) / (2 * extent) * plot.width();
  };

  p.setPen(QColor(0x57, 0x60, 0x6a));
  p.drawText(QRect(4, 4, w - 8, top - 6), Qt::AlignHCenter | Qt::TextWordWrap, title());
  if (margin_ > 0) {
    const QRectF zone(QPointF(xOf(-margin_), plot.top()), QPointF(xOf(margin_), plot.bottom()));
    p.fillRect(zone, QColor(0x2c, 0xa0, 0x2c, 36));
  }
  // Axis with nice ticks, about one label per 70 pixels.
  const NiceTicks ticks = niceTicks(-extent, extent, std::max(2, plot.width() / 70));
  const int count = static_cast<int>(std::floor((extent - ticks.first) / ticks.step + 1e-9));
  for (int k = 0; k <= count; ++k) {
    const double t = ticks.first + k * ticks.step;
    const double v = std::abs(t) < ticks.step * 1e-6 ? 0.0 : t;  // 0, not -2.8e-17
    const double x = xOf(v);
    p.setPen(QColor(0xe5, 0xe7, 0xea));
    p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
    p.setPen(QColor(0x57, 0x60, 0x6a));
    p.drawText(QRectF(x - 40, plot.bottom() + 4, 80, 16), Qt::AlignHCenter,
               QString::number(v, 'f', ticks.decimals));
  }
  p.setPen(QPen(QColor(0x24, 0x29, 0x2f), 1.2, Qt::DashLine));
  p.drawLine(QPointF(xOf(0), plot.top()), QPointF(xOf(0), plot.bottom()));

  for (std::size_t i = 0; i < rows_.size(); ++i) {
    const DifferenceRow& r = rows_[i];
    const double y = plot.top() + rowH * (i + 0.5);
    p.setPen(Qt::black);
    p.drawText(QRectF(0, y - 10, left - 12, 20), Qt::AlignRight | Qt::AlignVCenter, r.label);
    if (!std::isfinite(r.diff)) continue;
    const QColor color = r.significant  ? QColor(0xcf, 0x22, 0x2e)
                         : r.equivalent ? QColor(0x1a, 0x7f, 0x37)
                                        : QColor(0x09, 0x69, 0xda);
    p.setPen(QPen(color, 2));
    p.drawLine(QPointF(xOf(r.ciLow), y), QPointF(xOf(r.ciHigh), y));
    for (double end : {r.ciLow, r.ciHigh})
      if (std::isfinite(end)) p.drawLine(QPointF(xOf(end), y - 6), QPointF(xOf(end), y + 6));
    if (!r.outcome.isEmpty()) {  // the row's p and verdict, above its interval
      p.setPen(QColor(0x57, 0x60, 0x6a));
      QFont small = p.font();
      small.setPointSizeF(small.pointSizeF() * 0.9);
      p.save();
      p.setFont(small);
      p.drawText(QRectF(plot.left(), y - rowH / 2.0, plot.width(), rowH / 2.0 - 7),
                 Qt::AlignHCenter | Qt::AlignBottom, r.outcome);
      p.restore();
    }
    if (std::isfinite(r.tostLow)) {
      p.setPen(QPen(color, 6, Qt::SolidLine, Qt::FlatCap));
      p.drawLine(QPointF(xOf(r.tostLow), y), QPointF(xOf(r.tostHigh), y));
    }
    p.setPen(QPen(Qt::white, 1.5));
    p.setBrush(color);
    p.drawEllipse(QPointF(xOf(r.diff), y), 6, 6);
  }
}

}  // namespace paritylab::ui
