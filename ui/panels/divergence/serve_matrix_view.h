#pragma once
// The train x serve matrix of the Divergence tab (core/study/analysis/train_serve.h): rows the
// backend a run was trained on, columns the backend it was served on, each cell the share of
// predictions that flip (with the mean KL beneath); the diagonal is batch invariance (one item at
// a time); a last column holds the row's seed floor. Darker: more flips, on one scale with the
// floor. A pure view of a study::TrainServeMatrix.

#include <QWidget>

#include "core/study/analysis/train_serve.h"
#include "ui/charts/chart_export.h"

namespace paritylab::ui {

class ServeMatrixView : public QWidget {
  Q_OBJECT

 public:
  explicit ServeMatrixView(QWidget* parent = nullptr);
  void setMatrix(const study::TrainServeMatrix& matrix);
  bool hasMatrix() const { return !matrix_.backends.empty(); }

  // The lines written in cell (row, column); column == backends: the seed floor.
  QStringList cellText(int row, int column) const;
  QString title() const;

  void paintTo(QPainter& p, const QSize& size) const;  // for the screen and the exports
  QSize sizeHint() const override { return {700, 460}; }
  // Tall enough for three lines a cell and the sentences beneath: a short window scrolls.
  QSize minimumSizeHint() const override { return {320, 480}; }

 protected:
  void paintEvent(QPaintEvent*) override;

 private:
  double valueAt(int row, int column) const;  // the fraction the cell's colour shows; NaN: none

  study::TrainServeMatrix matrix_;
  double highest_ = 0.0;  // the colour scale's top
};

// The matrix as shown, "divergence-serving", at 900 x 600.
Exportable exportableServeMatrix(const ServeMatrixView* view);

}  // namespace paritylab::ui
