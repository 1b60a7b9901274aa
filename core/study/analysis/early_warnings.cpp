#include "core/study/analysis/early_warnings.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace paritylab::study {
namespace {

double median(std::vector<double> values) {
  values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return std::isnan(v); }),
               values.end());
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  const std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + std::ptrdiff_t(mid), values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  return 0.5 * (*std::max_element(values.begin(), values.begin() + std::ptrdiff_t(mid)) + upper);
}

void raise(SignalPeak& peak, double value, std::int64_t step, const std::string& layer = "") {
  if (std::isnan(value) || value <= peak.value) return;  // NaN peak: any value raises it
  peak.value = value;
  peak.step = step;
  peak.layer = layer;
}

}  // namespace

std::vector<LossSpike> lossSpikes(const std::vector<StepRecord>& steps, double factor) {
  if (!(factor > 1.0) || !std::isfinite(factor))
    throw std::invalid_argument("the loss-spike factor must be a number above 1, got " +
                                std::to_string(factor));
  std::vector<LossSpike> spikes;
  std::vector<double> before;  // the finite sampled losses so far
  for (const StepRecord& s : steps) {
    if (!std::isfinite(s.trainLoss)) continue;
    if (int(before.size()) >= kSpikeMinHistory) {
      const std::size_t from = before.size() - std::min<std::size_t>(before.size(), kSpikeWindow);
      const double m = median({before.begin() + std::ptrdiff_t(from), before.end()});
      if (s.trainLoss > factor * m) spikes.push_back({s.step, s.epoch, s.trainLoss, m});
    }
    before.push_back(s.trainLoss);
  }
  return spikes;
}

EarlyWarnings analyseEarlyWarnings(const ResultsStore& store, double spikeFactor) {
  EarlyWarnings out;
  out.spikeFactor = spikeFactor;
  const auto steps = store.loadAllSteps();
  const auto signals = store.loadAllSignals();
  bool anySignals = false;
  for (const RunRecord& run : store.loadRuns()) {
    if (run.source != "emulated") continue;
    const auto st = steps.find(run.id);
    const auto sg = signals.find(run.id);
    if (st == steps.end() && sg == signals.end()) continue;
    RunWarnings w;
    w.runId = run.id;
    w.backend = run.backend;
    w.seed = run.seed;
    w.status = run.status;
    if (st != steps.end()) w.spikes = lossSpikes(st->second, spikeFactor);
    if (sg != signals.end()) {
      const RunSignals& s = sg->second;
      w.measuredSteps = s.steps.size();
      anySignals = anySignals || !s.steps.empty();
      std::vector<double> norms, ratios;
      for (const SignalRecord& r : s.steps) {
        raise(w.gradNorm, r.gradNorm, r.step);
        raise(w.attentionLogit, r.attentionLogitMax, r.step);
        raise(w.outputLogitNorm, r.outputLogitNorm, r.step);
        norms.push_back(r.gradNorm);
        for (std::size_t l = 0; l < r.updateRatios.size() && l < s.layers.size(); ++l) {
          raise(w.updateRatio, r.updateRatios[l], r.step, s.layers[l]);
          ratios.push_back(r.updateRatios[l]);
        }
      }
      w.medianGradNorm = median(std::move(norms));
      w.medianUpdateRatio = median(std::move(ratios));
    }
    out.runs.push_back(std::move(w));
  }
  if (!out.runs.empty() && !anySignals)
    out.notes.push_back(
        "no run stored early-warning signals (gradient norm, update ratios, logits): the study "
        "was run by a ParityLab that did not measure them; loss spikes are from the stored "
        "losses");
  return out;
}

}  // namespace paritylab::study
