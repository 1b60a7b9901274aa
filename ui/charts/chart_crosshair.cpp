#include "ui/charts/chart_crosshair.h"

#include <QChart>
#include <QEvent>
#include <QGraphicsLineItem>
#include <QGraphicsRectItem>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QMouseEvent>
#include <QPen>
#include <QXYSeries>
#include <algorithm>
#include <cmath>
#include <limits>

#include "ui/charts/chart_view.h"

namespace paritylab::ui {

ChartCrosshair::ChartCrosshair(ChartView* view)
    : QObject(view),
      view_(view),
      line_(new QGraphicsLineItem(view->chart())),
      box_(new QGraphicsRectItem(view->chart())),
      label_(new QGraphicsTextItem(box_)) {
  line_->setPen(QPen(QColor(0x57, 0x60, 0x6a, 170), 1.0, Qt::DashLine));
  line_->setZValue(1000);
  box_->setBrush(QColor(255, 255, 255, 235));
  box_->setPen(QPen(QColor(0xd0, 0xd7, 0xde)));
  box_->setZValue(1001);
  line_->hide();
  box_->hide();
  xText_ = [](double x) { return QString::number(x, 'g', 6); };
  rowText_ = [](const CrosshairRow& r, double) {
    return QStringLiteral("%1: %2").arg(r.name).arg(r.y, 0, 'g', 5);
  };
  before_ = [](const CrosshairRow& a, const CrosshairRow& b) { return a.y > b.y; };
  view->viewport()->installEventFilter(this);
  view->viewport()->setMouseTracking(true);
}

std::vector<const QXYSeries*> ChartCrosshair::participants() const {
  std::vector<const QXYSeries*> out;
  for (QAbstractSeries* s : view_->chart()->series()) {
    const auto* xy = qobject_cast<const QXYSeries*>(s);
    if (xy && xy->isVisible() && !xy->name().isEmpty() && xy->count() > 0) out.push_back(xy);
  }
  return out;
}

double ChartCrosshair::snapX(double x) const {
  double best = std::numeric_limits<double>::quiet_NaN();
  for (const QXYSeries* s : participants())
    for (const QPointF& p : s->points())
      if (std::isnan(best) || std::abs(p.x() - x) < std::abs(best - x)) best = p.x();
  return best;
}

std::vector<CrosshairRow> ChartCrosshair::rowsAt(double x) const {
  std::vector<CrosshairRow> rows;
  if (std::isnan(x)) return rows;
  for (const QXYSeries* s : participants()) {
    const QList<QPointF> points = s->points();
    // The point nearest x, accepted when closer than half the series' local spacing.
    qsizetype best = 0;
    for (qsizetype i = 1; i < points.size(); ++i)
      if (std::abs(points[i].x() - x) < std::abs(points[best].x() - x)) best = i;
    const double dx = std::abs(points[best].x() - x);
    double spacing = 0.0;
    if (best > 0) spacing = std::max(spacing, points[best].x() - points[best - 1].x());
    if (best + 1 < points.size())
      spacing = std::max(spacing, points[best + 1].x() - points[best].x());
    if (dx > 1e-9 * std::max(1.0, std::abs(x)) && dx > spacing / 2) continue;
    CrosshairRow row;
    row.series = s;
    row.name = s->name();
    row.color = s->color();
    row.y = points[best].y();
    rows.push_back(row);
  }
  std::stable_sort(rows.begin(), rows.end(), before_);
  return rows;
}

bool ChartCrosshair::isShown() const {
  return line_->isVisible();
}

QString ChartCrosshair::text() const {
  return isShown() ? label_->toPlainText() : QString();
}

void ChartCrosshair::hide() {
  line_->hide();
  box_->hide();
}

void ChartCrosshair::showAt(const QPointF& viewPos) {
  QChart* chart = view_->chart();
  const QPointF chartPos = chart->mapFromScene(view_->mapToScene(viewPos.toPoint()));
  const QRectF area = chart->plotArea();
  if (!area.contains(chartPos)) {
    hide();
    return;
  }
  const double x = snapX(chart->mapToValue(chartPos).x());
  const std::vector<CrosshairRow> rows = rowsAt(x);
  if (rows.empty()) {
    hide();
    return;
  }
  const double px = chart->mapToPosition(QPointF(x, 0), const_cast<QXYSeries*>(rows[0].series)).x();
  if (px < area.left() - 0.5 || px > area.right() + 0.5) {
    hide();
    return;
  }
  line_->setLine(px, area.top(), px, area.bottom());
  QString html = QStringLiteral("<b>%1</b>").arg(xText_(x).toHtmlEscaped());
  const int shown = std::min<int>(static_cast<int>(rows.size()), maxRows_);
  for (int i = 0; i < shown; ++i) {
    const CrosshairRow& r = rows[static_cast<std::size_t>(i)];
    html += QStringLiteral("<br><span style='color:%1'>■</span> %2")
                .arg(r.color.name(), rowText_(r, x).toHtmlEscaped());
  }
  if (static_cast<int>(rows.size()) > shown)
    html += tr("<br>… %1 more").arg(static_cast<int>(rows.size()) - shown);
  label_->setHtml(html);
  const QRectF text = label_->boundingRect();
  QPointF at(px + 12, chartPos.y() - text.height() / 2);
  if (at.x() + text.width() > area.right()) at.setX(px - 12 - text.width());
  at.setY(std::clamp(at.y(), area.top(), std::max(area.top(), area.bottom() - text.height())));
  box_->setRect(0, 0, text.width(), text.height());
  box_->setPos(at);
  line_->show();
  box_->show();
}

bool ChartCrosshair::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() == QEvent::MouseMove)
    showAt(static_cast<QMouseEvent*>(event)->position());
  else if (event->type() == QEvent::Leave)
    hide();
  return QObject::eventFilter(watched, event);
}

}  // namespace paritylab::ui
