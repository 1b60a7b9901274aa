#pragma once
// Per-class accuracy differences of the Divergence tab: one row per class, a
// bar from 0 to the mean difference A - B in percentage points, whiskers at its Welch CI, and
// behind it the seed-noise band: +- the reference B's run-to-run SD of that class's accuracy.
// Classes whose difference is beyond the seed noise (Holm-adjusted Welch p < alpha) are drawn
// red and marked; the Holm p of every class is written on the right. A pure view of a
// study::DivergenceReport; when it has no classes, it says why.

#include <QWidget>
#include <vector>

#include "core/study/analysis/divergence_analysis.h"
#include "ui/charts/chart_export.h"

namespace paritylab::ui {

// One class as drawn, in percentage points.
struct ClassBar {
  QString label;                                 // class name, or band ("rare tokens")
  double diff = 0.0, ciLow = 0.0, ciHigh = 0.0;  // A - B and its CI (NaN when undefined)
  double noise = 0.0;                            // B's run-to-run SD of the class (the band)
  double pHolm = 0.0;
  bool beyondNoise = false;
};
std::vector<ClassBar> classBars(const study::DivergenceReport& report);

class ClassDifferenceView : public QWidget {
  Q_OBJECT

 public:
  explicit ClassDifferenceView(QWidget* parent = nullptr);
  // alpha: the level the report was computed at (CI and Holm).
  void setReport(const study::DivergenceReport& report, double alpha);

  const std::vector<ClassBar>& bars() const { return bars_; }
  QString emptyReason() const { return empty_; }
  QString title() const;
  // The x extent (points) of the symmetric axis: covers every CI and band.
  double extent() const;
  // The x position of `points` and the centre y of row `row` at `size` (for tests).
  double xOf(const QSize& size, double points) const;
  double rowCentre(const QSize& size, int row) const;

  void paintTo(QPainter& p, const QSize& size) const;
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override { return {320, 200}; }
  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override;

 protected:
  void paintEvent(QPaintEvent*) override;

 private:
  int titleHeight(int width) const;
  QRectF plotRect(const QSize& size) const;

  std::vector<ClassBar> bars_;
  std::string a_, b_;
  double alpha_ = 0.05;
  bool bands_ = false;  // rows are a language model's token-frequency bands
  QString members_;     // the bands' symbols, one line each ("" for classes)
  QString empty_;
};

// The chart as shown, "divergence-classes", 1000 pixels wide.
Exportable exportableClassDifferences(const ClassDifferenceView* view);

}  // namespace paritylab::ui
