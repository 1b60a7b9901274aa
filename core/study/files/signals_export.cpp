#include "core/study/files/signals_export.h"

#include <cmath>

#include "core/input/atomic_file.h"
#include "core/input/csv.h"

namespace paritylab::study {

std::size_t writeStepSignals(const ResultsStore& store, const std::string& csvPath) {
  std::size_t rows = 0;
  input::writeFileAtomically(csvPath, [&](std::ostream& out) {
    input::CsvWriter w(out);
    w.writeRow({"run_id", "backend", "seed", "step", "epoch", "signal", "layer", "value"});
    const auto signals = store.loadAllSignals();
    for (const RunRecord& run : store.loadRuns()) {
      const auto it = signals.find(run.id);
      if (it == signals.end()) continue;
      const std::string id = std::to_string(run.id), seed = std::to_string(run.seed);
      const RunSignals& s = it->second;
      for (const SignalRecord& r : s.steps) {
        const std::string step = std::to_string(r.step), epoch = std::to_string(r.epoch);
        const auto row = [&](const char* signal, const std::string& layer, double value) {
          w.writeRow({id, run.backend, seed, step, epoch, signal, layer, input::csvNumber(value)});
          ++rows;
        };
        row("grad_norm", "", r.gradNorm);
        if (!std::isnan(r.attentionLogitMax)) row("attention_logit_max", "", r.attentionLogitMax);
        row("output_logit_norm", "", r.outputLogitNorm);
        for (std::size_t l = 0; l < r.updateRatios.size() && l < s.layers.size(); ++l)
          row("update_ratio", s.layers[l], r.updateRatios[l]);
      }
    }
  });
  return rows;
}

}  // namespace paritylab::study
