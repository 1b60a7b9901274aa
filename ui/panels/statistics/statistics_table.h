#pragma once
// The Statistics tab's table: one row per comparison, one precision per column: values,
// differences and CIs as the compared metric writes them (accuracy: percent and points to 2
// decimals; a loss: nats to 4), p values to 3 significant digits or
// "< 0.001"; with Mann-Whitney the difference and CI are the Hodges-Lehmann shift's, and
// "detectable ≥" / "runs needed" name the t-test they assume.

#include <QString>
#include <optional>
#include <vector>

#include "core/stats/hodges_lehmann.h"
#include "core/stats/mann_whitney.h"
#include "core/stats/verdict.h"
#include "ui/charts/number_format.h"

class QTableWidget;

namespace paritylab::ui {

struct StatRow {                 // one comparison as shown
  stats::Comparison comparison;  // t-test, TOST, detectable difference, runs needed and verdict
  std::optional<stats::MannWhitneyResult> mannWhitney;      // with the Mann-Whitney test
  std::optional<stats::HodgesLehmannResult> hodgesLehmann;  // its shift and CI (fractions)
  double pAdjusted = -1.0;  // Holm-adjusted p in "all against reference" mode, else < 0
};

struct StatTableContext {
  bool mannWhitney = false;  // the rank test is selected: HL shift and CI, "(Welch t)" notes
  QString tTestName;         // "Welch" or "Student": the t-test the planning figures assume
  double margin = 0;         // the equivalence margin in the shown unit (0 = none), for tooltips
  stats::MetricWords words;  // the metric compared: how its values and differences are written
};

// Sets the column count and headers of an empty table.
void setupStatisticsTable(QTableWidget* table);
// Replaces the table's rows (and headers, which depend on the test) with `rows`.
void fillStatisticsTable(QTableWidget* table, const std::vector<StatRow>& rows,
                         const StatTableContext& context);

}  // namespace paritylab::ui
