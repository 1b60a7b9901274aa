#pragma once
// The Playground's regression example: editable X, y, lr, epochs and initial weights; the final
// coefficients of every backend with their distances to fp64 gradient descent and to the fp64
// least-squares solution; loss and coefficient trajectories over epochs.

#include <QWidget>
#include <vector>

#include "core/playground/regression.h"
#include "ui/charts/chart_export.h"
#include "ui/panels/playground/playground_charts.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QSpinBox;
class QSplitter;
class QTableWidget;

namespace paritylab::ui {

class ChartView;

class PlaygroundRegressionView : public QWidget {
  Q_OBJECT

 public:
  explicit PlaygroundRegressionView(QWidget* parent = nullptr);

  // Reads the fields and runs every preset. False (and the message shown) on bad input, naming
  // the field; the previous results stay.
  bool run();
  void resetToExample();

  const playground::RegressionExperiment& experiment() const { return experiment_; }
  QTableWidget* table() const { return table_; }
  QLabel* note() const { return note_; }
  QLabel* error() const { return error_; }
  QPlainTextEdit* xEdit() const { return xEdit_; }
  QLineEdit* yEdit() const { return yEdit_; }
  QLineEdit* lrEdit() const { return lrEdit_; }
  QSpinBox* epochsBox() const { return epochsBox_; }
  QLineEdit* weightsEdit() const { return weightsEdit_; }
  QLineEdit* biasEdit() const { return biasEdit_; }

  // The table and both charts (PNG/SVG) and the trajectories as CSV (same as
  // `paritylab-cli playground regression --csv`).
  std::vector<Exportable> exportables() const;
  QString csv() const;

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  // Side by side when each chart gets kChartWidth pixels, else one above the other (a narrow
  // window): a chart never shrinks to a sliver.
  void arrangeCharts();
  void fillTable();
  void drawCharts();

  QPlainTextEdit* xEdit_;
  QLineEdit* yEdit_;
  QLineEdit* lrEdit_;
  QSpinBox* epochsBox_;
  QLineEdit* weightsEdit_;
  QLineEdit* biasEdit_;
  QLabel* error_;
  QLabel* note_;
  QTableWidget* table_;
  QComboBox* coefficientBox_;
  PlaygroundChart loss_, coefficients_;
  ChartView* lossView_;
  ChartView* coefficientView_;
  QSplitter* charts_;
  playground::RegressionExperiment experiment_;
};

}  // namespace paritylab::ui
