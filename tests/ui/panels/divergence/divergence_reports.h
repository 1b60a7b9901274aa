#pragma once
// Hand-made study::DivergenceReports for the Divergence tab's tests, so the
// views and the panel are tested without a results database. The statistics inside are computed
// by core/stats from the small samples below (the views only show them); the churn figures and
// the headline are written as analyseDivergence would give them.

#include <cstdint>
#include <vector>

#include "core/stats/multiple_comparisons.h"
#include "core/study/analysis/divergence_analysis.h"

namespace paritylab::ui::testing {

inline stats::ChurnEstimate churnEstimate(std::size_t pairs, double mean, double low, double high) {
  stats::ChurnEstimate e;
  e.pairs = pairs;
  e.mean = pairs ? mean : NAN;
  e.values.assign(pairs, mean);
  e.ci.estimate = e.mean;
  e.ci.ci_low = pairs ? low : NAN;
  e.ci.ci_high = pairs ? high : NAN;
  e.ci.alpha = 0.05;
  e.ci.resamples = 2000;
  e.ci.used = pairs ? 2000 : 0;
  return e;
}

inline const std::vector<std::string> kFashionNames = {
    "T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
    "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};

// cpu-fp32, gpu-tf32 (identical to cpu-fp32: churn 0 at the same seed) and tpu-bf16 (one seed
// only: its seed churn is undefined), A = tpu-bf16 against B = cpu-fp32 over seeds 0, 1, 2.
inline study::DivergenceReport threeBackendReport() {
  study::DivergenceReport r;
  r.a = "tpu-bf16";
  r.b = "cpu-fp32";
  r.classNames = kFashionNames;
  r.backends = {"cpu-fp32", "gpu-tf32", "tpu-bf16"};
  const auto cell = [](const char* row, const char* column, stats::ChurnEstimate e) {
    return study::ChurnCell{row, column, std::move(e)};
  };
  r.churnMatrix = {
      cell("cpu-fp32", "cpu-fp32", churnEstimate(3, 0.078, 0.071, 0.085)),
      cell("cpu-fp32", "gpu-tf32", churnEstimate(3, 0.0, 0.0, 0.0)),
      cell("cpu-fp32", "tpu-bf16", churnEstimate(3, 0.019, 0.015, 0.023)),
      cell("gpu-tf32", "cpu-fp32", churnEstimate(3, 0.0, 0.0, 0.0)),
      cell("gpu-tf32", "gpu-tf32", churnEstimate(3, 0.078, 0.071, 0.085)),
      cell("gpu-tf32", "tpu-bf16", churnEstimate(3, 0.019, 0.015, 0.023)),
      cell("tpu-bf16", "cpu-fp32", churnEstimate(3, 0.019, 0.015, 0.023)),
      cell("tpu-bf16", "gpu-tf32", churnEstimate(3, 0.019, 0.015, 0.023)),
      cell("tpu-bf16", "tpu-bf16", churnEstimate(0, 0, 0, 0)),
  };
  stats::ChurnComparison c;
  c.name_a = r.a;
  c.name_b = r.b;
  c.precision = churnEstimate(3, 0.019, 0.015, 0.023);
  c.seed_floor = churnEstimate(3, 0.078, 0.071, 0.085);
  c.seed_to_precision_ratio = 0.078 / 0.019;
  c.headline =
      "tpu-bf16 changes 1.9% of test predictions against cpu-fp32 at the same seed; two "
      "cpu-fp32 runs with different seeds disagree on 7.8%: the precision changes the model about "
      "4.1 times less than the seed does.";
  r.churn = c;
  r.pairedSeeds = {0, 1, 2};
  // Seed 1's models make different errors (41 examples only tpu-bf16 gets right, 12 only
  // cpu-fp32); Holm over the three pairs as the analysis does it.
  const std::vector<std::pair<std::size_t, std::size_t>> discordant = {{20, 18}, {41, 12}, {9, 11}};
  std::vector<double> ps;
  for (std::size_t i = 0; i < 3; ++i) {
    stats::SeedPairMcNemar m;
    m.seed = i;
    m.test = stats::mcnemarExact(discordant[i].first, discordant[i].second);
    ps.push_back(m.test.p_value);
    r.mcnemar.push_back(m);
  }
  const stats::HolmResult holm = stats::holm(ps, 0.05);
  for (std::size_t i = 0; i < 3; ++i) {
    r.mcnemar[i].p_holm = holm.adjusted[i];
    r.mcnemar[i].rejected = holm.adjusted[i] < 0.05;
  }
  const std::vector<double> accA = {0.8712, 0.8650, 0.8731}, accB = {0.8698, 0.8655, 0.8702};
  r.pairedT = stats::pairedTTest(accA, accB);
  r.wilcoxon = stats::wilcoxonSignedRank(accA, accB);
  r.welch = stats::tTest(accA, accB);
  // Per class: class 6 (Shirt) loses 6 points under tpu-bf16, far beyond its seed noise.
  std::vector<std::vector<double>> perRunA(3), perRunB(3);
  for (std::size_t run = 0; run < 3; ++run) {
    for (std::size_t k = 0; k < 10; ++k) {
      const double base = 0.80 + 0.015 * double(k);
      const double jitter = 0.004 * (double(run) - 1.0) * (k % 3 == 0 ? 1.0 : -0.5);
      perRunB[run].push_back(base + jitter);
      perRunA[run].push_back(base - (k == 6 ? 0.06 : 0.0) + 0.7 * jitter + 0.001 * double(k % 2));
    }
  }
  const std::vector<stats::ClassDifference> diffs = stats::compareClasses(perRunA, perRunB);
  for (std::size_t k = 0; k < 10; ++k) {
    study::ClassRow row;
    row.classIndex = k;
    row.className = kFashionNames[k];
    for (std::size_t run = 0; run < 3; ++run) row.meanA += perRunA[run][k] / 3.0;
    for (std::size_t run = 0; run < 3; ++run) row.meanB += perRunB[run][k] / 3.0;
    row.difference = diffs[k];
    r.classes.push_back(row);
  }
  // Weights: conv1 and fc1 over epochs 1..3; fc1's bias is identical at epoch 1 (distance 0).
  r.weightsKept = "epochs";
  r.layers.push_back({"conv1.weight", {1, 2, 3}, {0.002, 0.004, 0.006}, {0.35, 0.38, 0.40}, 3, 3});
  r.layers.push_back({"fc1.weight", {1, 2, 3}, {0.0008, 0.0015, 0.002}, {0.2, 0.25, 0.27}, 3, 3});
  r.layers.push_back({"fc1.bias", {1, 2, 3}, {0.0, 0.0001, 0.0003}, {0.1, 0.12, 0.13}, 3, 3});
  r.notes = {"seed 3 has no finished tpu-bf16 run"};
  return r;
}

// Runs imported from real hardware: backends xla and cuda, but no predictions and no weights.
inline study::DivergenceReport importedReport() {
  study::DivergenceReport r;
  r.a = "xla";
  r.b = "cuda";
  r.notes = {"imported runs carry no per-example predictions",
             "imported runs carry no weight snapshots"};
  const std::vector<double> accA = {0.6855, 0.7034, 0.6999}, accB = {0.6878, 0.6834, 0.6917};
  r.welch = stats::tTest(accA, accB);
  r.completedRuns = accA.size() + accB.size();
  return r;
}

}  // namespace paritylab::ui::testing
