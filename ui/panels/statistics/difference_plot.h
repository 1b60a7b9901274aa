#pragma once
// The estimated difference with its confidence interval, per comparison, against the equivalence
// zone (-margin, +margin): the picture of the chosen test and a TOST at once, each row with its
// p-value and verdict, so an exported image says what it shows. In the compared metric's unit
// (accuracy points, nats, perplexity), which the title names.

#include <QWidget>
#include <vector>

#include "core/stats/metric_words.h"

class QPainter;

namespace paritylab::ui {

struct DifferenceRow {
  QString label;                         // "xla − cuda"
  QString outcome;                       // "p = 0.38 · no significant difference"
  double diff = 0.0;                     // in the metric's shown unit (points, nats, ...)
  double ciLow = 0.0, ciHigh = 0.0;      // 1 - alpha CI; ±inf for a one-sided test
  double tostLow = 0.0, tostHigh = 0.0;  // 1 - 2 alpha CI; NaN when no TOST
  bool significant = false;
  bool equivalent = false;
};

class DifferencePlot : public QWidget {
  Q_OBJECT

 public:
  explicit DifferencePlot(QWidget* parent = nullptr);
  // `estimate` names what the dots and intervals are ("Welch t-test: difference of means");
  // `words` the metric whose differences they are, `margin` in its shown unit.
  void setRows(std::vector<DifferenceRow> rows, double margin, double alpha,
               const QString& estimate, const stats::MetricWords& words = {});
  QString title() const;
  const std::vector<DifferenceRow>& rows() const { return rows_; }
  QSize sizeHint() const override;
  bool hasHeightForWidth() const override;
  int heightForWidth(int width) const override;
  // Paints the plot at `size` (logical pixels), whatever the widget's own size: exports.
  void paintTo(QPainter& p, const QSize& size) const;

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  int titleHeight(int width) const;  // the title wrapped to `width`, with its margins

  std::vector<DifferenceRow> rows_;
  double margin_ = 0.0;
  double alpha_ = 0.05;
  QString estimate_;
  stats::MetricWords words_;
};

}  // namespace paritylab::ui
