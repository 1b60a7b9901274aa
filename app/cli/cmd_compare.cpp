// `paritylab-cli compare DB --a A --b B [--alpha] [--tail] [--json]`: beyond the mean accuracy,
// does the precision change the model? Churn against the seed's noise floor, McNemar
// per seed-matched pair (Holm), paired t and Wilcoxon beside Welch, the per-class table and the
// weight divergence per layer (the last epoch here; every epoch in --json), and the chaos floor:
// the same figures for the reference perturbed at the level of rounding noise.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "app/cli/command_registry.h"
#include "app/cli/number_options.h"
#include "core/study/analysis/curve_equivalence.h"
#include "core/study/files/divergence_export.h"
#include "core/study/store/results_store.h"

namespace paritylab::cli {
namespace compare_command {

struct CompareArgs {
  std::string db, a, b, tail = "two-sided";
  double alpha = 0.05;
  bool json = false;
};

// "1.9%" with two decimals, "n/a" when undefined.
std::string percent(double fraction) {
  if (!std::isfinite(fraction)) return "n/a";
  char text[32];
  std::snprintf(text, sizeof text, "%.2f%%", 100 * fraction);
  return text;
}

void printChurn(const study::DivergenceReport& r, double alpha) {
  if (r.churn) {
    std::printf("%s\n", r.churn->headline.c_str());
    const auto& p = r.churn->precision;
    const auto& s = r.churn->seed_floor;
    std::printf("  precision churn %s vs %s: %s, %g%% CI [%s, %s] over %zu seed-matched pairs\n",
                r.a.c_str(), r.b.c_str(), percent(p.mean).c_str(), 100 * (1 - alpha),
                percent(p.ci.ci_low).c_str(), percent(p.ci.ci_high).c_str(), p.pairs);
    std::printf("  seed churn of %s: %s, %g%% CI [%s, %s] over %zu pairs of seeds\n", r.b.c_str(),
                percent(s.mean).c_str(), 100 * (1 - alpha), percent(s.ci.ci_low).c_str(),
                percent(s.ci.ci_high).c_str(), s.pairs);
  }
  if (r.backends.empty()) return;
  int width = 12;  // as wide as the longest backend name
  for (const std::string& name : r.backends) width = std::max(width, int(name.size()));
  std::printf(
      "\nChurn matrix (%% of %s that differ; diagonal: two seeds of the "
      "row's backend, off-diagonal: the same seed)\n  %-*s",
      r.predictions.c_str(), width, "");
  for (const std::string& column : r.backends) std::printf(" %*s", width, column.c_str());
  std::printf("\n");
  for (std::size_t i = 0; i < r.backends.size(); ++i) {
    std::printf("  %-*s", width, r.backends[i].c_str());
    for (std::size_t j = 0; j < r.backends.size(); ++j)
      std::printf(" %*s", width,
                  percent(r.churnMatrix[i * r.backends.size() + j].churn.mean).c_str());
    std::printf("\n");
  }
}

// The chaos floor beside the seed floor: what rounding-level perturbations of the reference change.
void printChaos(const study::DivergenceReport& r, double alpha) {
  if (!r.chaos) return;
  const study::ChaosFloorReport& c = *r.chaos;
  std::printf("\nChaos floor: %s perturbed at the level of rounding noise, at the same seeds\n",
              c.reference.c_str());
  if (!c.headline.empty()) std::printf("  %s\n", c.headline.c_str());
  for (const study::ChaosFloorPart& part : c.parts) {
    const auto& ch = part.churn;
    std::size_t rejected = 0;
    for (const auto& m : part.mcnemar) rejected += m.rejected ? 1 : 0;
    std::printf(
        "  %s (%s): churn %s, %g%% CI [%s, %s] over %zu pairs; McNemar rejects %zu of %zu\n",
        part.backend.c_str(), part.words.c_str(), percent(ch.mean).c_str(), 100 * (1 - alpha),
        percent(ch.ci.ci_low).c_str(), percent(ch.ci.ci_high).c_str(), ch.pairs, rejected,
        part.mcnemar.size());
    if (part.excessSeeds > 0)
      std::printf("    precision churn beyond it: %+.2f points, CI [%+.2f, %+.2f] over %zu seeds\n",
                  100 * part.excess.estimate, 100 * part.excess.ci_low, 100 * part.excess.ci_high,
                  part.excessSeeds);
    if (part.pairedT)
      std::printf("    final accuracy, perturbed - %s: %+.4f points, CI [%+.4f, %+.4f], p = %.5g\n",
                  c.reference.c_str(), 100 * part.pairedT->mean_diff, 100 * part.pairedT->ci_low,
                  100 * part.pairedT->ci_high, part.pairedT->p_value);
    for (const study::LayerDivergence& l : part.layers)
      std::printf("    %-24s perturbed %-10.4g seed floor %.4g (epoch %d)\n", l.layer.c_str(),
                  l.precision.back(), l.seedFloor.back(), l.epochs.back());
  }
}

void printTests(const study::DivergenceReport& r, double alpha) {
  if (!r.mcnemar.empty()) {
    std::printf("\nMcNemar per seed (exact; only A right / only B right; Holm across %zu pairs)\n",
                r.mcnemar.size());
    for (const auto& m : r.mcnemar) {
      std::printf("  seed %-6llu %6zu / %-6zu p = %.4g, Holm p = %.4g%s\n",
                  static_cast<unsigned long long>(m.seed), m.test.only_first_correct,
                  m.test.only_second_correct, m.test.p_value, m.p_holm,
                  m.rejected ? "  (the models' errors differ)" : "");
    }
  }
  std::printf("\nFinal accuracy, %s - %s (%zu seed-matched pairs; %s)\n", r.a.c_str(), r.b.c_str(),
              r.pairedSeeds.size(), study::kPairingNote);
  if (r.pairedT) {
    std::printf("  paired t:  %+.4f points, %g%% CI [%+.4f, %+.4f], t = %.4f, df = %g, p = %.5g\n",
                100 * r.pairedT->mean_diff, 100 * (1 - alpha), 100 * r.pairedT->ci_low,
                100 * r.pairedT->ci_high, r.pairedT->t, r.pairedT->df, r.pairedT->p_value);
  }
  if (r.wilcoxon) {
    std::printf("  Wilcoxon signed-rank: statistic %g, p = %.5g (%s)\n", r.wilcoxon->statistic,
                r.wilcoxon->p_value, r.wilcoxon->exact ? "exact" : "normal approximation");
  }
  if (r.welch) {
    std::printf(
        "  Welch (unpaired, n = %zu and %zu): %+.4f points, %g%% CI [%+.4f, %+.4f], "
        "p = %.5g\n",
        r.welch->n_a, r.welch->n_b, 100 * r.welch->mean_diff, 100 * (1 - alpha),
        100 * r.welch->ci_low, 100 * r.welch->ci_high, r.welch->p_value);
  }
}

void printClassesAndWeights(const study::DivergenceReport& r, double alpha) {
  if (!r.classes.empty()) {
    const bool bands = r.grouping == study::ClassGrouping::TokenFrequencyBands;
    std::printf(
        "\nPer %s (accuracy%s; difference %s - %s in points with its %g%% Welch CI; Holm "
        "over the %s)\n  %-18s %9s %9s %8s %20s %9s\n",
        bands ? "token-frequency band" : "class",
        bands ? " at the positions whose target is in the band" : "", r.a.c_str(), r.b.c_str(),
        100 * (1 - alpha), bands ? "bands" : "classes", bands ? "band" : "class", r.a.c_str(),
        r.b.c_str(), "diff", "CI", "Holm p");
    for (const study::ClassRow& c : r.classes) {
      const auto& w = c.difference.welch;
      char ci[48] = "n/a (no variance)", holm[32] = "n/a";
      if (std::isfinite(w.ci_low) && std::isfinite(w.ci_high))
        std::snprintf(ci, sizeof ci, "[%+.2f, %+.2f]", 100 * w.ci_low, 100 * w.ci_high);
      if (std::isfinite(c.difference.p_holm))
        std::snprintf(holm, sizeof holm, "%.4g", c.difference.p_holm);
      std::printf("  %-18s %9s %9s %+8.2f %20s %9s%s\n", c.className.c_str(),
                  percent(c.meanA).c_str(), percent(c.meanB).c_str(), 100 * w.mean_diff, ci, holm,
                  c.difference.beyond_seed_noise ? "  beyond the seed noise" : "");
    }
    for (const study::ClassRow& c : r.classes)
      if (!c.members.empty()) std::printf("  %s: %s\n", c.className.c_str(), c.members.c_str());
  }
  if (!r.layers.empty()) {
    const int epoch = r.layers.front().epochs.back();
    std::printf(
        "\nWeight divergence per layer at epoch %d (||W_A - W_B|| / ||W_B||: %s vs %s at "
        "the same seed; floor: two seeds of %s)\n",
        epoch, r.a.c_str(), r.b.c_str(), r.b.c_str());
    for (const study::LayerDivergence& l : r.layers)
      std::printf("  %-24s precision %-10.4g seed floor %.4g\n", l.layer.c_str(),
                  l.precision.back(), l.seedFloor.back());
  }
  if (!r.notes.empty()) {
    std::printf("\nNotes:\n");
    for (const std::string& note : r.notes) std::printf("  - %s\n", note.c_str());
  }
}

nlohmann::json bandJson(const stats::CurveBandResult& r, const std::vector<std::int64_t>& at) {
  nlohmann::json j;
  j["points"] = at.size();
  j["first_exit"] = r.firstExit ? nlohmann::json(at[*r.firstExit]) : nlohmann::json(nullptr);
  j["fraction_outside"] = r.fractionOutside;
  j["p_value"] = r.pValue;
  j["critical_value"] = r.criticalValue;
  j["permutations"] = r.permutations;
  j["exhaustive"] = r.exhaustive;
  j["can_exit"] = r.canExit;
  return j;
}

// The simultaneous band of the reference's seeds around the compared backend's curves.
nlohmann::json curvesJson(const study::CurveEquivalence& e) {
  nlohmann::json j;
  j["reference"] = e.reference;
  j["backend"] = e.backend;
  j["alpha"] = e.alpha;
  j["runs"] = {{e.reference, e.runsReference}, {e.backend, e.runsBackend}};
  j["train_loss_by_step"] = e.trainLoss ? bandJson(*e.trainLoss, e.steps) : nullptr;
  const std::vector<std::int64_t> epochs(e.epochs.begin(), e.epochs.end());
  j["metric"] = e.metric;
  j["metric_by_epoch"] = e.testMetric ? bandJson(*e.testMetric, epochs) : nullptr;
  j["headline"] = e.headline;
  j["notes"] = e.notes;
  return j;
}

void runCompare(const CompareArgs& a) {
  study::DivergenceOptions options;
  options.a = a.a;
  options.b = a.b;
  options.alpha = a.alpha;
  options.tail = a.tail == "less"      ? stats::Tail::Less
                 : a.tail == "greater" ? stats::Tail::Greater
                                       : stats::Tail::TwoSided;
  study::DivergenceReport report;
  study::CurveEquivalence curves;
  try {
    const auto store = study::ResultsStore::openReadOnly(a.db);
    report = study::analyseDivergence(*store, options);
    curves = study::analyseCurveEquivalence(*store, a.b, a.a, a.alpha);
  } catch (const std::exception& ex) {
    throw CommandError(ex.what());
  }
  if (a.json) {
    nlohmann::json j = study::divergenceJson(report, options);
    j["curve_equivalence"] = curvesJson(curves);
    std::cout << j.dump(2) << "\n";
    return;
  }
  std::printf("Divergence of %s against %s (%s), alpha %g\n", a.a.c_str(), a.b.c_str(),
              a.db.c_str(), a.alpha);
  printChurn(report, a.alpha);
  printChaos(report, a.alpha);
  printTests(report, a.alpha);
  printClassesAndWeights(report, a.alpha);
  std::printf("\nCurves, step by step (permutation max-t band; docs/curve-equivalence.md)\n  %s\n",
              curves.headline.c_str());
}

const CommandRegistration reg{
    "compare", 72, [](CLI::App& root) {
      auto* cmd = root.add_subcommand(
          "compare",
          "Does the precision change the model? Churn against the seed's noise, McNemar, paired "
          "tests, per-class accuracy and weight divergence of two backends");
      auto a = std::make_shared<CompareArgs>();
      cmd->add_option("db", a->db, "Results database")->required();
      cmd->add_option("--a", a->a, "The backend examined")->required();
      cmd->add_option("--b", a->b, "The reference (its seed-to-seed churn is the noise floor)")
          ->required();
      addRealOption(cmd, "--alpha", a->alpha, {0, 1, true, true},
                    "Significance level (McNemar and per-class Holm, CIs at 1 - alpha)");
      cmd->add_option("--tail", a->tail, "two-sided | less | greater (paired and Welch tests)")
          ->check(CLI::IsMember({"two-sided", "less", "greater"}));
      cmd->add_flag("--json", a->json, "Print a JSON object (weight divergence at every epoch)");
      cmd->callback([a] { runCompare(*a); });
    }};

}  // namespace compare_command
}  // namespace paritylab::cli
