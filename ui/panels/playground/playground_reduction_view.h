#pragma once
// The Playground's reduction experiment: error of a length-K dot product against its exact value
// for each backend's operand rounding, summation order and accumulation format, on a log-log plot
// with the sqrt(K) u and K u reference slopes; median over trials with a min-max band.

#include <QWidget>
#include <vector>

#include "core/playground/reduction.h"
#include "ui/charts/chart_export.h"
#include "ui/panels/playground/playground_charts.h"

class QComboBox;
class QLabel;
class QListWidget;
class QSpinBox;
class QSplitter;

namespace paritylab::ui {

class ChartView;

class PlaygroundReductionView : public QWidget {
  Q_OBJECT

 public:
  explicit PlaygroundReductionView(QWidget* parent = nullptr);

  // Runs the experiment with the current settings (about a second at the defaults) and redraws.
  void run();
  bool hasRun() const { return hasRun_; }
  const playground::ReductionExperiment& experiment() const { return experiment_; }
  QListWidget* curveList() const { return curves_; }
  QLabel* summary() const { return summary_; }

  std::vector<Exportable> exportables() const;
  QString csv() const;  // same as `paritylab-cli playground reduction --csv`

 protected:
  void showEvent(QShowEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  void draw();
  // A word-wrapped label inside a scroll area does not get its height for its width: reserve it.
  void fitSummary();
  // The view's minimum height: what its parts need at the current width.
  void fitHeight();
  // Wide: the curve list beside the chart, widened to its longest entry (no horizontal
  // scrolling), and the chart's legend on screen. Narrow: the list above the chart, which keeps the
  // whole width, without its legend on screen (the list names the curves in their colours).
  void arrange();
  playground::ReductionConfig config() const;

  QComboBox* distributionBox_;
  QSpinBox* seedBox_;
  QComboBox* maxLengthBox_;
  QSpinBox* trialsBox_;
  QComboBox* metricBox_;
  QListWidget* curves_;
  QSplitter* split_;
  QLabel* summary_;
  PlaygroundChart chart_;
  ChartView* view_;
  playground::ReductionExperiment experiment_;
  bool hasRun_ = false;
};

}  // namespace paritylab::ui
