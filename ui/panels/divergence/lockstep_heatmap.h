#pragma once
// The Lockstep view's heatmap: one row per layer (forward order, top to bottom), one column per
// compared step, each cell the relative RMS difference of one quantity (activation, its gradient,
// the weight gradient or the weight) of the backend from the reference, coloured on a log scale
// over the decades the differences take (at least two; white the lowest); grey where the layer has
// no such tensor, black where A is not finite. The tolerance's first crossing is outlined when it
// lies in the quantity shown. A pure view of a study::LockstepRecord, painted for the screen and
// the exports alike.

#include <QWidget>

#include "core/study/store/results_store.h"
#include "ui/charts/chart_export.h"

namespace paritylab::ui {

// "outputs", "gradients passed back", "weight gradients", "weights".
QString lockstepQuantityWords(nn::LockstepQuantity quantity);

class LockstepHeatmap : public QWidget {
  Q_OBJECT

 public:
  explicit LockstepHeatmap(QWidget* parent = nullptr);
  // `record` null: nothing to show.
  void setRecord(const study::LockstepRecord* record, nn::LockstepQuantity quantity);

  // The fill of a relative difference (NaN: none; infinite: not finite).
  QColor colourOf(double difference) const;
  QString title() const;
  void paintTo(QPainter& p, const QSize& size) const;
  // What the cell under `at` (widget coordinates, as painted at the widget's size) holds: "fc2,
  // step 3: outputs 1.2% from the reference"; empty outside the cells. The tooltip shows it.
  QString cellText(const QPointF& at) const;
  // Row labels are drawn every this many rows (1, or more when rows are shorter than a line of
  // text, so that labels never overlap).
  static int labelEvery(double rowHeight, int lineHeight);
  QSize sizeHint() const override { return {700, 320}; }
  QSize minimumSizeHint() const override { return {320, 180}; }

 protected:
  void paintEvent(QPaintEvent*) override;
  bool event(QEvent* e) override;

 private:
  // Where the parts go at a size: the title, the cells, the legend beneath.
  struct Geometry {
    QRect titleBox;
    QString legend;
    int legendHeight = 0;
    int labelWidth = 0;
    QRectF grid;  // the cells
    double cellWidth = 0, cellHeight = 0;
  };
  Geometry geometry(const QSize& size) const;

  std::optional<study::LockstepRecord> record_;
  nn::LockstepQuantity quantity_ = nn::LockstepQuantity::Activation;
  int lowDecade_ = -8, highDecade_ = 0;  // the colour scale: 10^low (white) to 10^high
};

// The heatmap as shown, "divergence-lockstep", at 1100 x 500.
Exportable exportableLockstepHeatmap(const LockstepHeatmap* view);

}  // namespace paritylab::ui
