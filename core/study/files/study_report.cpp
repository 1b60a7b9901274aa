#include "core/study/files/study_report.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "core/input/atomic_file.h"
#include "core/input/csv.h"
#include "core/stats/statistics.h"
#include "core/study/analysis/accuracies_by_backend.h"
#include "core/study/files/report_csv.h"

namespace paritylab::study {
namespace {

const char* testName(ReportTest test) {
  switch (test) {
    case ReportTest::Student:
      return "student";
    case ReportTest::MannWhitney:
      return "mann-whitney";
    default:
      return "welch";
  }
}

// One comparison row of the summary, computed as the Statistics tab computes it.
struct ReportRow {
  stats::Comparison comparison;
  std::optional<stats::MannWhitneyResult> mannWhitney;
  double pAdjusted = NAN;  // Holm, all-against-reference mode
  double p() const {
    if (mannWhitney) return mannWhitney->p_value;
    return comparison.t_test && comparison.t_test->defined ? comparison.t_test->p_value : NAN;
  }
};

// The completed runs' accuracies of `name`; a backend the user named (option non-empty) must have
// some, a backend chosen automatically may have none (the study is still running).
std::vector<double> samplesOf(
    const std::vector<std::pair<std::string, std::vector<double>>>& groups, const std::string& name,
    const std::string& option) {
  for (const auto& [n, values] : groups)
    if (n == name) return values;
  if (option.empty()) return {};
  throw std::runtime_error(option + " " + name + ": no completed runs of backend '" + name +
                           "' in the database");
}

}  // namespace

std::string referenceBackend(const std::vector<std::string>& backends) {
  if (std::find(backends.begin(), backends.end(), "cpu-fp32") != backends.end()) return "cpu-fp32";
  for (const std::string& name : backends)  // a sweep's cells: "cpu-fp32 lr=0.01"
    if (name.starts_with("cpu-fp32 ")) return name;
  return backends.empty() ? "" : backends.front();
}

std::string summaryPathFor(const std::string& runsCsvPath) {
  return pathBesideRunsCsv(runsCsvPath, "-summary");
}

std::string writeReport(const ResultsStore& store, const std::string& runsCsvPath,
                        const ReportOptions& options) {
  const ComparedMetric metric = options.metric ? *options.metric : defaultComparedMetric(store);
  const std::string metricName(comparedMetricName(metric));
  auto groups = finalMetricByBackend(store, metric);
  std::vector<std::string> names;
  for (auto& [name, values] : groups) names.push_back(name);

  // The comparisons first: a backend named in the options that is not there is an error before
  // any file is written.
  stats::CompareOptions compare;
  compare.kind =
      options.test == ReportTest::Student ? stats::TTestKind::Student : stats::TTestKind::Welch;
  compare.tail = options.tail;
  compare.alpha = options.alpha;
  compare.margin = options.margin;
  compare.words = metricWords(metric);
  const bool pair = !options.a.empty() && !options.b.empty();
  if (pair && options.a == options.b)
    throw std::runtime_error("--a and --b are both '" + options.a +
                             "': a backend compared with itself says nothing; name two backends");
  std::string reference = pair ? options.b : options.reference;
  if (reference.empty()) reference = referenceBackend(names);
  std::vector<std::string> sides;
  if (pair)
    sides.push_back(options.a);
  else if (!options.tests.empty())
    sides = options.tests;
  else
    for (const std::string& n : names)
      if (n != reference) sides.push_back(n);
  std::vector<ReportRow> rows;
  if (!names.empty()) {
    const std::vector<double> vb = samplesOf(groups, reference,
                                             pair                        ? "--b"
                                             : options.reference.empty() ? ""
                                                                         : "--reference");
    if (vb.empty()) sides.clear();  // nothing finished to compare with yet
    for (const std::string& a : sides) {
      const std::vector<double> va = samplesOf(groups, a,
                                               pair                    ? "--a"
                                               : options.tests.empty() ? ""
                                                                       : "--test");
      ReportRow row;
      row.comparison = stats::compareSamples(a, va, reference, vb, compare);
      if (options.test == ReportTest::MannWhitney && !va.empty() && !vb.empty())
        row.mannWhitney = stats::mannWhitneyU(va, vb, options.tail);
      rows.push_back(std::move(row));
    }
    if (!pair && rows.size() > 1) {
      std::vector<double> ps;
      std::vector<std::size_t> idx;
      for (std::size_t i = 0; i < rows.size(); ++i)
        if (std::isfinite(rows[i].p())) ps.push_back(rows[i].p()), idx.push_back(i);
      const stats::HolmResult holm = stats::holm(ps, options.alpha);
      for (std::size_t k = 0; k < idx.size(); ++k) rows[idx[k]].pAdjusted = holm.adjusted[k];
    }
  }

  std::ostringstream out;  // written whole or not at all (input::writeFileAtomically)
  input::CsvWriter w(out);
  w.writeRow({"run_id", "backend", "seed", "status", "epochs", "final_train_loss",
              "final_test_loss", "final_accuracy", "wall_seconds", "diverged_epoch", "source",
              "message"});
  for (const RunRecord& r : store.loadRuns())
    w.writeRow({std::to_string(r.id), r.backend, r.seedGiven ? std::to_string(r.seed) : "",
                std::string(toString(r.status)), std::to_string(r.epochsDone),
                input::csvNumber(r.finalTrainLoss), input::csvNumber(r.finalTestLoss),
                input::csvNumber(r.finalAccuracy), input::csvNumber(r.wallSeconds),
                r.divergedEpoch ? std::to_string(r.divergedEpoch) : "", r.source, r.message});
  input::writeFileAtomically(runsCsvPath, out.str());

  const std::string summaryPath = summaryPathFor(runsCsvPath);
  std::ostringstream sout;
  input::CsvWriter s(sout);
  s.writeRow({"section",
              "backend",
              "reference",
              "n",
              "mean",
              "sd",
              "min",
              "max",
              "ci_low",
              "ci_high",
              "mean_diff",
              "t",
              "df",
              "p_value",
              "p_holm",
              "hedges_g",
              "alpha",
              "tost_margin",
              "tost_p",
              "min_detectable_diff",
              "runs_needed_for_margin",
              "verdict",
              "metric"});
  for (auto& [name, values] : groups) {
    auto sm = stats::summarize(values, options.alpha);
    s.writeRow({"summary",
                name,
                "",
                std::to_string(sm.n),
                input::csvNumber(sm.mean),
                input::csvNumber(sm.sd),
                input::csvNumber(sm.min),
                input::csvNumber(sm.max),
                input::csvNumber(sm.ci_low),
                input::csvNumber(sm.ci_high),
                "",
                "",
                "",
                "",
                "",
                "",
                input::csvNumber(options.alpha),
                "",
                "",
                "",
                "",
                "",
                metricName});
  }
  for (const ReportRow& row : rows) {
    const stats::Comparison& c = row.comparison;
    const stats::TTestResult t = c.t_test.value_or(stats::TTestResult{});
    const bool defined = c.t_test && t.defined;
    std::string verdict = c.verdict;
    if (row.mannWhitney) {
      const bool sig = row.mannWhitney->p_value < options.alpha;
      verdict = c.name_a + " vs " + c.name_b +
                ": Mann-Whitney p = " + stats::formatP(row.mannWhitney->p_value) +
                (sig ? ": the distributions differ." : ": no significant difference.") +
                " (t-test verdict: " + c.verdict + ")";
    }
    if (std::isfinite(row.pAdjusted))
      verdict += row.pAdjusted <= options.alpha ? " Holm-adjusted: significant."
                                                : " Holm-adjusted: not significant.";
    s.writeRow({testName(options.test),
                c.name_a,
                c.name_b,
                std::to_string(c.n_a),
                defined ? input::csvNumber(t.mean_a) : "",
                defined ? input::csvNumber(t.sd_a) : "",
                "",
                "",
                defined ? input::csvNumber(t.ci_low) : "",
                defined ? input::csvNumber(t.ci_high) : "",
                defined ? input::csvNumber(t.mean_diff) : "",
                defined && !row.mannWhitney ? input::csvNumber(t.t) : "",
                defined && !row.mannWhitney ? input::csvNumber(t.df) : "",
                input::csvNumber(row.p()),
                input::csvNumber(row.pAdjusted),
                defined ? input::csvNumber(t.hedges_g) : "",
                input::csvNumber(options.alpha),
                options.margin ? input::csvNumber(*options.margin) : "",
                c.tost ? input::csvNumber(c.tost->p_value) : "",
                c.detectable ? input::csvNumber(c.detectable->difference) : "",
                c.runs_needed ? std::to_string(c.runs_needed->n_per_group) : "",
                verdict,
                metricName});
  }
  input::writeFileAtomically(summaryPath, sout.str());
  return summaryPath;
}

}  // namespace paritylab::study
