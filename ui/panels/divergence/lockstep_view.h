#pragma once
// The Divergence tab's Lockstep view: when and where the backend and the reference of a study's
// lockstep comparison (the spec's "lockstep"; core/nn/lockstep.h) part. Chooses the mode
// (re-synchronised: the error one step adds; free-running: the error accumulated) and the
// quantity (outputs, gradients passed back, weight gradients, weights); shows, one at a time, the
// layer x step heatmap (LockstepHeatmap) or one line per layer against the step on a log axis with
// the tolerance and its first crossing marked, and beneath the comparison in plain words. Without a
// stored comparison it says how to make one. A pure view of the study::LockstepRecords it is given.

#include <QWidget>
#include <vector>

#include "core/study/store/results_store.h"
#include "ui/charts/chart_export.h"

class QChart;
class QComboBox;
class QLabel;
class QLogValueAxis;
class QValueAxis;
class QStackedWidget;

namespace paritylab::ui {

class ChartView;
class LockstepHeatmap;

class LockstepView : public QWidget {
  Q_OBJECT

 public:
  explicit LockstepView(QWidget* parent = nullptr);
  // `measuredRuns`: the study's runs were imported from hardware (the empty view says why none).
  void setRecords(const std::vector<study::LockstepRecord>& records, bool measuredRuns = false);
  bool hasRecords() const { return !records_.empty(); }

  QComboBox* modeBox() const { return mode_; }
  QComboBox* quantityBox() const { return quantity_; }
  QComboBox* chartChooser() const { return chooser_; }  // the heatmap or the lines
  LockstepHeatmap* heatmap() const { return heatmap_; }
  ChartView* linesView() const { return linesView_; }
  QChart* linesChart() const { return lines_; }
  QString words() const;      // the comparison shown, in plain words ("" when none)
  QString emptyText() const;  // what the view says without a comparison
  // "divergence-lockstep" (the heatmap) and "divergence-lockstep-lines", as shown.
  std::vector<Exportable> exportables() const;
  QString currentExportName() const;  // the one of the chart shown

 private:
  const study::LockstepRecord* shown() const;
  nn::LockstepQuantity shownQuantity() const;
  void redraw();
  void drawLines(const study::LockstepRecord& record, nn::LockstepQuantity quantity);

  std::vector<study::LockstepRecord> records_;
  QComboBox* mode_;
  QComboBox* quantity_;
  QComboBox* chooser_;
  QStackedWidget* stack_;   // the message or the page
  QStackedWidget* charts_;  // the heatmap or the lines
  QLabel* empty_;
  LockstepHeatmap* heatmap_;
  QChart* lines_;
  QValueAxis* x_;
  QLogValueAxis* y_;
  ChartView* linesView_;
  QLabel* words_;
};

}  // namespace paritylab::ui
