#pragma once
// The Statistics tab: the metric compared (the shown study's), backends A and B (or every backend
// against a reference), the test, alpha, the equivalence margin and the power; a table of means,
// difference with CI (Hodges-Lehmann shift and CI with Mann-Whitney), t, df, p, Hedges' g, TOST p,
// what the study could detect and the runs needed for the margin, and core/stats' verdict in plain
// words. Recomputed whenever runs finish. One precision per column: values, differences and CIs as
// the metric writes them (accuracy in percent and points to 2 decimals, a loss in nats to 4), p
// values to 3 significant digits or
// "< 0.001". A sequential study also shows its looks against its boundaries.

#include <QWidget>
#include <optional>
#include <utility>
#include <vector>

#include "core/stats/mann_whitney.h"
#include "core/stats/verdict.h"
#include "core/study/files/study_report.h"
#include "ui/charts/chart_export.h"
#include "ui/panels/statistics/statistics_table.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QTableWidget;

namespace paritylab::ui {

class DifferencePlot;
class RunData;
class SequentialChart;
class ShownStudy;

enum class StatTest { Welch, Student, MannWhitney };

class StatisticsPanel : public QWidget, public ChartExports {
  Q_OBJECT

 public:
  // Shows the runs of `study` (the window's one shown study).
  explicit StatisticsPanel(ShownStudy* study, QWidget* parent = nullptr);

  void setSelection(const QString& a, const QString& b);
  void setTest(StatTest test);
  void setAlpha(double alpha);
  // The equivalence margin in the metric's shown unit (accuracy points, nats, perplexity);
  // 0 = no equivalence test.
  void setMargin(double margin);
  void setPower(double power);  // for "detectable ≥" and "runs needed", in (alpha, 1)
  void setAllAgainstReference(bool on);
  const std::vector<StatRow>& rows() const { return rows_; }
  QTableWidget* table() const { return table_; }
  DifferencePlot* plot() const { return plot_; }
  // A sequential study's looks against its boundaries; hidden for any other study.
  SequentialChart* sequentialChart() const { return sequential_; }
  QString verdictText() const;
  // The tab's current choices as the CSV report takes them (so the report agrees with the tab).
  study::ReportOptions reportOptions() const;
  // The pair the tab compares, for the tabs that follow it: A, and B (the reference when every
  // backend is compared against it, or when A is B).
  std::pair<QString, QString> comparedPair() const;
  // The difference plot ("difference": each comparison's difference with its CI and the margin)
  // and, for a sequential study, its looks against the boundaries ("sequential").
  std::vector<Exportable> exportables() const override;
  std::optional<Exportable> currentExportable() const override;

 public slots:
  void recompute();

 private:
  void refillBackends();
  void fillTable();
  void showSequentialDesign();  // the shown study's, when it has one
  void followMetric();          // the shown study's metric changed: the margin's unit and default
  stats::MetricWords words() const;

  ShownStudy* shown_;
  RunData* data_;         // the shown study's runs
  QComboBox* metricBox_;  // a MetricChooser
  QComboBox* aBox_;
  QComboBox* bBox_;
  QCheckBox* allBox_;
  QComboBox* testBox_;
  QComboBox* tailBox_;
  QDoubleSpinBox* alphaBox_;
  QDoubleSpinBox* marginBox_;
  QDoubleSpinBox* powerBox_;
  QTableWidget* table_;
  QLabel* verdict_;
  DifferencePlot* plot_;
  SequentialChart* sequential_;
  std::vector<StatRow> rows_;
};

}  // namespace paritylab::ui
