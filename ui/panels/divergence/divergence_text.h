#pragma once
// The Divergence tab's words, as pure functions of a study::DivergenceReport so
// they are tested without a database: the churn matrix's cell texts and why a cell is undefined,
// the headline with the McNemar and paired-test summary, and why a chart part is empty.
// Churn and accuracies arrive as fractions in [0, 1]; every text shows percent or points.

#include <QString>
#include <QStringList>

#include "core/study/analysis/divergence_analysis.h"

namespace paritylab::ui {

// A churn fraction in percent with 2 decimals, as `paritylab-cli compare` prints it ("1.93%",
// "12.10%"); "—" for NaN.
QString formatChurnCell(double fraction);

// The lines written in one churn matrix cell: the mean churn, its bootstrap CI
// ("1.50–2.30%"), both as formatChurnCell, and what it is ("seed churn" on the diagonal, "same
// seed" off it); an undefined cell (no pair) says why instead ("fewer than 2 seeds", "no shared
// seed").
QStringList churnCellLines(const study::ChurnCell& cell);
// Why a cell has no value (empty when it has one).
QString churnCellReason(const study::ChurnCell& cell);

// The tab's summary above the charts, each part plain text.
struct DivergenceSummary {
  // The chaos floor's sentence (precision, chaos and seed churn, how much exceeds the floor) when
  // the study has one, else the churn sentence of stats::compareChurn, or why there is none.
  QString headline;
  // With a chaos floor: the churn sentence, then per perturbation its churn with CI, McNemar and
  // paired accuracy (empty without one).
  QString chaos;
  QString mcnemar;    // "Do A and B make different errors? ..." (empty without seed-matched pairs)
  QString accuracy;   // paired t, Wilcoxon and Welch on the final accuracies (empty without runs)
  QStringList notes;  // the report's notes: why a part is empty or partial
};
// alpha: the level the report was computed at (McNemar/Holm and the CIs).
DivergenceSummary summarizeDivergence(const study::DivergenceReport& report, double alpha);
// The summary as rich text for a QLabel (headline in bold, notes as a list), escaped.
QString divergenceSummaryHtml(const DivergenceSummary& summary);

// Why a part of the report is empty, in words (empty when it has data): no predictions at all
// (imported runs), none for A or B, too few runs, or no weights kept.
QString churnMatrixEmptyReason(const study::DivergenceReport& report);
QString classDifferencesEmptyReason(const study::DivergenceReport& report);
QString weightDivergenceEmptyReason(const study::DivergenceReport& report);

}  // namespace paritylab::ui
