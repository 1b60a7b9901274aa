#pragma once
// The X-ray heatmaps (issue 14.4): one block per backend side by side, sites (rows, model order)
// x sampled steps (columns), coloured by one statistic on ONE scale shared by every block, with
// the scale's legend on the right. Clicking a cell emits cellClicked.

#include <QWidget>
#include <vector>

#include "ui/chart_export.h"
#include "ui/xray_grid.h"

namespace paritylab::ui {

class XrayHeatmap : public QWidget {
  Q_OBJECT

 public:
  explicit XrayHeatmap(QWidget* parent = nullptr);
  // `grid` must outlive the widget's use of it (the panel owns it).
  void setGrid(const XrayGrid* grid, XrayStatistic statistic);
  XrayStatistic statistic() const { return statistic_; }
  // The shared colour scale's finite range (min == max when all cells are equal; NaN when none).
  std::pair<double, double> scale() const { return {low_, high_}; }
  // The cell rectangle of (block, site, step) at the widget's current size.
  QRectF cellRect(int block, int site, int step) const {
    return cellRectAt(size(), block, site, step);
  }
  void paintTo(QPainter& p, const QSize& size) const;  // for the screen and the exports
  QSize minimumSizeHint() const override { return {300, 180}; }

 signals:
  void cellClicked(int block, int site, int step);

 protected:
  void paintEvent(QPaintEvent*) override;
  void mousePressEvent(QMouseEvent* event) override;

 private:
  QRectF cellRectAt(const QSize& size, int block, int site, int step) const;
  QRectF blockRect(const QSize& size, int block) const;
  QColor colourOf(double value) const;

  const XrayGrid* grid_ = nullptr;
  XrayStatistic statistic_ = XrayStatistic::Underflow;
  double low_ = 0, high_ = 0;
};

// The heatmaps as they are shown (statistic, operand), e.g. "xray-underflow", at 1200x600.
Exportable exportableXray(const XrayHeatmap* heatmap);

}  // namespace paritylab::ui
