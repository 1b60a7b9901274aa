#pragma once
// The X-ray tab's data (issue 14.4): a results database's X-ray rows arranged as one block per
// backend (its first run that has samples), sites in model order x sampled steps, for one operand.

#include <QString>
#include <QStringList>
#include <cstdint>
#include <vector>

#include "core/study/results_store.h"

namespace paritylab::ui {

enum class XrayStatistic { Underflow, Overflow, Subnormal, SqnrDb, Amax };

QString xrayStatisticName(XrayStatistic statistic);  // "underflow %", ..., "amax (log2)"
// The value a cell shows: percentages (0..100) for the fractions, SQNR in dB (+inf when the
// rounding was exact, NaN without signal), log2 of amax (NaN when amax is 0).
double xrayStatisticValue(const numerics::TensorXray& xray, XrayStatistic statistic);

struct XrayBlock {
  QString backend;
  std::int64_t runId = 0;
  std::uint64_t seed = 0;
  QStringList sites;                // rows, model order
  std::vector<std::int64_t> steps;  // columns, ascending (global step, 0-based)
  // cells[site * steps.size() + step]: index into XrayGrid::rows, -1 when not measured
  std::vector<int> cells;

  int cell(int site, int step) const {
    return cells[static_cast<std::size_t>(site) * steps.size() + static_cast<std::size_t>(step)];
  }
};

struct XrayGrid {
  std::vector<study::XrayRow> rows;  // every X-ray row of the database
  std::vector<XrayBlock> blocks;     // one per backend, in run order
};

// Reads the database at `dbPath` read-only. An empty grid (no blocks) when it holds no X-ray.
bool loadXrayRows(const QString& dbPath, std::vector<study::XrayRow>* rows,
                  std::vector<study::RunRecord>* runs, QString* error);
// Arranges rows of `operand` ("input", "weight", "grad", "output").
std::vector<XrayBlock> arrangeXray(const std::vector<study::XrayRow>& rows,
                                   const std::vector<study::RunRecord>& runs,
                                   const QString& operand);
// Sites in model order: layers by first appearance, then fwd, dgrad, wgrad.
QStringList sitesInModelOrder(const QStringList& sites);

}  // namespace paritylab::ui
