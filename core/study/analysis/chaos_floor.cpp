#include "core/study/analysis/chaos_floor.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "core/study/analysis/divergence_runs.h"

namespace paritylab::study {
namespace {

// Percentage points with one decimal, signed when negative.
std::string points(double fraction) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f", 100.0 * fraction);
  return std::string(buffer) == "-0.0" ? "0.0" : buffer;
}

// The final accuracies of P and B at their shared seeds.
std::optional<stats::PairedTTestResult> pairedAccuracy(const BackendRuns& p, const BackendRuns& b,
                                                       const DivergenceOptions& options) {
  std::vector<double> x, y;
  for (const RunRecord& rp : p.completed)
    for (const RunRecord& rb : b.completed)
      if (rp.seed == rb.seed && std::isfinite(rp.finalAccuracy) &&
          std::isfinite(rb.finalAccuracy)) {
        x.push_back(rp.finalAccuracy);
        y.push_back(rb.finalAccuracy);
      }
  if (x.size() < 2) return std::nullopt;
  const stats::PairedTTestResult t = stats::pairedTTest(x, y, options.tail, options.alpha);
  if (!t.defined) return std::nullopt;
  return t;
}

// Per seed with a run of A, B and P: churn(A, B) - churn(P, B).
std::vector<double> excessPerSeed(const BackendRuns& a, const BackendRuns& b,
                                  const BackendRuns& p) {
  std::map<std::uint64_t, const stats::SeededPredictions*> ofA, ofP;
  for (const auto& r : a.withPredictions) ofA[r.seed] = &r;
  for (const auto& r : p.withPredictions) ofP[r.seed] = &r;
  std::vector<double> out;
  for (const auto& rb : b.withPredictions) {
    const auto ia = ofA.find(rb.seed), ip = ofP.find(rb.seed);
    if (ia == ofA.end() || ip == ofP.end()) continue;
    out.push_back(stats::churn(ia->second->predicted, rb.predicted) -
                  stats::churn(ip->second->predicted, rb.predicted));
  }
  return out;
}

std::string headlineOf(const ChaosFloorReport& floor, const DivergenceReport& report) {
  // No churn to explain (or none at all: compareChurn's headline says so): no chaos sentence.
  if (!report.churn || report.churn->precision.pairs == 0 || report.churn->precision.mean == 0)
    return {};
  const stats::ChurnEstimate& precision = report.churn->precision;
  std::string s = report.a + " changes " + stats::churnPercent(precision.mean) + " of " +
                  report.predictions + " against " + report.b + " at the same seed; ";
  const ChaosFloorPart* largest = nullptr;
  bool first = true;
  for (const ChaosFloorPart& part : floor.parts) {
    if (part.churn.pairs == 0) continue;
    s += (first ? "" : ", ") + part.words + (first ? " changes " : " ") +
         stats::churnPercent(part.churn.mean);
    first = false;
    if (!largest || part.churn.mean > largest->churn.mean) largest = &part;
  }
  if (!largest) return {};
  if (!floor.ofPairReference) s += " (of " + floor.reference + ")";
  const stats::ChurnEstimate& seed = report.churn->seed_floor;
  if (seed.pairs > 0) s += "; two seeds " + stats::churnPercent(seed.mean);
  s += ": ";
  const stats::BootstrapCi& excess = largest->excess;
  if (largest->excessSeeds == 0) {
    s += "no seed has runs of all three, so how much exceeds the chaos floor is unknown.";
    return s;
  }
  s += points(excess.estimate) + " of the precision's " + points(precision.mean) +
       " points exceed the chaos floor";
  if (std::isfinite(excess.ci_low) && largest->excessSeeds >= 2)
    s += " [" + points(excess.ci_low) + ", " + points(excess.ci_high) + "]";
  const double ratio = largest->churn.mean > 0 ? precision.mean / largest->churn.mean : INFINITY;
  if (largest->excessSeeds >= 2 && excess.ci_low > 0 && ratio >= 1.25) {
    char times[32];
    std::snprintf(times, sizeof times, "%.2g", ratio);
    s += std::string(", about ") + times +
         " times what a rounding-level perturbation changes: the precision's own effect.";
  } else if (largest->excessSeeds >= 2 && excess.ci_low > 0) {
    s += ": the precision's effect is only slightly larger than a rounding-level perturbation's.";
  } else {
    s += ": the precision's effect is hardly larger than any rounding-level perturbation's.";
  }
  return s;
}

}  // namespace

std::optional<ChaosFloorReport> chaosFloor(const ResultsStore& store,
                                           const std::vector<BackendRuns>& all,
                                           const std::vector<BackendEntry>& entries,
                                           const std::vector<std::int32_t>& labels,
                                           const DivergenceOptions& options,
                                           const DivergenceReport& report) {
  std::vector<const BackendEntry*> perturbed;
  for (const BackendEntry& e : entries)
    if (e.perturbation != Perturbation::None && e.perturbs == report.b) perturbed.push_back(&e);
  ChaosFloorReport floor;
  floor.reference = report.b;
  if (perturbed.empty()) {
    for (const BackendEntry& e : entries)
      if (e.perturbation != Perturbation::None && e.perturbs != report.a) perturbed.push_back(&e);
    if (perturbed.empty()) return std::nullopt;
    floor.reference = perturbed.front()->perturbs;
    floor.ofPairReference = false;
  }
  const BackendRuns* a = findBackendRuns(all, report.a);
  const BackendRuns* reference = findBackendRuns(all, floor.reference);
  if (!a || !reference) return std::nullopt;
  stats::BootstrapOptions boot = options.bootstrap;
  boot.alpha = options.alpha;
  for (const BackendEntry* e : perturbed) {
    if (e->perturbs != floor.reference) continue;
    const BackendRuns* p = findBackendRuns(all, e->name);
    if (!p) continue;
    ChaosFloorPart part;
    part.backend = e->name;
    part.perturbation = perturbationName(e->perturbation);
    part.words = perturbationWords(e->perturbation);
    if (!p->withPredictions.empty() && !reference->withPredictions.empty()) {
      part.churn = stats::precisionChurn(p->withPredictions, reference->withPredictions, boot);
      if (!labels.empty())
        part.mcnemar = stats::mcnemarSeedPairs(labels, p->withPredictions,
                                               reference->withPredictions, options.alpha);
      const std::vector<double> excess = excessPerSeed(*a, *reference, *p);
      part.excessSeeds = excess.size();
      if (!excess.empty()) part.excess = stats::bootstrapMeanCi(excess, boot);
    }
    part.pairedT = pairedAccuracy(*p, *reference, options);
    std::vector<std::string> unused;  // the pair's own weight notes already say what is missing
    part.layers = weightDivergence(store, *p, *reference, report.weightsKept, unused);
    floor.parts.push_back(std::move(part));
  }
  floor.headline = headlineOf(floor, report);
  return floor;
}

}  // namespace paritylab::study
