#pragma once
// The difference of means with its confidence interval, per comparison, against the equivalence
// zone (-margin, +margin): the picture of a t-test and a TOST at once. In accuracy points.

#include <QWidget>
#include <vector>

namespace paritylab::ui {

struct DifferenceRow {
  QString label;                         // "xla − cuda"
  double diff = 0.0;                     // points
  double ciLow = 0.0, ciHigh = 0.0;      // 1 - alpha CI (points)
  double tostLow = 0.0, tostHigh = 0.0;  // 1 - 2 alpha CI (points); NaN when no TOST
  bool significant = false;
  bool equivalent = false;
};

class DifferencePlot : public QWidget {
  Q_OBJECT

 public:
  explicit DifferencePlot(QWidget* parent = nullptr);
  void setRows(std::vector<DifferenceRow> rows, double marginPoints, double alpha);
  QSize sizeHint() const override;
  bool hasHeightForWidth() const override;
  int heightForWidth(int width) const override;

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  QString title() const;
  int titleHeight(int width) const;  // the title wrapped to `width`, with its margins

  std::vector<DifferenceRow> rows_;
  double margin_ = 0.0;
  double alpha_ = 0.05;
};

}  // namespace paritylab::ui
