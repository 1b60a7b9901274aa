#include "ui/panels/playground/playground_charts.h"

#include <QAreaSeries>
#include <QChart>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QValueAxis>
#include <cmath>

namespace paritylab::ui {
namespace {

QAbstractAxis* makeAxis(const QString& title, bool log) {
  if (log) {
    auto* axis = new QLogValueAxis;
    axis->setBase(10);
    axis->setLabelFormat(QStringLiteral("%g"));
    axis->setMinorTickCount(-1);
    axis->setTitleText(title);
    return axis;
  }
  auto* axis = new QValueAxis;
  axis->setLabelFormat(QStringLiteral("%g"));
  axis->setTitleText(title);
  return axis;
}

bool isLog(const QAbstractAxis* axis) {
  return axis->type() == QAbstractAxis::AxisTypeLogValue;
}

bool drawable(const PlaygroundChart& c, const QPointF& p) {
  if (!std::isfinite(p.x()) || !std::isfinite(p.y())) return false;
  return (!isLog(c.x) || p.x() > 0) && (!isLog(c.y) || p.y() > 0);
}

void attach(const PlaygroundChart& c, QAbstractSeries* s, bool inLegend) {
  c.chart->addSeries(s);
  s->attachAxis(c.x);
  s->attachAxis(c.y);
  if (!inLegend)
    for (QLegendMarker* m : c.chart->legend()->markers(s)) m->setVisible(false);
}

}  // namespace

PlaygroundChart makePlaygroundChart(const QString& title, const QString& xTitle, bool logX,
                                    const QString& yTitle, bool logY, bool legend) {
  PlaygroundChart c;
  c.chart = new QChart;
  c.chart->setTitle(title);
  c.chart->legend()->setAlignment(Qt::AlignBottom);
  c.chart->legend()->setVisible(legend);
  c.chart->setMargins(QMargins(4, 4, 4, 4));
  c.x = makeAxis(xTitle, logX);
  c.y = makeAxis(yTitle, logY);
  c.chart->addAxis(c.x, Qt::AlignBottom);
  c.chart->addAxis(c.y, Qt::AlignLeft);
  return c;
}

void clearPlaygroundChart(const PlaygroundChart& c) {
  c.chart->removeAllSeries();
}

QLineSeries* addPlaygroundLine(const PlaygroundChart& c, const QString& name,
                               const std::vector<QPointF>& points, const QColor& color,
                               double width, Qt::PenStyle style, bool inLegend) {
  auto* line = new QLineSeries;
  line->setName(name);
  QPen pen(color, width);
  pen.setStyle(style);
  line->setPen(pen);
  QList<QPointF> kept;
  for (const QPointF& p : points)
    if (drawable(c, p)) kept.append(p);
  line->replace(kept);
  attach(c, line, inLegend);
  return line;
}

void addPlaygroundBand(const PlaygroundChart& c, const std::vector<QPointF>& lower,
                       const std::vector<QPointF>& upper, const QColor& color) {
  auto* lo = new QLineSeries;
  auto* hi = new QLineSeries;
  for (std::size_t i = 0; i < lower.size() && i < upper.size(); ++i)
    if (drawable(c, lower[i]) && drawable(c, upper[i])) {
      lo->append(lower[i]);
      hi->append(upper[i]);
    }
  auto* band = new QAreaSeries(hi, lo);
  QColor fill = color;
  fill.setAlpha(45);
  band->setBrush(fill);
  band->setPen(Qt::NoPen);
  attach(c, band, false);
}

void setPlaygroundRange(QAbstractAxis* axis, double min, double max) {
  if (!std::isfinite(min) || !std::isfinite(max)) return;
  if (isLog(axis)) {
    if (max <= 0) return;
    if (min <= 0) min = max * 1e-6;
    axis->setRange(std::pow(10.0, std::floor(std::log10(min))),
                   std::pow(10.0, std::ceil(std::log10(max))));
    return;
  }
  if (min == max) {
    min -= 0.5;
    max += 0.5;
  }
  auto* value = static_cast<QValueAxis*>(axis);
  value->setRange(min, max);
  value->applyNiceNumbers();  // round ticks that cover [min, max]
}

}  // namespace paritylab::ui
