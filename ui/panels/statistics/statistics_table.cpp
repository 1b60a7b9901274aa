#include "ui/panels/statistics/statistics_table.h"

#include <QTableWidget>
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "ui/charts/backend_colours.h"

namespace paritylab::ui {
namespace {

QString dash() {
  return QStringLiteral("—");
}
QString fixed(double v, int decimals) {
  if (std::isnan(v)) return dash();
  if (std::isinf(v)) return v > 0 ? QStringLiteral("∞") : QStringLiteral("−∞");
  return QString::number(v, 'f', decimals);
}

// Column indices of the table: what decides (the pair, n, the difference with its CI, p, TOST,
// what the design could detect) first, so a narrow window shows it without scrolling; the
// descriptive figures after.
enum Column {
  kColA,
  kColB,
  kColNA,
  kColNB,
  kColDiff,
  kColCi,
  kColP,
  kColPHolm,
  kColTostP,
  kColDetectable,
  kColMeanA,
  kColMeanB,
  kColSdA,
  kColSdB,
  kColStatistic,
  kColDf,
  kColG,
  kColRunsNeeded,
  kColumnCount
};

QStringList columnTitles(bool mannWhitney, const stats::MetricWords& words) {
  const QString value = valueUnit(words), diff = differenceUnit(words);
  // "mean A %", "mean A nats"; "diff\n(pts)", "diff\n(nats)"; the name alone for a plain number.
  const auto ofValue = [&](const QString& name) {
    return value.isEmpty() ? name : name + QStringLiteral(" ") + value;
  };
  const auto ofDifference = [&](const QString& name) {
    return diff.isEmpty() ? name : name + QStringLiteral("\n(%1)").arg(diff);
  };
  QStringList titles;
  for (int i = 0; i < kColumnCount; ++i) titles << QString();
  titles[kColA] = QObject::tr("A");
  titles[kColB] = QObject::tr("B");
  titles[kColNA] = QObject::tr("n A");
  titles[kColNB] = QObject::tr("n B");
  titles[kColMeanA] = ofValue(QObject::tr("mean A"));
  titles[kColMeanB] = ofValue(QObject::tr("mean B"));
  titles[kColSdA] = ofValue(QObject::tr("sd A"));
  titles[kColSdB] = ofValue(QObject::tr("sd B"));
  titles[kColDiff] = ofDifference(mannWhitney ? QObject::tr("HL shift") : QObject::tr("diff"));
  titles[kColCi] = ofDifference(mannWhitney ? QObject::tr("HL CI") : QObject::tr("CI"));
  titles[kColStatistic] = QObject::tr("t / U");
  titles[kColDf] = QObject::tr("df");
  titles[kColP] = QObject::tr("p");
  titles[kColPHolm] = QObject::tr("p\n(Holm)");
  titles[kColG] = QObject::tr("Hedges' g");
  titles[kColTostP] = QObject::tr("TOST p");
  titles[kColDetectable] = ofDifference(QObject::tr("detectable ≥"));
  titles[kColRunsNeeded] = QObject::tr("runs needed\n(TOST)");
  return titles;
}

}  // namespace

void setupStatisticsTable(QTableWidget* table) {
  table->setColumnCount(kColumnCount);
  table->setHorizontalHeaderLabels(columnTitles(false, stats::accuracyWords()));
}

void fillStatisticsTable(QTableWidget* table, const std::vector<StatRow>& rows,
                         const StatTableContext& context) {
  const stats::MetricWords& w = context.words;
  const auto amount = [&](double v) { return formatAmount(v, w); };
  const QString unitName =
      w.unit.empty() ? QString::fromStdString(w.name) : QString::fromStdString(w.unit);
  table->setHorizontalHeaderLabels(columnTitles(context.mannWhitney, w));
  // Holm's adjusted p exists only for a family (all against the reference).
  table->setColumnHidden(kColPHolm, std::none_of(rows.begin(), rows.end(), [](const StatRow& row) {
                           return row.pAdjusted >= 0;
                         }));
  table->horizontalHeaderItem(kColDetectable)
      ->setToolTip(
          QObject::tr("Minimum detectable difference: the smallest true difference (%1) this "
                      "design detects with the chosen power, for the %2 t-test")
              .arg(unitName, context.tTestName));
  table->horizontalHeaderItem(kColRunsNeeded)
      ->setToolTip(QObject::tr("Runs per backend to show equivalence within the margin with the %1 "
                               "TOST (two one-sided t-tests)")
                       .arg(context.tTestName));
  table->setRowCount(static_cast<int>(rows.size()));
  for (int r = 0; r < static_cast<int>(rows.size()); ++r) {
    const StatRow& row = rows[static_cast<std::size_t>(r)];
    const stats::Comparison& c = row.comparison;
    QStringList cells;
    QStringList tips;  // per column; empty = none
    for (int i = 0; i < kColumnCount; ++i) cells << dash(), tips << QString();
    cells[kColA] = QString::fromStdString(c.name_a);
    cells[kColB] = QString::fromStdString(c.name_b);
    cells[kColNA] = QString::number(c.n_a);
    cells[kColNB] = QString::number(c.n_b);
    if (c.t_test) {
      const auto& t = *c.t_test;
      cells[kColMeanA] = amount(t.mean_a);
      cells[kColMeanB] = amount(t.mean_b);
      cells[kColSdA] = amount(t.sd_a);
      cells[kColSdB] = amount(t.sd_b);
      cells[kColDiff] = amount(t.mean_diff);
      cells[kColCi] = formatInterval(t.ci_low, t.ci_high, w);
      cells[kColStatistic] = fixed(t.t, 2);
      cells[kColDf] = fixed(t.df, 1);
      cells[kColP] = formatPValue(t.p_value);
      cells[kColG] = fixed(t.hedges_g, 2);
    }
    if (row.mannWhitney && row.hodgesLehmann) {
      const auto& hl = *row.hodgesLehmann;
      cells[kColDiff] = amount(hl.estimate);
      cells[kColCi] = formatInterval(hl.ci_low, hl.ci_high, w);
      tips[kColCi] = QObject::tr(
                         "Distribution-free CI of the Hodges-Lehmann shift (%1; achieved "
                         "confidence %2%)")
                         .arg(hl.exact ? QObject::tr("exact") : QObject::tr("normal approximation"))
                         .arg(QString::number(100.0 * hl.achieved_confidence, 'f', 1));
      cells[kColStatistic] =
          QStringLiteral("U = %1").arg(QString::number(row.mannWhitney->u, 'g', 7));
      cells[kColDf] = dash();
      cells[kColP] = formatPValue(row.mannWhitney->p_value);
    }
    if (row.pAdjusted >= 0) cells[kColPHolm] = formatPValue(row.pAdjusted);
    if (c.tost) cells[kColTostP] = formatPValue(c.tost->p_value);
    // Neither figure has a rank-test version here: both assume the t-test, and say which.
    if (c.detectable) {
      const auto& d = *c.detectable;
      cells[kColDetectable] = amount(d.difference);
      if (context.mannWhitney)
        cells[kColDetectable] += QObject::tr(" (%1 t)").arg(context.tTestName);
      tips[kColDetectable] =
          QObject::tr(
              "The smallest true difference this design (%1 vs %2 runs, alpha %3) detects %4% of "
              "the time with the %5 t-test (%6); smaller differences could go unnoticed.")
              .arg(d.n_a)
              .arg(d.n_b)
              .arg(QString::number(d.alpha, 'g', 3))
              .arg(QString::number(100.0 * d.power, 'g', 3))
              .arg(context.tTestName)
              .arg(QString::fromUtf8(stats::detectableDesignNote(d.design)));
    }
    if (c.runs_needed) {
      cells[kColRunsNeeded] = c.runs_needed->reachable ? QString::number(c.runs_needed->n_per_group)
                                                       : QObject::tr("unreachable");
      if (context.mannWhitney)
        cells[kColRunsNeeded] += QObject::tr(" (%1 t)").arg(context.tTestName);
      tips[kColRunsNeeded] = QObject::tr(
                                 "Runs per backend for %1% power to show equivalence within ±%2 "
                                 "%3 with the %4 TOST, if the backends truly agree")
                                 .arg(QString::number(100.0 * c.runs_needed->target_power, 'g', 3))
                                 .arg(QString::number(context.margin, 'g', 3))
                                 .arg(unitName)
                                 .arg(context.tTestName);
    } else {
      tips[kColRunsNeeded] = QObject::tr(
          "Give an equivalence margin to see the runs needed to show "
          "equivalence");
    }
    for (int col = 0; col < kColumnCount; ++col) {
      auto* item = new QTableWidgetItem(cells[col]);
      if (col < 2) item->setIcon(BackendColours::swatch(cells[col]));  // A and B, as in the charts
      item->setTextAlignment(col < 2 ? Qt::AlignLeft | Qt::AlignVCenter
                                     : Qt::AlignRight | Qt::AlignVCenter);
      if (!tips[col].isEmpty()) item->setToolTip(tips[col]);
      table->setItem(r, col, item);
    }
  }
}

}  // namespace paritylab::ui
