#pragma once
// A QChartView with the interactions of an analysis tool: rubber-band zoom (left drag), wheel zoom
// around the cursor, pan (middle drag, or Shift + left drag), reset (double click or Home), and a
// signal when the user changed the view so owners stop auto-ranging.

#include <QChartView>

namespace paritylab::ui {

class ChartView : public QChartView {
  Q_OBJECT

 public:
  explicit ChartView(QChart* chart, QWidget* parent = nullptr);
  bool userZoomed() const { return userZoomed_; }
  // The legend below the plot while its entries fit there whole, else at the right (fitLegend):
  // at every resize, and at refitLegend() once the series changed.
  void setLegendFitted(bool fitted);
  bool legendFitted() const { return legendFitted_; }
  void refitLegend();

 public slots:
  void resetZoom();

 signals:
  void userZoomChanged(bool zoomed);

 protected:
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  void markZoomed();

  bool panning_ = false;
  QPointF lastPan_;
  QPointF pressPos_;
  bool userZoomed_ = false;
  bool legendFitted_ = false;
};

}  // namespace paritylab::ui
