#include "ui/panels/divergence/divergence_text.h"

#include <QObject>
#include <algorithm>
#include <cmath>

#include "ui/charts/number_format.h"

namespace paritylab::ui {
namespace {

QString tr(const char* text) {
  return QObject::tr(text);
}

// "1.50–2.30%": a CI of churn fractions.
QString churnInterval(double low, double high) {
  if (!std::isfinite(low) || !std::isfinite(high)) return {};
  QString lo = formatChurnCell(low);
  lo.chop(1);  // one % sign for both ends
  return QStringLiteral("%1–%2").arg(lo, formatChurnCell(high));
}

// "= 0.327" or "< 0.001".
QString pEquals(double p) {
  const QString text = formatPValue(p);
  return text.startsWith(QLatin1Char('<')) ? text : QStringLiteral("= ") + text;
}

QString confidence(double alpha) {
  return QString::number(100.0 * (1.0 - alpha), 'g', 3);
}

bool hasBackend(const study::DivergenceReport& r, const std::string& name) {
  return std::find(r.backends.begin(), r.backends.end(), name) != r.backends.end();
}

// Why the report holds no predictions for A or B ("" when both have some).
QString missingPredictions(const study::DivergenceReport& r) {
  if (r.backends.empty() && r.completedRuns == 0)
    return tr(
        "No run has finished yet: the comparison example by example appears as runs "
        "complete.");
  if (r.backends.empty())
    return tr(
        "These runs carry no per-example predictions (runs imported from real hardware "
        "without their predictions files, or trained before ParityLab stored them): nothing to "
        "compare example by example.");
  QStringList missing;
  for (const std::string& name : {r.a, r.b})
    if (!name.empty() && !hasBackend(r, name) && !missing.contains(QString::fromStdString(name)))
      missing << QString::fromStdString(name);
  if (missing.isEmpty()) return {};
  return QObject::tr("No finished run of %1 carries per-example predictions.")
      .arg(missing.join(QObject::tr(" or ")));
}

QString mcnemarSummary(const study::DivergenceReport& r, double alpha) {
  if (r.mcnemar.empty()) return {};
  const auto rejected = std::count_if(r.mcnemar.begin(), r.mcnemar.end(),
                                      [](const stats::SeedPairMcNemar& m) { return m.rejected; });
  // The most telling pair: the smallest Holm-adjusted p.
  const auto best =
      std::min_element(r.mcnemar.begin(), r.mcnemar.end(),
                       [](const stats::SeedPairMcNemar& x, const stats::SeedPairMcNemar& y) {
                         return x.p_holm < y.p_holm;
                       });
  const QString pairs = r.mcnemar.size() == 1
                            ? tr("the 1 seed-matched pair")
                            : QObject::tr("the %1 seed-matched pairs").arg(r.mcnemar.size());
  const QString verdict =
      rejected == 0
          ? QObject::tr("no pair's errors differ significantly")
          : QObject::tr("the errors differ in %1 of %2 pairs").arg(rejected).arg(r.mcnemar.size());
  return QObject::tr(
             "Do %1 and %2 make different errors? McNemar's exact test on %3 (Holm, "
             "alpha %4): %5. Smallest Holm p %6 (seed %7: %8 %10 only %1 gets "
             "right, %9 only %2).")
      .arg(QString::fromStdString(r.a), QString::fromStdString(r.b), pairs,
           QString::number(alpha, 'g', 3), verdict, pEquals(best->p_holm))
      .arg(best->seed)
      .arg(best->test.only_first_correct)
      .arg(best->test.only_second_correct)
      .arg(QString::fromStdString(r.examples));
}

QString accuracySummary(const study::DivergenceReport& r, double alpha) {
  QStringList parts;
  const QString level = confidence(alpha);
  if (r.pairedT && r.pairedT->defined) {
    const auto& t = *r.pairedT;
    parts << QObject::tr(
                 "paired t over %1 seed-matched pairs: mean %2 points, %3% CI %4, "
                 "p %5")
                 .arg(t.n)
                 .arg(formatPoints(t.mean_diff), level, formatInterval(t.ci_low, t.ci_high),
                      pEquals(t.p_value));
  } else if (r.pairedT) {
    parts << QObject::tr("paired t undefined: all %1 pairs differ by the same %2 points")
                 .arg(r.pairedT->n)
                 .arg(formatPoints(r.pairedT->mean_diff));
  } else if (!r.pairedSeeds.empty()) {
    parts << QObject::tr("paired t needs 2 seed-matched pairs, there is %1")
                 .arg(r.pairedSeeds.size());
  }
  if (r.wilcoxon)
    parts << QObject::tr("Wilcoxon signed-rank p %1 (%2)")
                 .arg(pEquals(r.wilcoxon->p_value),
                      r.wilcoxon->exact ? tr("exact") : tr("normal approximation"));
  else if (!r.pairedSeeds.empty())
    parts << tr("Wilcoxon undefined: every pair has the same final accuracy");
  if (r.welch && r.welch->defined)
    parts << QObject::tr("unpaired Welch over %1 and %2 runs: %3 points, p %4")
                 .arg(r.welch->n_a)
                 .arg(r.welch->n_b)
                 .arg(formatPoints(r.welch->mean_diff), pEquals(r.welch->p_value));
  else if (r.welch)
    parts << tr("Welch undefined: both backends' final accuracies have no spread");
  if (parts.isEmpty()) return {};
  QString text =
      QObject::tr("Final accuracy, %1 − %2: %3.")
          .arg(QString::fromStdString(r.a), QString::fromStdString(r.b), parts.join("; "));
  if (r.pairedT || r.wilcoxon)
    text +=
        tr(" Pairing removes the seed's variance: the paired tests compare the two backends "
           "at each seed, Welch compares all runs as independent samples.");
  return text;
}

// "Chaos floor (cpu-fp32 perturbed at the level of rounding noise, same seeds): nudged-cpu-fp32,
// a one-ulp nudge of one initial weight, changes 1.60% [1.40–1.80%] of predictions; McNemar finds
// different errors at 0 of 5 seeds; final accuracy -0.02 points [-0.10, +0.06]. ..."
QString chaosSummary(const study::DivergenceReport& report, double alpha) {
  if (!report.chaos || report.chaos->parts.empty()) return {};
  const study::ChaosFloorReport& c = *report.chaos;
  QString text = tr("Chaos floor (%1 perturbed at the level of rounding noise, at the same seeds):")
                     .arg(QString::fromStdString(c.reference));
  for (const study::ChaosFloorPart& part : c.parts) {
    text += QLatin1Char(' ');
    if (part.churn.pairs == 0) {
      text += tr("%1 (%2) has no finished run sharing a seed with %3 yet.")
                  .arg(QString::fromStdString(part.backend), QString::fromStdString(part.words),
                       QString::fromStdString(c.reference));
      continue;
    }
    std::size_t rejected = 0;
    for (const auto& m : part.mcnemar) rejected += m.rejected ? 1 : 0;
    text += tr("%1 (%2) changes %3 of predictions")
                .arg(QString::fromStdString(part.backend), QString::fromStdString(part.words),
                     formatChurnCell(part.churn.mean));
    const QString ci = churnInterval(part.churn.ci.ci_low, part.churn.ci.ci_high);
    if (!ci.isEmpty()) text += QStringLiteral(" [%1]").arg(ci);
    text += tr("; McNemar finds different errors at %1 of %2 seeds (Holm, alpha %3)")
                .arg(rejected)
                .arg(part.mcnemar.size())
                .arg(alpha);
    if (part.pairedT)
      text += tr("; final accuracy %1 points [%2, %3]")
                  .arg(100 * part.pairedT->mean_diff, 0, 'f', 2)
                  .arg(100 * part.pairedT->ci_low, 0, 'f', 2)
                  .arg(100 * part.pairedT->ci_high, 0, 'f', 2);
    text += QLatin1Char('.');
  }
  return text;
}

}  // namespace

QString formatChurnCell(double fraction) {
  if (!std::isfinite(fraction)) return QStringLiteral("—");
  return QString::number(100.0 * fraction, 'f', 2) + QLatin1Char('%');
}

QString churnCellReason(const study::ChurnCell& cell) {
  if (cell.churn.pairs > 0) return {};
  return cell.row == cell.column ? tr("fewer than 2 seeds") : tr("no shared seed");
}

QStringList churnCellLines(const study::ChurnCell& cell) {
  if (cell.churn.pairs == 0) return {QStringLiteral("—"), churnCellReason(cell)};
  QStringList lines{formatChurnCell(cell.churn.mean)};
  const QString ci = churnInterval(cell.churn.ci.ci_low, cell.churn.ci.ci_high);
  if (!ci.isEmpty()) lines << ci;
  lines << (cell.row == cell.column ? tr("seed churn") : tr("same seed"));
  return lines;
}

DivergenceSummary summarizeDivergence(const study::DivergenceReport& report, double alpha) {
  DivergenceSummary s;
  if (report.churn) {
    s.headline = QString::fromStdString(report.churn->headline);
  } else {
    const QString why = missingPredictions(report);
    s.headline = why.isEmpty()
                     ? QObject::tr("No churn of %1 against %2 could be computed.")
                           .arg(QString::fromStdString(report.a), QString::fromStdString(report.b))
                     : why;
  }
  s.chaos = chaosSummary(report, alpha);
  if (report.chaos && !report.chaos->headline.empty()) {
    // The chaos floor's sentence names all three figures; the seed's verdict follows it.
    s.chaos = s.headline + QLatin1Char(' ') + s.chaos;
    s.headline = QString::fromStdString(report.chaos->headline);
  }
  s.mcnemar = mcnemarSummary(report, alpha);
  s.accuracy = accuracySummary(report, alpha);
  for (const std::string& note : report.notes) s.notes << QString::fromStdString(note);
  return s;
}

QString divergenceSummaryHtml(const DivergenceSummary& summary) {
  QString html = QStringLiteral("<p style=\"font-size:large\"><b>%1</b></p>")
                     .arg(summary.headline.toHtmlEscaped());
  for (const QString& part : {summary.chaos, summary.mcnemar, summary.accuracy})
    if (!part.isEmpty()) html += QStringLiteral("<p>%1</p>").arg(part.toHtmlEscaped());
  if (!summary.notes.isEmpty()) {
    html += QStringLiteral("<p style=\"color:#57606a\">");
    QStringList escaped;
    for (const QString& note : summary.notes)
      escaped << QStringLiteral("• ") + note.toHtmlEscaped();
    html += escaped.join(QStringLiteral("<br>")) + QStringLiteral("</p>");
  }
  return html;
}

QString churnMatrixEmptyReason(const study::DivergenceReport& report) {
  if (!report.backends.empty()) return {};
  return missingPredictions(report);
}

QString classDifferencesEmptyReason(const study::DivergenceReport& report) {
  if (!report.classes.empty()) return {};
  const QString why = missingPredictions(report);
  if (!why.isEmpty()) return why;
  return QObject::tr(
             "Per-class differences need at least 2 finished runs of %1 and of %2, "
             "each with predictions.")
      .arg(QString::fromStdString(report.a), QString::fromStdString(report.b));
}

QString weightDivergenceEmptyReason(const study::DivergenceReport& report) {
  if (!report.layers.empty()) return {};
  if (report.weightsKept == "none")
    return tr("The study kept no weights (keep_weights is \"none\"): no weight divergence.");
  if (report.weightsKept.empty() || report.backends.empty())
    return tr(
        "These runs carry no weight snapshots (runs imported from real hardware, or "
        "trained before ParityLab stored them).");
  return QObject::tr("No weight snapshots of %1 and %2 at a shared seed (and of two seeds of %2).")
      .arg(QString::fromStdString(report.a), QString::fromStdString(report.b));
}

}  // namespace paritylab::ui
