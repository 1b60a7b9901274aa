#include "ui/charts/chart_view.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QResizeEvent>
#include <QWheelEvent>

#include "ui/charts/legend_fit.h"

namespace paritylab::ui {

ChartView::ChartView(QChart* chart, QWidget* parent) : QChartView(chart, parent) {
  setRenderHint(QPainter::Antialiasing);
  // Antialiased markers and dashes reach a pixel beyond the rectangles a minimal update repaints,
  // which left half-erased markers behind after live redraws: repaint the whole view instead.
  setViewportUpdateMode(QGraphicsView::FullViewportUpdate);
  setRubberBand(QChartView::RectangleRubberBand);
  setFocusPolicy(Qt::StrongFocus);
  setMouseTracking(true);
}

void ChartView::setLegendFitted(bool fitted) {
  legendFitted_ = fitted;
  refitLegend();
}

void ChartView::refitLegend() {
  if (legendFitted_) fitLegend(chart(), width());
}

void ChartView::resizeEvent(QResizeEvent* event) {
  if (legendFitted_) fitLegend(chart(), event->size().width());
  QChartView::resizeEvent(event);
}

void ChartView::markZoomed() {
  if (!userZoomed_) {
    userZoomed_ = true;
    emit userZoomChanged(true);
  }
}

void ChartView::resetZoom() {
  chart()->zoomReset();
  if (userZoomed_) {
    userZoomed_ = false;
    emit userZoomChanged(false);
  }
}

void ChartView::wheelEvent(QWheelEvent* event) {
  const double factor = event->angleDelta().y() > 0 ? 1.25 : 0.8;
  const QRectF area = chart()->plotArea();
  const QPointF pos = event->position();
  if (!area.contains(pos)) return;
  // Zoom around the cursor: scale the plot rectangle about the mouse position.
  QRectF r(area);
  r.setWidth(area.width() / factor);
  r.setHeight(area.height() / factor);
  r.moveLeft(pos.x() - (pos.x() - area.left()) / factor);
  r.moveTop(pos.y() - (pos.y() - area.top()) / factor);
  chart()->zoomIn(r);
  markZoomed();
  event->accept();
}

void ChartView::mousePressEvent(QMouseEvent* event) {
  if (event->button() == Qt::MiddleButton ||
      (event->button() == Qt::LeftButton && (event->modifiers() & Qt::ShiftModifier))) {
    panning_ = true;
    lastPan_ = event->position();
    setCursor(Qt::ClosedHandCursor);
    event->accept();
    return;
  }
  pressPos_ = event->position();
  QChartView::mousePressEvent(event);
}

void ChartView::mouseMoveEvent(QMouseEvent* event) {
  if (panning_) {
    const QPointF delta = event->position() - lastPan_;
    lastPan_ = event->position();
    chart()->scroll(-delta.x(), delta.y());
    markZoomed();
    event->accept();
    return;
  }
  QChartView::mouseMoveEvent(event);
}

void ChartView::mouseReleaseEvent(QMouseEvent* event) {
  if (panning_) {
    panning_ = false;
    unsetCursor();
    event->accept();
    return;
  }
  // A left drag zooms into the band, a right click zooms out; a plain left click changes nothing.
  const bool band =
      event->button() == Qt::RightButton ||
      (event->button() == Qt::LeftButton && (event->position() - pressPos_).manhattanLength() > 4);
  QChartView::mouseReleaseEvent(event);
  if (band) markZoomed();
}

void ChartView::mouseDoubleClickEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton) {
    resetZoom();
    event->accept();
    return;
  }
  QChartView::mouseDoubleClickEvent(event);
}

void ChartView::keyPressEvent(QKeyEvent* event) {
  switch (event->key()) {
    case Qt::Key_Home:
      resetZoom();
      return;
    case Qt::Key_Plus:
      chart()->zoomIn();
      markZoomed();
      return;
    case Qt::Key_Minus:
      chart()->zoomOut();
      markZoomed();
      return;
    case Qt::Key_Left:
      chart()->scroll(-20, 0);
      markZoomed();
      return;
    case Qt::Key_Right:
      chart()->scroll(20, 0);
      markZoomed();
      return;
    case Qt::Key_Up:
      chart()->scroll(0, 20);
      markZoomed();
      return;
    case Qt::Key_Down:
      chart()->scroll(0, -20);
      markZoomed();
      return;
    default:
      QChartView::keyPressEvent(event);
  }
}

}  // namespace paritylab::ui
