#pragma once
// The Statistics tab: backends A and B (or every backend against a reference), the test, alpha and
// the equivalence margin; a table of means, difference with CI, t, df, p, Hedges' g, TOST p and
// power, and core/stats' verdict in plain words. Recomputed whenever runs finish.

#include <QWidget>
#include <optional>
#include <vector>

#include "core/stats/mann_whitney.h"
#include "core/stats/verdict.h"
#include "core/study/study_report.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QTableWidget;

namespace paritylab::ui {

class DifferencePlot;
class RunData;

enum class StatTest { Welch, Student, MannWhitney };

struct StatRow {                 // one comparison as shown
  stats::Comparison comparison;  // t-test, TOST, runs needed and verdict
  std::optional<stats::MannWhitneyResult> mannWhitney;
  double power = 0.0;       // t-test power at min(n_a, n_b) to detect the observed difference
  double pAdjusted = -1.0;  // Holm-adjusted p in "all against reference" mode, else < 0
};

class StatisticsPanel : public QWidget {
  Q_OBJECT

 public:
  explicit StatisticsPanel(RunData* data, QWidget* parent = nullptr);

  void setSelection(const QString& a, const QString& b);
  void setTest(StatTest test);
  void setAlpha(double alpha);
  void setMarginPoints(double points);  // 0 = no equivalence test
  void setAllAgainstReference(bool on);
  const std::vector<StatRow>& rows() const { return rows_; }
  QTableWidget* table() const { return table_; }
  DifferencePlot* plot() const { return plot_; }
  QString verdictText() const;
  // The tab's current choices as the CSV report takes them (issue 10.6: the report agrees).
  study::ReportOptions reportOptions() const;

 public slots:
  void recompute();

 private:
  void refillBackends();
  void fillTable();

  RunData* data_;
  QComboBox* aBox_;
  QComboBox* bBox_;
  QCheckBox* allBox_;
  QComboBox* testBox_;
  QComboBox* tailBox_;
  QDoubleSpinBox* alphaBox_;
  QDoubleSpinBox* marginBox_;
  QTableWidget* table_;
  QLabel* verdict_;
  DifferencePlot* plot_;
  std::vector<StatRow> rows_;
};

}  // namespace paritylab::ui
