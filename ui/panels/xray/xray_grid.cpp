#include "ui/panels/xray/xray_grid.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "ui/session/core_errors.h"

namespace paritylab::ui {

QString xrayViewTitle(const XrayView& view) {
  return QStringLiteral("X-ray of the %1 operand, seed %2: %3")
      .arg(view.operand)
      .arg(view.seed)
      .arg(xrayStatisticName(view.statistic));
}

QString xrayStatisticName(XrayStatistic statistic) {
  switch (statistic) {
    case XrayStatistic::Underflow:
      return QStringLiteral("underflow %");
    case XrayStatistic::Overflow:
      return QStringLiteral("overflow %");
    case XrayStatistic::Subnormal:
      return QStringLiteral("subnormal %");
    case XrayStatistic::SqnrDb:
      return QStringLiteral("SQNR dB");
    case XrayStatistic::Amax:
      return QStringLiteral("amax (log2)");
  }
  return {};
}

double xrayStatisticValue(const numerics::TensorXray& xray, XrayStatistic statistic) {
  switch (statistic) {
    case XrayStatistic::Underflow:
      return 100.0 * xray.underflowFraction();
    case XrayStatistic::Overflow:
      return 100.0 * xray.overflowFraction();
    case XrayStatistic::Subnormal:
      return 100.0 * xray.subnormalFraction();
    case XrayStatistic::SqnrDb:
      return xray.sqnrDb();
    case XrayStatistic::Amax:
      return xray.amax > 0 ? std::log2(xray.amax) : std::numeric_limits<double>::quiet_NaN();
  }
  return std::numeric_limits<double>::quiet_NaN();
}

bool loadXrayRows(const QString& dbPath, std::vector<study::XrayRow>* rows,
                  std::vector<study::RunRecord>* runs, QString* error) {
  try {
    auto store = study::ResultsStore::openReadOnly(dbPath.toStdString());
    *rows = store->loadXray();
    *runs = store->loadRuns();
    return true;
  } catch (const std::exception& e) {
    if (error) *error = ui::errorText(e);
    return false;
  }
}

QStringList sitesInModelOrder(const QStringList& sites) {
  auto layerOf = [](const QString& s) { return s.section(QLatin1Char('.'), 0, -2); };
  auto suffixRank = [](const QString& s) {
    if (s.endsWith(QLatin1String(".fwd"))) return 0;
    if (s.endsWith(QLatin1String(".dgrad"))) return 1;
    if (s.endsWith(QLatin1String(".wgrad"))) return 2;
    return 3;
  };
  QStringList layers;  // first appearance of a forward product, then of any product
  for (const QString& s : sites)
    if (suffixRank(s) == 0 && !layers.contains(layerOf(s))) layers << layerOf(s);
  for (const QString& s : sites)
    if (!layers.contains(layerOf(s))) layers << layerOf(s);
  QStringList ordered = sites;
  std::stable_sort(ordered.begin(), ordered.end(), [&](const QString& a, const QString& b) {
    const auto la = layers.indexOf(layerOf(a)), lb = layers.indexOf(layerOf(b));
    return la != lb ? la < lb : suffixRank(a) < suffixRank(b);
  });
  return ordered;
}

std::vector<XrayBlock> arrangeXray(const std::vector<study::XrayRow>& rows,
                                   const std::vector<study::RunRecord>& runs,
                                   const QString& operand, std::uint64_t seed) {
  std::vector<XrayBlock> blocks;
  const std::string wanted = operand.toStdString();
  for (const study::RunRecord& run : runs) {
    if (run.seed != seed) continue;
    const QString backend = QString::fromStdString(run.backend);
    if (std::any_of(blocks.begin(), blocks.end(),
                    [&](const XrayBlock& b) { return b.backend == backend; }))
      continue;
    XrayBlock block{backend, run.id, run.seed, {}, {}, {}};
    QStringList sites;
    for (const study::XrayRow& r : rows) {
      if (r.runId != run.id || r.operand != wanted) continue;
      const QString site = QString::fromStdString(r.site);
      if (!sites.contains(site)) sites << site;
      if (std::find(block.steps.begin(), block.steps.end(), r.step) == block.steps.end())
        block.steps.push_back(r.step);
    }
    if (sites.isEmpty()) continue;  // this run has no samples: a later run of the seed may
    std::sort(block.steps.begin(), block.steps.end());
    block.sites = sitesInModelOrder(sites);
    block.cells.assign(static_cast<std::size_t>(block.sites.size()) * block.steps.size(), -1);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const study::XrayRow& r = rows[i];
      if (r.runId != run.id || r.operand != wanted) continue;
      const auto site = block.sites.indexOf(QString::fromStdString(r.site));
      const auto step =
          std::lower_bound(block.steps.begin(), block.steps.end(), r.step) - block.steps.begin();
      block.cells[static_cast<std::size_t>(site) * block.steps.size() +
                  static_cast<std::size_t>(step)] = static_cast<int>(i);
    }
    blocks.push_back(std::move(block));
  }
  return blocks;
}

std::vector<std::uint64_t> xraySeeds(const std::vector<study::XrayRow>& rows,
                                     const std::vector<study::RunRecord>& runs) {
  std::set<std::int64_t> measured;
  for (const study::XrayRow& r : rows) measured.insert(r.runId);
  std::set<std::uint64_t> seeds;
  for (const study::RunRecord& run : runs)
    if (measured.count(run.id)) seeds.insert(run.seed);
  return {seeds.begin(), seeds.end()};
}

XrayView worstXrayView(const std::vector<study::XrayRow>& rows,
                       const std::vector<study::RunRecord>& runs) {
  std::map<std::int64_t, std::uint64_t> seedOf;
  for (const study::RunRecord& run : runs) seedOf[run.id] = run.seed;
  auto viewOf = [&](XrayStatistic statistic, const study::XrayRow& row) {
    return XrayView{statistic, QString::fromStdString(row.operand), seedOf[row.runId]};
  };
  // The first sample with the largest (or, for SQNR, the lowest) finite value, as the CLI's
  // "worst at" names it; nullptr when no sample has a value above zero (any for SQNR).
  auto worst = [&](XrayStatistic statistic, bool larger) -> const study::XrayRow* {
    const study::XrayRow* found = nullptr;
    double best = 0;
    for (const study::XrayRow& row : rows) {
      if (!seedOf.count(row.runId)) continue;
      const double v = xrayStatisticValue(row.xray, statistic);
      if (!std::isfinite(v) || (larger && v <= 0)) continue;
      if (!found || (larger ? v > best : v < best)) {
        found = &row;
        best = v;
      }
    }
    return found;
  };
  if (const auto* row = worst(XrayStatistic::Underflow, true))
    return viewOf(XrayStatistic::Underflow, *row);
  if (const auto* row = worst(XrayStatistic::Overflow, true))
    return viewOf(XrayStatistic::Overflow, *row);
  if (const auto* row = worst(XrayStatistic::SqnrDb, false))
    return viewOf(XrayStatistic::SqnrDb, *row);
  const std::vector<std::uint64_t> seeds = xraySeeds(rows, runs);
  return XrayView{XrayStatistic::Amax, QStringLiteral("input"), seeds.empty() ? 0 : seeds.front()};
}

}  // namespace paritylab::ui
