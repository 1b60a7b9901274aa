#include "core/study/study_report.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "core/stats/statistics.h"
#include "core/study/atomic_file.h"
#include "core/study/csv.h"

namespace paritylab::study {

std::string referenceBackend(const std::vector<std::string>& backends) {
  if (std::find(backends.begin(), backends.end(), "cpu-fp32") != backends.end()) return "cpu-fp32";
  return backends.empty() ? "" : backends.front();
}

std::string writeReport(const ResultsStore& store, const std::string& runsCsvPath, double alpha) {
  std::ostringstream out;  // written whole or not at all, below
  CsvWriter w(out);
  w.writeRow({"run_id", "backend", "seed", "status", "epochs", "final_train_loss",
              "final_test_loss", "final_accuracy", "wall_seconds", "diverged_epoch", "source",
              "message"});
  for (const RunRecord& r : store.loadRuns())
    w.writeRow({std::to_string(r.id), r.backend, r.seedGiven ? std::to_string(r.seed) : "",
                std::string(toString(r.status)), std::to_string(r.epochsDone),
                csvNumber(r.finalTrainLoss), csvNumber(r.finalTestLoss), csvNumber(r.finalAccuracy),
                csvNumber(r.wallSeconds), r.divergedEpoch ? std::to_string(r.divergedEpoch) : "",
                r.source, r.message});
  writeFileAtomically(runsCsvPath, out.str());

  std::filesystem::path p(runsCsvPath);
  std::string summaryPath =
      (p.parent_path() / (p.stem().string() + "-summary" + p.extension().string())).string();
  std::ostringstream sout;
  CsvWriter s(sout);
  auto groups = store.finalAccuraciesByBackend();
  s.writeRow({"section", "backend", "reference", "n", "mean", "sd", "min", "max", "ci_low",
              "ci_high", "mean_diff", "t", "df", "p_value", "p_holm", "hedges_g",
              "min_detectable_diff", "runs_needed_for_margin", "verdict"});
  std::vector<std::string> names;
  for (auto& [name, values] : groups) {
    names.push_back(name);
    auto sm = stats::summarize(values, alpha);
    s.writeRow({"summary", name, "", std::to_string(sm.n), csvNumber(sm.mean), csvNumber(sm.sd),
                csvNumber(sm.min), csvNumber(sm.max), csvNumber(sm.ci_low), csvNumber(sm.ci_high),
                "", "", "", "", "", "", "", "", ""});
  }
  std::string ref = referenceBackend(names);
  std::vector<stats::NamedSample> testable;
  for (auto& [name, values] : groups)
    if (values.size() >= 2) testable.push_back({name, values});
  bool refTestable =
      std::any_of(testable.begin(), testable.end(), [&](auto& g) { return g.name == ref; });
  if (refTestable && testable.size() >= 2) {
    for (const auto& c : stats::compareAgainstReference(testable, ref, stats::TTestKind::Welch,
                                                        stats::Tail::TwoSided, alpha)) {
      const auto& t = c.test;
      // What the design could detect (80% power, the Welch test's own alpha and tail): issue 18.
      std::optional<stats::DetectableDifference> detectable;
      if (t.defined && t.se > 0.0) detectable = stats::minimumDetectableDifference(t);
      stats::VerdictInput vi{c.name, c.reference, t, std::nullopt, std::nullopt, detectable};
      std::string verdict = stats::verdict(vi);
      if (t.defined && !std::isnan(c.p_adjusted))
        verdict += c.rejected ? " Holm-adjusted: significant." : " Holm-adjusted: not significant.";
      s.writeRow({"welch", c.name, c.reference, std::to_string(t.n_a), csvNumber(t.mean_a),
                  csvNumber(t.sd_a), "", "", csvNumber(t.ci_low), csvNumber(t.ci_high),
                  csvNumber(t.mean_diff), csvNumber(t.t), csvNumber(t.df), csvNumber(t.p_value),
                  csvNumber(c.p_adjusted), csvNumber(t.hedges_g),
                  detectable ? csvNumber(detectable->difference) : "",
                  "",  // runs_needed_for_margin: the report takes no margin yet
                  verdict});
    }
  }
  writeFileAtomically(summaryPath, sout.str());
  return summaryPath;
}

}  // namespace paritylab::study
