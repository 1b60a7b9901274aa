#include "core/study/xray_rows.h"

#include <cmath>
#include <map>
#include <sstream>
#include <stdexcept>

#include "core/study/atomic_file.h"
#include "core/study/csv.h"
#include "core/study/results_store.h"

namespace paritylab::study {

using numerics::TensorXray;

std::string exponentHistogramText(const TensorXray& xray) {
  std::string text;
  auto add = [&](const std::string& key, std::int64_t n) {
    if (n == 0) return;
    if (!text.empty()) text += ' ';
    text += key + ':' + std::to_string(n);
  };
  for (int i = 0; i < TensorXray::kExponentBins; ++i)
    add(std::to_string(TensorXray::kMinExponent + i), xray.exponentBins[std::size_t(i)]);
  add("zero", xray.zeros);
  add("nonfinite", xray.nonFinite);
  return text;
}

namespace {

// One item of a stored histogram in a message: printable, at most 40 characters.
std::string shownItem(const std::string& item) {
  std::string shown;
  for (std::size_t i = 0; i < item.size() && i < 40; ++i)
    shown += (item[i] >= 0x20 && item[i] < 0x7f) ? item[i] : '?';
  return item.size() > 40 ? shown + "..." : shown;
}

}  // namespace

void parseExponentHistogram(const std::string& text, TensorXray& into) {
  std::istringstream in(text);
  std::string item;
  while (in >> item) {
    const auto colon = item.find(':');
    const std::string key = item.substr(0, colon);
    if (colon == std::string::npos)
      throw std::runtime_error("exponent histogram: expected exponent:count, got '" +
                               shownItem(item) + "'");
    if (key == "zero" || key == "nonfinite") continue;
    try {
      const int e = std::stoi(key);
      const long long n = std::stoll(item.substr(colon + 1));
      if (e < TensorXray::kMinExponent || e > TensorXray::kMaxExponent || n < 0)
        throw std::out_of_range(item);
      into.exponentBins[std::size_t(e - TensorXray::kMinExponent)] = n;
    } catch (const std::logic_error&) {
      throw std::runtime_error("exponent histogram: bad bin '" + shownItem(item) + "'");
    }
  }
}

std::size_t writeXrayCsv(const ResultsStore& store, const std::string& path) {
  std::map<std::int64_t, RunRecord> runs;
  for (const RunRecord& r : store.loadRuns()) runs[r.id] = r;
  const std::vector<XrayRow> samples = store.loadXray();
  std::size_t rows = 0;
  writeFileAtomically(path, [&](std::ostream& out) {
    CsvWriter csv(out);
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
                    csvNumber(x.amax), std::isinf(x.minNonzero) ? "" : csvNumber(x.minNonzero),
                    csvNumber(x.underflowFraction()), csvNumber(x.subnormalFraction()),
                    csvNumber(x.overflowFraction()), std::isinf(sqnr) ? "inf" : csvNumber(sqnr),
                    csvNumber(x.maxRelativeError), exponentHistogramText(x)});
      ++rows;
    }
  });
  return rows;
}

}  // namespace paritylab::study
