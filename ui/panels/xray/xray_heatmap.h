#pragma once
// The X-ray heatmaps: under a title naming the operand, seed and statistic, one block
// per backend side by side, sites (rows, model order) x sampled steps (columns), coloured by one
// statistic on ONE scale shared by every block, with the scale's legend on the right (one swatch
// and its value when every cell holds the same value). A block's title carries its backend's
// colour, which names it where the window is too narrow for its name. Clicking a cell emits
// cellClicked.

#include <QFontMetrics>
#include <QString>
#include <QWidget>
#include <vector>

#include "ui/charts/chart_export.h"
#include "ui/panels/xray/xray_grid.h"

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
  // What the heatmaps show, e.g. "X-ray of the grad operand, seed 1: underflow %".
  QString title() const;
  // The colour scale's text: its low and high ends, or "all <value>" alone when min == max.
  QStringList scaleLabels() const;
  // Where the colour bar is drawn at `size`.
  QRectF colourBarRect(const QSize& size) const;
  // Where the colour scale's title and block `block`'s backend name are drawn at `size`.
  QRectF scaleTitleRect(const QSize& size) const;
  QRectF blockTitleRect(const QSize& size, int block) const;
  // The cell rectangle of (block, site, step) at the widget's current size.
  QRectF cellRect(int block, int site, int step) const {
    return cellRectAt(size(), block, site, step);
  }
  void paintTo(QPainter& p, const QSize& size) const;  // for the screen and the exports
  QSize minimumSizeHint() const override;

 signals:
  void cellClicked(int block, int site, int step);

 protected:
  void paintEvent(QPaintEvent*) override;
  void mousePressEvent(QMouseEvent* event) override;

 private:
  QRectF cellRectAt(const QSize& size, int block, int site, int step) const;
  QRectF blockRect(const QSize& size, int block) const;
  QColor colourOf(double value) const;
  // Heights and widths of the title rows, the step axis and the legend, from the font.
  int headerHeight() const;
  double blockWidth(const QSize& size) const;
  int blockTitleHeight(const QSize& size) const;
  int stepAxisHeight() const;
  int legendWidth() const;

  const XrayGrid* grid_ = nullptr;
  XrayStatistic statistic_ = XrayStatistic::Underflow;
  double low_ = 0, high_ = 0;
};

// Every how many sites a name is drawn beside rows `rowHeight` pixels tall, in text `textHeight`
// pixels high, so that no two names overlap: 1 when every row holds its own.
int siteLabelStride(double rowHeight, double textHeight);

// What the step axis under a block `width` pixels wide says: its first and last sampled steps at
// its two ends when both fit with a space between them, else "first-last" centred when that fits,
// else nothing (two numbers drawn over each other read as a third). Then the axis title, as long
// as the width holds: "training step (N samples)", "step (N samples)", "step", or nothing.
struct StepAxisText {
  QString first, last, range, title;
};
StepAxisText stepAxisText(int firstStep, int lastStep, int samples, double width,
                          const QFontMetrics& metrics);

// The heatmaps as they are shown (title naming statistic, operand and seed), e.g.
// "xray-underflow", at 1200x600.
Exportable exportableXray(const XrayHeatmap* heatmap);

}  // namespace paritylab::ui
