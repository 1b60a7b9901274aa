#include "core/study/files/divergence_export.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "core/study/analysis/accuracies_by_backend.h"
#include "core/study/files/report_csv.h"

namespace paritylab::study {
namespace {

using nlohmann::json;

json num(double v) {
  return std::isfinite(v) ? json(v) : json();
}

json nums(const std::vector<double>& values) {
  json out = json::array();
  for (double v : values) out.push_back(num(v));
  return out;
}

json churnJson(const stats::ChurnEstimate& e) {
  return {{"pairs", e.pairs},
          {"mean", num(e.mean)},
          {"ci_low", num(e.ci.ci_low)},
          {"ci_high", num(e.ci.ci_high)},
          {"values", nums(e.values)}};
}

json pairedTJson(const stats::PairedTTestResult& t) {
  return {{"n", t.n},
          {"mean_diff", num(t.mean_diff)},
          {"sd_diff", num(t.sd_diff)},
          {"t", num(t.t)},
          {"df", num(t.df)},
          {"p_value", num(t.p_value)},
          {"ci_low", num(t.ci_low)},
          {"ci_high", num(t.ci_high)}};
}

json wilcoxonJson(const stats::WilcoxonResult& w) {
  return {{"n", w.n},
          {"n_used", w.n_used},
          {"zeros", w.zeros},
          {"method", w.exact ? "exact" : "normal approximation"},
          {"statistic", num(w.statistic)},
          {"z", num(w.z)},
          {"p_value", num(w.p_value)}};
}

json welchJson(const stats::TTestResult& t) {
  return {{"n_a", t.n_a},
          {"n_b", t.n_b},
          {"mean_a", num(t.mean_a)},
          {"mean_b", num(t.mean_b)},
          {"mean_diff", num(t.mean_diff)},
          {"t", num(t.t)},
          {"df", num(t.df)},
          {"p_value", num(t.p_value)},
          {"ci_low", num(t.ci_low)},
          {"ci_high", num(t.ci_high)}};
}

// The chaos floor beside the seed floor: per perturbation, the same figures as the pair's.
json chaosJson(const ChaosFloorReport& c) {
  json parts = json::array();
  for (const ChaosFloorPart& part : c.parts) {
    std::size_t rejected = 0;
    json mcnemar = json::array();
    for (const stats::SeedPairMcNemar& m : part.mcnemar) {
      rejected += m.rejected ? 1 : 0;
      mcnemar.push_back({{"seed", m.seed},
                         {"only_perturbed_correct", m.test.only_first_correct},
                         {"only_reference_correct", m.test.only_second_correct},
                         {"p_value", num(m.test.p_value)},
                         {"p_holm", num(m.p_holm)},
                         {"rejected", m.rejected}});
    }
    json layers = json::array();
    for (const LayerDivergence& l : part.layers)
      layers.push_back({{"layer", l.layer},
                        {"epochs", l.epochs},
                        {"perturbed", nums(l.precision)},
                        {"seed_floor", nums(l.seedFloor)},
                        {"pairs", l.precisionPairs}});
    parts.push_back({{"backend", part.backend},
                     {"perturbation", part.perturbation},
                     {"words", part.words},
                     {"churn", churnJson(part.churn)},
                     {"mcnemar", mcnemar},
                     {"mcnemar_rejected", rejected},
                     {"paired_t", part.pairedT ? pairedTJson(*part.pairedT) : json()},
                     {"excess",
                      {{"seeds", part.excessSeeds},
                       {"estimate", part.excessSeeds ? num(part.excess.estimate) : json()},
                       {"ci_low", part.excessSeeds ? num(part.excess.ci_low) : json()},
                       {"ci_high", part.excessSeeds ? num(part.excess.ci_high) : json()}}},
                     {"layers", layers}});
  }
  return {{"reference", c.reference},
          {"of_pair_reference", c.ofPairReference},
          {"headline", c.headline.empty() ? json() : json(c.headline)},
          {"parts", parts}};
}

}  // namespace

json divergenceJson(const DivergenceReport& r, const DivergenceOptions& options) {
  json j = {
      {"a", r.a},
      {"b", r.b},
      {"alpha", options.alpha},
      {"tail", stats::tailName(options.tail)},
      {"bootstrap", {{"resamples", options.bootstrap.resamples}, {"seed", options.bootstrap.seed}}},
      {"backends", r.backends},
      {"class_names", r.classNames},
      {"class_grouping",
       r.grouping == ClassGrouping::TokenFrequencyBands ? "token_frequency_bands" : "classes"},
      {"weights_kept", r.weightsKept},
      {"notes", r.notes}};
  json matrix = json::array();
  for (const ChurnCell& c : r.churnMatrix) {
    json cellJson = churnJson(c.churn);
    cellJson["row"] = c.row;
    cellJson["column"] = c.column;
    matrix.push_back(cellJson);
  }
  j["churn_matrix"] = matrix;
  if (r.churn) {
    j["headline"] = r.churn->headline;
    j["precision_churn"] = churnJson(r.churn->precision);
    j["seed_churn"] = churnJson(r.churn->seed_floor);
    const double ratio = r.churn->seed_to_precision_ratio;  // +inf: the precision changes none
    j["seed_to_precision_ratio"] = std::isinf(ratio) ? json("inf") : num(ratio);
  } else {
    j["headline"] = nullptr;
  }
  json mcnemar = json::array();
  for (const stats::SeedPairMcNemar& m : r.mcnemar) {
    mcnemar.push_back({{"seed", m.seed},
                       {"only_a_correct", m.test.only_first_correct},
                       {"only_b_correct", m.test.only_second_correct},
                       {"statistic", m.test.statistic},
                       {"p_value", num(m.test.p_value)},
                       {"p_holm", num(m.p_holm)},
                       {"rejected", m.rejected}});
  }
  j["mcnemar"] = mcnemar;
  j["paired_seeds"] = r.pairedSeeds;
  j["pairing_note"] = kPairingNote;
  j["paired_t"] = r.pairedT ? pairedTJson(*r.pairedT) : json();
  j["wilcoxon"] = r.wilcoxon ? wilcoxonJson(*r.wilcoxon) : json();
  j["welch"] = r.welch ? welchJson(*r.welch) : json();
  json classes = json::array();
  for (const ClassRow& c : r.classes) {
    classes.push_back({{"index", c.classIndex},
                       {"name", c.className},
                       {"members", c.members},
                       {"examples", c.examples},
                       {"mean_a", num(c.meanA)},
                       {"mean_b", num(c.meanB)},
                       {"mean_diff", num(c.difference.welch.mean_diff)},
                       {"ci_low", num(c.difference.welch.ci_low)},
                       {"ci_high", num(c.difference.welch.ci_high)},
                       {"p_value", num(c.difference.welch.p_value)},
                       {"p_holm", num(c.difference.p_holm)},
                       {"sd_reference", num(c.difference.sd_reference)},
                       {"beyond_seed_noise", c.difference.beyond_seed_noise}});
  }
  j["classes"] = classes;
  json layers = json::array();
  for (const LayerDivergence& l : r.layers) {
    layers.push_back({{"layer", l.layer},
                      {"epochs", l.epochs},
                      {"precision", nums(l.precision)},
                      {"seed_floor", nums(l.seedFloor)},
                      {"precision_pairs", l.precisionPairs},
                      {"seed_pairs", l.seedPairs}});
  }
  j["layers"] = layers;
  j["chaos"] = r.chaos ? chaosJson(*r.chaos) : json();
  return j;
}

std::vector<std::string> writeDivergenceCsvs(const std::vector<DivergenceReport>& reports,
                                             const std::string& runsCsvPath) {
  std::vector<std::string> written;
  if (reports.empty()) return written;
  std::vector<std::vector<std::string>> churn = {
      {"row", "column", "kind", "pairs", "churn", "ci_low", "ci_high"}};
  for (const ChurnCell& c : reports.front().churnMatrix) {
    churn.push_back({c.row, c.column, c.row == c.column ? "seed" : "precision",
                     std::to_string(c.churn.pairs), csvCell(c.churn.mean),
                     csvCell(c.churn.ci.ci_low), csvCell(c.churn.ci.ci_high)});
  }
  std::vector<std::vector<std::string>> summary = {
      {"a", "b", "item", "n", "estimate", "ci_low", "ci_high", "statistic", "p_value", "text"}};
  std::vector<std::vector<std::string>> mcnemar = {
      {"a", "b", "seed", "only_a_correct", "only_b_correct", "p_value", "p_holm", "rejected"}};
  std::vector<std::vector<std::string>> classes = {
      {"a", "b", "class_index", "class_name", "mean_a", "mean_b", "mean_diff", "ci_low", "ci_high",
       "p_value", "p_holm", "sd_reference", "beyond_seed_noise", "members"}};
  std::vector<std::vector<std::string>> weights = {
      {"a", "b", "layer", "epoch", "precision", "seed_floor", "precision_pairs", "seed_pairs"}};
  std::set<std::string> chaosWritten;  // a floor shared by several pairs: its tables once
  for (const DivergenceReport& r : reports) {
    const auto add = [&](const std::string& item, std::size_t n, double estimate, double low,
                         double high, double statistic, double p, const std::string& text) {
      summary.push_back({r.a, r.b, item, std::to_string(n), csvCell(estimate), csvCell(low),
                         csvCell(high), csvCell(statistic), csvCell(p), text});
    };
    const double nan = std::nan("");
    if (r.churn) {
      add("headline", 0, nan, nan, nan, nan, nan, r.churn->headline);
      const auto& p = r.churn->precision;
      const auto& s = r.churn->seed_floor;
      add("precision_churn", p.pairs, p.mean, p.ci.ci_low, p.ci.ci_high, nan, nan, "");
      add("seed_churn_of_" + r.b, s.pairs, s.mean, s.ci.ci_low, s.ci.ci_high, nan, nan, "");
    }
    if (r.pairedT)
      add("paired_t", r.pairedT->n, r.pairedT->mean_diff, r.pairedT->ci_low, r.pairedT->ci_high,
          r.pairedT->t, r.pairedT->p_value, kPairingNote);
    if (r.wilcoxon)
      add("wilcoxon", r.wilcoxon->n, nan, nan, nan, r.wilcoxon->statistic, r.wilcoxon->p_value,
          r.wilcoxon->exact ? "exact" : "normal approximation");
    if (r.welch)
      add("welch", r.welch->n_a + r.welch->n_b, r.welch->mean_diff, r.welch->ci_low,
          r.welch->ci_high, r.welch->t, r.welch->p_value, "unpaired: every completed run");
    if (r.chaos) {
      if (!r.chaos->headline.empty())
        add("chaos_headline", 0, nan, nan, nan, nan, nan, r.chaos->headline);
      for (const ChaosFloorPart& part : r.chaos->parts) {
        const auto& c = part.churn;
        add("chaos_churn_of_" + part.backend, c.pairs, c.mean, c.ci.ci_low, c.ci.ci_high, nan, nan,
            part.words + " of " + r.chaos->reference);
        if (part.excessSeeds > 0)
          add("churn_beyond_" + part.backend, part.excessSeeds, part.excess.estimate,
              part.excess.ci_low, part.excess.ci_high, nan, nan,
              "precision churn minus this perturbation's, per seed");
        if (part.pairedT)
          add("chaos_paired_t_" + part.backend, part.pairedT->n, part.pairedT->mean_diff,
              part.pairedT->ci_low, part.pairedT->ci_high, part.pairedT->t, part.pairedT->p_value,
              "final accuracy, perturbed - " + r.chaos->reference);
        if (!chaosWritten.insert(part.backend).second) continue;
        for (const stats::SeedPairMcNemar& m : part.mcnemar)
          mcnemar.push_back({part.backend, r.chaos->reference, std::to_string(m.seed),
                             std::to_string(m.test.only_first_correct),
                             std::to_string(m.test.only_second_correct), csvCell(m.test.p_value),
                             csvCell(m.p_holm), m.rejected ? "yes" : "no"});
        for (const LayerDivergence& l : part.layers)
          for (std::size_t e = 0; e < l.epochs.size(); ++e)
            weights.push_back({part.backend, r.chaos->reference, l.layer,
                               std::to_string(l.epochs[e]), csvCell(l.precision[e]),
                               csvCell(l.seedFloor[e]), std::to_string(l.precisionPairs),
                               std::to_string(l.seedPairs)});
      }
    }
    for (const std::string& note : r.notes) add("note", 0, nan, nan, nan, nan, nan, note);
    for (const stats::SeedPairMcNemar& m : r.mcnemar) {
      mcnemar.push_back({r.a, r.b, std::to_string(m.seed),
                         std::to_string(m.test.only_first_correct),
                         std::to_string(m.test.only_second_correct), csvCell(m.test.p_value),
                         csvCell(m.p_holm), m.rejected ? "yes" : "no"});
    }
    for (const ClassRow& c : r.classes) {
      const stats::ClassDifference& d = c.difference;
      classes.push_back({r.a, r.b, std::to_string(c.classIndex), c.className, csvCell(c.meanA),
                         csvCell(c.meanB), csvCell(d.welch.mean_diff), csvCell(d.welch.ci_low),
                         csvCell(d.welch.ci_high), csvCell(d.welch.p_value), csvCell(d.p_holm),
                         csvCell(d.sd_reference), d.beyond_seed_noise ? "yes" : "no", c.members});
    }
    for (const LayerDivergence& l : r.layers) {
      for (std::size_t e = 0; e < l.epochs.size(); ++e) {
        weights.push_back({r.a, r.b, l.layer, std::to_string(l.epochs[e]), csvCell(l.precision[e]),
                           csvCell(l.seedFloor[e]), std::to_string(l.precisionPairs),
                           std::to_string(l.seedPairs)});
      }
    }
  }
  for (const auto& [suffix, rows] :
       {std::pair{"-divergence-churn", &churn}, std::pair{"-divergence-summary", &summary},
        std::pair{"-divergence-mcnemar", &mcnemar}, std::pair{"-divergence-classes", &classes},
        std::pair{"-divergence-weights", &weights}}) {
    const std::string path = pathBesideRunsCsv(runsCsvPath, suffix);
    writeCsvRows(path, *rows);
    written.push_back(path);
  }
  // A language model's samples: the same for every pair with the same reference, written once
  // (against the first report's reference).
  if (const auto& samples = reports.front().samples; samples && !samples->seeds.empty()) {
    std::vector<std::vector<std::string>> rows = {{"reference", "seed", "backend", "run", "prompt",
                                                   "temperature", "first_difference", "text"}};
    for (const SeedSamples& s : samples->seeds) {
      for (const BackendSample& b : s.backends) {
        rows.push_back({samples->reference, std::to_string(s.seed), b.backend,
                        std::to_string(b.runId), samples->prompt, csvCell(samples->temperature),
                        b.firstDifference ? std::to_string(*b.firstDifference) : "", b.text});
      }
    }
    const std::string path = pathBesideRunsCsv(runsCsvPath, "-divergence-samples");
    writeCsvRows(path, rows);
    written.push_back(path);
  }
  return written;
}

DivergenceFiles writeDivergenceReport(const ResultsStore& store, const std::string& runsCsvPath,
                                      const ReportOptions& options) {
  DivergenceFiles files;
  std::vector<std::pair<std::string, std::string>> pairs;  // (A, B)
  if (!options.a.empty() && !options.b.empty()) {
    pairs.emplace_back(options.a, options.b);
  } else {
    std::vector<std::string> backends;
    for (const auto& [name, accuracies] : finalAccuraciesByBackend(store)) backends.push_back(name);
    const std::string reference =
        options.reference.empty() ? referenceBackend(backends) : options.reference;
    // The chaos floor's perturbed runs are reported with each pair (its chaos block), not as
    // pairs of their own, unless asked for by name.
    std::set<std::string> perturbed;
    if (options.tests.empty() && store.hasStudy())
      for (const BackendEntry& e : store.loadStudySpec().backends)
        if (e.perturbation != Perturbation::None) perturbed.insert(e.name);
    for (const std::string& name : options.tests.empty() ? backends : options.tests)
      if (name != reference && !perturbed.count(name)) pairs.emplace_back(name, reference);
  }
  if (pairs.empty()) {
    files.skipped = "No divergence tables: the study has a single backend.";
    return files;
  }
  const std::string nothingStored =
      "No divergence tables: " + store.path() +
      " holds no per-example predictions or weight snapshots (runs trained before ParityLab "
      "stored them, or imported runs).";
  // Found with one query instead of analysing every pair over every run (200,000 imported runs:
  // seconds per pair) to find nothing.
  if (!store.holdsPredictionsOrWeights()) {
    files.skipped = nothingStored;
    return files;
  }
  std::vector<DivergenceReport> reports;
  for (const auto& [a, b] : pairs) {
    DivergenceOptions o;
    o.a = a;
    o.b = b;
    o.alpha = options.alpha;
    o.tail = options.tail;
    reports.push_back(analyseDivergence(store, o));
  }
  const bool anything = std::any_of(reports.begin(), reports.end(), [](const DivergenceReport& r) {
    return !r.churnMatrix.empty() || !r.layers.empty();
  });
  if (!anything) {
    files.skipped = nothingStored;
    return files;
  }
  files.written = writeDivergenceCsvs(reports, runsCsvPath);
  return files;
}

}  // namespace paritylab::study
