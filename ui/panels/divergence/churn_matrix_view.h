#pragma once
// The churn matrix of the Divergence tab: backend x backend, each cell the
// percentage of test predictions two runs disagree on, written in the cell with its bootstrap CI.
// Off the diagonal: the two backends at the same seed (precision churn); on the diagonal: two
// seeds of one backend (seed churn, the noise floor), labelled as such. Undefined cells are grey
// and say why. The A-vs-B cell is outlined. A pure view of a study::DivergenceReport.

#include <QWidget>

#include "core/study/analysis/divergence_analysis.h"
#include "ui/charts/chart_export.h"

namespace paritylab::ui {

class ChurnMatrixView : public QWidget {
  Q_OBJECT

 public:
  explicit ChurnMatrixView(QWidget* parent = nullptr);
  void setReport(const study::DivergenceReport& report);

  int backendCount() const { return static_cast<int>(backends_.size()); }
  // The cell of (row, column) backends' indices; nullptr outside the matrix.
  const study::ChurnCell* cell(int row, int column) const;
  // The lines written in that cell (churnCellLines), and its fill colour.
  QStringList cellText(int row, int column) const;
  QColor cellColour(int row, int column) const;
  // The cell rectangle at `size` (for tests and tooltips).
  QRectF cellRect(const QSize& size, int row, int column) const;
  QString emptyReason() const { return empty_; }  // shown instead of the matrix when not empty
  QString title() const;

  void paintTo(QPainter& p, const QSize& size) const;  // for the screen and the exports
  QSize sizeHint() const override { return {700, 460}; }
  QSize minimumSizeHint() const override { return {320, 220}; }

 protected:
  void paintEvent(QPaintEvent*) override;
  bool event(QEvent* event) override;  // tooltips: the cell's pairs and CI

 private:
  int titleHeight(int width) const;
  QRectF gridRect(const QSize& size) const;

  std::vector<std::string> backends_;
  std::vector<study::ChurnCell> cells_;
  QString predictions_;  // "test predictions", "next-token predictions"
  std::string a_, b_;
  QString empty_;
  double highest_ = 0.0;  // the largest defined churn: the colour scale's top
};

// The matrix as shown, "divergence-churn", at 900 x 600.
Exportable exportableChurnMatrix(const ChurnMatrixView* view);

}  // namespace paritylab::ui
