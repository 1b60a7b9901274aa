// ResultsStore's early warnings (schema version 8): per sampled training step the gradient norm,
// the largest attention logit, the output-logit norm and each layer's update ratio.
#include <sqlite3.h>

#include <stdexcept>

#include "core/study/store/results_blobs.h"
#include "core/study/store/results_store.h"
#include "core/study/store/results_store_rows.h"
#include "core/study/store/results_store_transaction.h"
#include "core/study/store/sqlite_statement.h"

namespace paritylab::study {

using namespace store_rows;

namespace {

std::string joinedLines(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : "\n") + n;
  return out;
}

std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> out;
  if (text.empty()) return out;
  std::size_t from = 0;
  for (std::size_t at; (at = text.find('\n', from)) != std::string::npos; from = at + 1)
    out.push_back(text.substr(from, at - from));
  out.push_back(text.substr(from));
  return out;
}

}  // namespace

void ResultsStore::addSignals(std::int64_t runId, const std::vector<std::string>& layers,
                              const std::vector<SignalRecord>& steps) {
  for (const SignalRecord& r : steps)
    if (r.updateRatios.size() != layers.size())
      throw std::invalid_argument("signals of run " + std::to_string(runId) + " step " +
                                  std::to_string(r.step) + ": " +
                                  std::to_string(r.updateRatios.size()) + " update ratios for " +
                                  std::to_string(layers.size()) + " layers");
  for (const std::string& name : layers)
    if (name.empty() || name.find('\n') != std::string::npos)
      throw std::invalid_argument("signals of run " + std::to_string(runId) +
                                  ": a layer name must be one non-empty line, got '" + name + "'");
  if (steps.empty()) return;
  std::lock_guard lock(mutex_);
  transaction([&] {
    Statement names(db_, "INSERT OR REPLACE INTO signal_layers (run_id, names) VALUES (?, ?)",
                    path_);
    names.bind(1, runId).bind(2, joinedLines(layers)).run();
    Statement s(db_,
                "INSERT OR REPLACE INTO signals (run_id, step, epoch, grad_norm, "
                "attention_logit_max, output_logit_norm, update_ratios) VALUES (?,?,?,?,?,?,?)",
                path_);
    for (const SignalRecord& r : steps) {
      s.bind(1, runId).bind(2, r.step).bind(3, std::int64_t(r.epoch)).bind(4, r.gradNorm);
      s.bind(5, r.attentionLogitMax).bind(6, r.outputLogitNorm);
      s.bindBlob(7, encodeFloats(r.updateRatios)).run();
      s.reset();
    }
    return true;
  });
}

std::map<std::int64_t, RunSignals> ResultsStore::loadAllSignals() const {
  std::lock_guard lock(mutex_);
  std::map<std::int64_t, RunSignals> out;
  if (!hasTable("signals") || !hasTable("signal_layers")) return out;
  Statement names(db_, "SELECT run_id, names FROM signal_layers ORDER BY run_id", path_);
  while (names.step()) out[names.i64(0)].layers = splitLines(names.text(1));
  Statement s(db_,
              "SELECT run_id, step, epoch, grad_norm, attention_logit_max, output_logit_norm, "
              "update_ratios FROM signals ORDER BY run_id, step",
              path_);
  while (s.step()) {
    const std::int64_t runId = s.i64(0);
    RunSignals& run = out[runId];
    SignalRecord r;
    r.step = storedInteger(s, 1, path_, runId, "signals step", 1,
                           std::numeric_limits<std::int64_t>::max());
    r.epoch = int(storedInteger(s, 2, path_, runId, "signals epoch", 1, kMaxInt));
    r.gradNorm = storedReal(s, 3, path_, runId, "signals grad_norm", 0, kInf);
    r.attentionLogitMax =
        storedReal(s, 4, path_, runId, "signals attention_logit_max", -kInf, kInf);
    r.outputLogitNorm = storedReal(s, 5, path_, runId, "signals output_logit_norm", 0, kInf);
    try {
      r.updateRatios = decodeFloats(s.blob(6), run.layers.size(),
                                    path_ + ": update ratios of run " + std::to_string(runId) +
                                        " step " + std::to_string(r.step));
    } catch (const std::runtime_error& e) {
      throw StoreError(e.what());
    }
    run.steps.push_back(std::move(r));
  }
  return out;
}

}  // namespace paritylab::study
