#pragma once
// The X-ray tab's data: a results database's X-ray rows arranged as one block per
// backend (its run of the chosen seed), sites in model order x sampled steps, for one operand.

#include <QString>
#include <QStringList>
#include <cstdint>
#include <vector>

#include "core/study/store/results_store.h"

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
  QString operand;                   // what the blocks show: this operand ...
  std::uint64_t seed = 0;            // ... of the runs with this seed
};

// What the X-ray tab shows: a statistic of one operand in the runs of one seed.
struct XrayView {
  XrayStatistic statistic = XrayStatistic::Underflow;
  QString operand = QStringLiteral("input");
  std::uint64_t seed = 0;
};

// "X-ray of the grad operand, seed 1: underflow %" (the heatmap's title, on screen and exported).
QString xrayViewTitle(const XrayView& view);

// Reads the database at `dbPath` read-only. An empty grid (no blocks) when it holds no X-ray.
bool loadXrayRows(const QString& dbPath, std::vector<study::XrayRow>* rows,
                  std::vector<study::RunRecord>* runs, QString* error);
// Arranges rows of `operand` ("input", "weight", "grad", "output"): per backend its first run with
// `seed` that has samples of that operand.
std::vector<XrayBlock> arrangeXray(const std::vector<study::XrayRow>& rows,
                                   const std::vector<study::RunRecord>& runs,
                                   const QString& operand, std::uint64_t seed);
// The seeds of the runs that have X-ray rows, ascending.
std::vector<std::uint64_t> xraySeeds(const std::vector<study::XrayRow>& rows,
                                     const std::vector<study::RunRecord>& runs);
// The view that shows the worst case, as `paritylab-cli xray` reports it: the operand and seed of
// the largest underflow fraction of any sample; without underflow, of the largest overflow;
// without either, of the lowest SQNR; with none of these, the amax of the first seed's inputs.
XrayView worstXrayView(const std::vector<study::XrayRow>& rows,
                       const std::vector<study::RunRecord>& runs);
// Sites in model order: layers by first appearance, then fwd, dgrad, wgrad.
QStringList sitesInModelOrder(const QStringList& sites);

}  // namespace paritylab::ui
