#include "core/study/files/xray_rows.h"

#include <cmath>
#include <map>
#include <sstream>
#include <stdexcept>

#include "core/input/atomic_file.h"
#include "core/input/csv.h"
#include "core/study/store/results_store.h"

namespace paritylab::study {

using numerics::TensorXray;

std::size_t writeXrayCsv(const ResultsStore& store, const std::string& path) {
  std::map<std::int64_t, RunRecord> runs;
  for (const RunRecord& r : store.loadRuns()) runs[r.id] = r;
  const std::vector<XrayRow> samples = store.loadXray();
  std::size_t rows = 0;
  input::writeFileAtomically(path, [&](std::ostream& out) {
    input::CsvWriter csv(out);
    csv.writeRow({"run_id", "backend", "seed", "step", "epoch", "site", "operand", "format",
                  "count", "zeros", "non_finite", "amax", "min_nonzero", "underflow", "subnormal",
                  "overflow", "sqnr_db", "max_rel_error", "exponent_histogram"});
    for (const XrayRow& r : samples) {
      const TensorXray& x = r.xray;
      const RunRecord& run = runs[r.runId];
      const double sqnr = x.sqnrDb();
      csv.writeRow({std::to_string(r.runId), run.backend, std::to_string(run.seed),
                    std::to_string(r.step), std::to_string(r.epoch), r.site, r.operand, r.format,
                    std::to_string(x.count), std::to_string(x.zeros), std::to_string(x.nonFinite),
                    input::csvNumber(x.amax),
                    std::isinf(x.minNonzero) ? "" : input::csvNumber(x.minNonzero),
                    input::csvNumber(x.underflowFraction()),
                    input::csvNumber(x.subnormalFraction()), input::csvNumber(x.overflowFraction()),
                    std::isinf(sqnr) ? "inf" : input::csvNumber(sqnr),
                    input::csvNumber(x.maxRelativeError), exponentHistogramText(x)});
      ++rows;
    }
  });
  return rows;
}

}  // namespace paritylab::study
