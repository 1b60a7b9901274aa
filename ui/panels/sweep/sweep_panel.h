#pragma once
// The Sweep tab: a sweep's metric per cell (core/study/analysis/sweep_analysis.h) as one line per
// backend over a chosen factor (with more factors, one line per backend and combination of the
// others), each point the cell's mean with its confidence interval as a vertical bar, and the
// analysis' verdict above: the backend x sweep interaction, the backend difference per cell,
// the usable learning rates. A study without a sweep says how to make one. Rebuilt when runs
// finish and when the compared metric changes.

#include <QChart>
#include <QWidget>
#include <optional>
#include <vector>

#include "core/study/analysis/sweep_analysis.h"
#include "ui/charts/chart_export.h"

class QComboBox;
class QLabel;

namespace paritylab::ui {

class ChartHint;
class ChartView;
class RunData;
class ShownStudy;

class SweepPanel : public QWidget, public ChartExports {
  Q_OBJECT

 public:
  explicit SweepPanel(ShownStudy* study, QWidget* parent = nullptr);
  // The analysis shown; none when the study has no sweep.
  const std::optional<study::SweepAnalysis>& analysis() const { return analysis_; }
  QString verdictText() const;
  QChart* chart() const { return chart_; }
  ChartHint* hint() const { return hint_; }
  int lineCount() const { return lines_; }
  // Picks the factor along the x axis by its name ("lr", "batch_size").
  void setFactor(const QString& name);
  // The chart ("sweep"), when the study has a sweep.
  std::vector<Exportable> exportables() const override;
  std::optional<Exportable> currentExportable() const override;

 public slots:
  void rebuild();

 private:
  void draw();

  ShownStudy* shown_;
  RunData* data_;
  QComboBox* factorBox_;
  QLabel* verdict_;
  QChart* chart_;
  ChartView* view_;
  ChartHint* hint_;
  std::optional<study::SweepAnalysis> analysis_;
  int lines_ = 0;
};

}  // namespace paritylab::ui
