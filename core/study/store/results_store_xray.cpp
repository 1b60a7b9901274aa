// X-ray samples of runs. Part of ResultsStore.
#include <sqlite3.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "core/study/store/results_store.h"
#include "core/study/store/results_store_rows.h"
#include "core/study/store/results_store_transaction.h"
#include "core/study/store/sqlite_statement.h"
#include "core/study/store/xray_histogram_text.h"

namespace paritylab::study {

using namespace store_rows;

void ResultsStore::addXraySample(std::int64_t runId, const nn::XraySample& sample) {
  if (sample.records.empty()) return;
  std::lock_guard lock(mutex_);
  transaction([&] {
    Statement s(db_,
                "INSERT OR REPLACE INTO xray (run_id, step, epoch, site, operand, format, count, "
                "zeros, non_finite, amax, min_nonzero, flushed, subnormal, overflowed, "
                "signal_energy, error_energy, max_rel_error, exponent_histogram) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                path_);
    for (const nn::XrayRecord& r : sample.records) {
      const numerics::TensorXray& x = r.xray;
      s.bind(1, runId).bind(2, sample.step).bind(3, std::int64_t(sample.epoch)).bind(4, r.site);
      s.bind(5, r.operand).bind(6, r.format).bind(7, x.count).bind(8, x.zeros);
      s.bind(9, x.nonFinite).bind(10, x.amax).bind(11, x.minNonzero).bind(12, x.flushed);
      s.bind(13, x.subnormal).bind(14, x.overflowed).bind(15, x.signalEnergy);
      s.bind(16, x.errorEnergy).bind(17, x.maxRelativeError);
      s.bind(18, exponentHistogramText(x)).run();
      s.reset();
    }
    return true;
  });
}

std::vector<XrayRow> ResultsStore::loadXray(std::int64_t runId) const {
  std::lock_guard lock(mutex_);
  std::vector<XrayRow> rows;
  // A database of schema version 4 or older opened read-only has no xray table: no samples.
  Statement has(db_, "SELECT count(*) FROM sqlite_master WHERE type='table' AND name='xray'",
                path_);
  if (!has.step() || has.i64(0) == 0) return rows;
  Statement s(db_,
              "SELECT run_id, step, epoch, site, operand, format, count, zeros, non_finite, amax, "
              "min_nonzero, flushed, subnormal, overflowed, signal_energy, error_energy, "
              "max_rel_error, exponent_histogram FROM xray WHERE ? = 0 OR run_id = ? "
              "ORDER BY run_id, rowid",
              path_);
  s.bind(1, runId).bind(2, runId);
  while (s.step()) {
    XrayRow r;
    r.runId = s.i64(0);
    const auto count = [&](int c, const char* column, std::int64_t hi) {
      return storedInteger(s, c, path_, r.runId, column, 0, hi);
    };
    const auto real = [&](int c, const char* column, double fallback) {
      const double v = storedReal(s, c, path_, r.runId, column, 0, kInf);
      return std::isnan(v) ? fallback : v;
    };
    constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
    r.step = count(1, "xray step", kMax);
    r.epoch = int(storedInteger(s, 2, path_, r.runId, "xray epoch", 1, kMaxInt));
    r.site = s.text(3);
    r.operand = s.text(4);
    r.format = s.text(5);
    numerics::TensorXray& x = r.xray;
    x.count = count(6, "xray count", kMax);
    x.zeros = count(7, "xray zeros", x.count);
    x.nonFinite = count(8, "xray non_finite", x.count);
    x.amax = real(9, "xray amax", 0.0);
    x.minNonzero = real(10, "xray min_nonzero", kInf);
    x.flushed = count(11, "xray flushed", x.count);
    x.subnormal = count(12, "xray subnormal", x.count);
    x.overflowed = count(13, "xray overflowed", x.count);
    x.signalEnergy = real(14, "xray signal_energy", 0.0);
    x.errorEnergy = real(15, "xray error_energy", 0.0);
    x.maxRelativeError = real(16, "xray max_rel_error", 0.0);
    try {
      parseExponentHistogram(s.text(17), x);
    } catch (const std::runtime_error& e) {
      throw StoreError(path_ + ": damaged database: run " + std::to_string(r.runId) +
                       " xray step " + std::to_string(r.step) + " " + e.what());
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace paritylab::study
