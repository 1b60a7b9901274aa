#include "app/cli/stats_sequential.h"

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/command_registry.h"
#include "core/input/json_input.h"
#include "core/study/analysis/sequential_analysis.h"

namespace paritylab::cli {
namespace {

const char* decisionName(stats::SequentialDecision d) {
  switch (d) {
    case stats::SequentialDecision::Continue:
      return "continue";
    case stats::SequentialDecision::Equivalent:
      return "equivalent";
    case stats::SequentialDecision::Different:
      return "different";
    case stats::SequentialDecision::Inconclusive:
      return "inconclusive";
  }
  return "";
}

}  // namespace

void printSequentialStats(const std::string& db, bool json) {
  study::SequentialAnalysis s;
  try {
    auto store = study::ResultsStore::openReadOnly(db);
    if (!store->hasStudy()) throw CommandError(db + ": holds imported runs, not a study");
    const study::StudySpec spec = store->loadStudySpec();
    if (!spec.sequential)
      throw CommandError(db + ": the study '" + spec.name +
                         "' has no sequential design (\"sequential\" in its spec)");
    s = study::analyseSequential(spec, store->loadRuns());
  } catch (const std::invalid_argument& e) {
    throw CommandError(e.what());
  }
  if (json) {
    using input::jsonNumber;
    nlohmann::json looks = nlohmann::json::array();
    for (std::size_t k = 0; k < s.plan.looks.size(); ++k) {
      nlohmann::json look = {{"look", k + 1},
                             {"seeds", s.plan.looks[k]},
                             {"information", s.plan.equivalence.information[k]},
                             {"equivalence_boundary_p", s.plan.equivalence.nominalP[k]},
                             {"difference_boundary_p", 2 * s.plan.difference.nominalP[k]},
                             {"made", false}};
      for (const stats::SequentialLook& l : s.looks) {
        if (l.look != k) continue;
        look["made"] = true;
        look["mean_diff"] = jsonNumber(l.tost.mean_diff);
        look["tost_p"] = jsonNumber(l.tost.p_value);
        look["welch_p"] = jsonNumber(l.pDifference);
        look["decision"] = decisionName(l.decision);
      }
      looks.push_back(look);
    }
    const stats::SequentialDesign& d = s.plan.design;
    nlohmann::json j = {
        {"a", s.a},
        {"b", s.b},
        {"metric", std::string(study::comparedMetricName(s.metric))},
        {"margin", d.margin},
        {"alpha", d.alpha},
        {"max_seeds", d.maxSeeds},
        {"spending", d.spending == stats::AlphaSpending::Pocock ? "pocock" : "obrien-fleming"},
        {"looks", looks},
        {"stopped_at_look", s.stoppedAt ? nlohmann::json(*s.stoppedAt + 1) : nlohmann::json()},
        {"decision", s.stoppedAt ? decisionName(s.looks.back().decision) : "continue"},
        {"words", s.words}};
    std::cout << j.dump(2) << "\n";
    return;
  }
  std::printf("  %4s %6s %12s %12s %10s %10s  %s\n", "look", "seeds", "TOST bound", "diff bound",
              "TOST p", "Welch p", "decision");
  for (std::size_t k = 0; k < s.plan.looks.size(); ++k) {
    const stats::SequentialLook* made = nullptr;
    for (const stats::SequentialLook& l : s.looks)
      if (l.look == k) made = &l;
    std::printf("  %4zu %6zu %12.4g %12.4g ", k + 1, s.plan.looks[k],
                s.plan.equivalence.nominalP[k], 2 * s.plan.difference.nominalP[k]);
    if (made)
      std::printf("%10.4g %10.4g  %s\n", made->tost.p_value, made->pDifference,
                  decisionName(made->decision));
    else
      std::printf("%10s %10s  %s\n", "", "", "not made");
  }
  for (const std::string& sentence : s.words) std::printf("%s\n", sentence.c_str());
}

}  // namespace paritylab::cli
