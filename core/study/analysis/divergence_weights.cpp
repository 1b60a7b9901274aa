// Weight divergence of a study from the stored per-epoch snapshots.
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>

#include "core/stats/weight_divergence.h"
#include "core/study/analysis/divergence_runs.h"

namespace paritylab::study {
namespace {

using Snapshots = std::map<int, std::vector<stats::LayerWeights>>;

}  // namespace

std::vector<LayerDivergence> weightDivergence(const ResultsStore& store, const BackendRuns& a,
                                              const BackendRuns& b, const std::string& keepWeights,
                                              std::vector<std::string>& notes) {
  std::vector<LayerDivergence> layers;
  // Snapshots of every completed run of A and B (loaded once each).
  std::map<std::int64_t, Snapshots> snapshots;
  const auto load = [&](const RunRecord& r) -> const Snapshots& {
    auto it = snapshots.find(r.id);
    if (it == snapshots.end()) it = snapshots.emplace(r.id, store.loadWeightSnapshots(r.id)).first;
    return it->second;
  };
  std::vector<std::pair<const RunRecord*, const RunRecord*>> precisionPairs;  // (A, B) same seed
  for (const RunRecord& ra : a.completed) {
    for (const RunRecord& rb : b.completed)
      if (ra.seed == rb.seed && !load(ra).empty() && !load(rb).empty())
        precisionPairs.emplace_back(&ra, &rb);
  }
  std::vector<std::pair<const RunRecord*, const RunRecord*>> seedPairs;  // B's, different seeds
  for (std::size_t i = 0; i < b.completed.size(); ++i) {
    for (std::size_t j = i + 1; j < b.completed.size(); ++j)
      if (!load(b.completed[i]).empty() && !load(b.completed[j]).empty())
        seedPairs.emplace_back(&b.completed[i], &b.completed[j]);
  }

  if (precisionPairs.empty() && seedPairs.empty()) {
    if (keepWeights == "none")
      notes.emplace_back("keep_weights is none: no weight divergence");
    else
      notes.push_back("no weight snapshots of seed-matched completed " + a.name + " and " + b.name +
                      " runs: no weight divergence");
    return layers;
  }
  if (precisionPairs.empty())
    notes.push_back("no seed-matched completed " + a.name + " and " + b.name +
                    " runs with weight snapshots: only the seed floor");
  if (seedPairs.empty())
    notes.push_back(b.name + " has fewer than two completed runs with weight snapshots: no seed " +
                    "floor for the weight divergence");

  // The epochs every run used has a snapshot of.
  std::set<int> epochs;
  bool first = true;
  for (const auto& [id, byEpoch] : snapshots) {
    if (byEpoch.empty()) continue;
    std::set<int> these;
    for (const auto& entry : byEpoch) these.insert(entry.first);
    if (first) {
      epochs = these;
      first = false;
    } else {
      std::set<int> both;
      std::set_intersection(epochs.begin(), epochs.end(), these.begin(), these.end(),
                            std::inserter(both, both.begin()));
      epochs = both;
    }
  }
  if (epochs.empty()) {
    notes.emplace_back("the runs' weight snapshots share no epoch: no weight divergence");
    return layers;
  }
  const std::vector<stats::LayerWeights>& shape =
      load(precisionPairs.empty() ? *seedPairs.front().first : *precisionPairs.front().first)
          .at(*epochs.begin());
  for (const stats::LayerWeights& layer : shape) {
    LayerDivergence d;
    d.layer = layer.name;
    d.epochs.assign(epochs.begin(), epochs.end());
    d.precisionPairs = precisionPairs.size();
    d.seedPairs = seedPairs.size();
    layers.push_back(std::move(d));
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto meanOver = [&](const auto& pairs, int epoch, auto into, bool secondIsReference) {
    std::vector<double> sums(layers.size(), 0.0);
    for (const auto& [x, y] : pairs) {
      // Precision: ||W_A - W_B|| / ||W_B||; floor: ||W_Bj - W_Bi|| / ||W_Bi||.
      const auto& wx = load(*x).at(epoch);
      const auto& wy = load(*y).at(epoch);
      const std::vector<stats::LayerDistance> d = secondIsReference
                                                      ? stats::relativeWeightDistance(wy, wx)
                                                      : stats::relativeWeightDistance(wx, wy);
      for (std::size_t l = 0; l < layers.size() && l < d.size(); ++l) sums[l] += d[l].relative;
    }
    for (std::size_t l = 0; l < layers.size(); ++l)
      (layers[l].*into).push_back(pairs.empty() ? nan : sums[l] / double(pairs.size()));
  };
  try {
    for (int epoch : epochs) {
      meanOver(precisionPairs, epoch, &LayerDivergence::precision, true);
      meanOver(seedPairs, epoch, &LayerDivergence::seedFloor, false);
    }
  } catch (const std::invalid_argument& e) {  // runs of different models: a damaged database
    notes.push_back(std::string("weight snapshots do not match: ") + e.what());
    return {};
  }
  if (keepWeights == "final")
    notes.emplace_back("keep_weights is final: the weight divergence of the last epoch only");
  return layers;
}

}  // namespace paritylab::study
