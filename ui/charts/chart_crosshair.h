#pragma once
// Hover crosshair for a chart, as in TensorBoard and W&B: a vertical line at the data x nearest
// the mouse and a box listing every visible named line series' value at that x (instead of a
// tooltip that needs a 2-pixel hit on one line). Attach one to a ChartView; the owner may format
// the x and y values and order the rows.

#include <QColor>
#include <QObject>
#include <QString>
#include <functional>
#include <vector>

class QGraphicsLineItem;
class QGraphicsRectItem;
class QGraphicsTextItem;
class QXYSeries;

namespace paritylab::ui {

class ChartView;

struct CrosshairRow {
  const QXYSeries* series = nullptr;
  QString name;  // the series' name, or the owner's text
  QColor color;
  double y = 0.0;
};

class ChartCrosshair : public QObject {
  Q_OBJECT

 public:
  explicit ChartCrosshair(ChartView* view);

  // Text of the x value ("epoch 3") and of one row ("cpu-fp32 mean: 83.00% (N=2)").
  void setXText(std::function<QString(double x)> text) { xText_ = std::move(text); }
  void setRowText(std::function<QString(const CrosshairRow& row, double x)> text) {
    rowText_ = std::move(text);
  }
  // Rows are listed in this order (default: by value, highest first); at most `maxRows` rows.
  void setRowOrder(std::function<bool(const CrosshairRow&, const CrosshairRow&)> before) {
    before_ = std::move(before);
  }
  void setMaxRows(int rows) { maxRows_ = rows; }

  // The data x nearest `x` among the points of the participating series (NaN when none).
  double snapX(double x) const;
  // Every visible, named line series with a point at exactly `x` (series of other x grids, e.g.
  // step losses of runs logged at different steps: the point nearest x within half a spacing).
  std::vector<CrosshairRow> rowsAt(double x) const;

  // Shows the crosshair for the mouse at `viewPos` (view coordinates); hides it outside the plot.
  void showAt(const QPointF& viewPos);
  void hide();
  bool isShown() const;
  QString text() const;  // the box's plain text while shown

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  std::vector<const QXYSeries*> participants() const;

  ChartView* view_;
  QGraphicsLineItem* line_;
  QGraphicsRectItem* box_;
  QGraphicsTextItem* label_;
  std::function<QString(double)> xText_;
  std::function<QString(const CrosshairRow&, double)> rowText_;
  std::function<bool(const CrosshairRow&, const CrosshairRow&)> before_;
  int maxRows_ = 16;
};

}  // namespace paritylab::ui
