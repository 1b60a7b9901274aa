// `paritylab-cli report DB --csv FILE [--a NAME --b NAME | --reference NAME]
// [--metric M] [--test welch|student|mann-whitney] [--tail ...] [--alpha A] [--margin M]
// [--curves FILE.csv] [--signals FILE.csv] [--xray FILE.csv] [--charts DIR]`: the runs CSV, its
// summary with the chosen comparisons (the Statistics tab's choices), the divergence tables and
// the per-epoch curves beside them, the per-step curves, the per-step early warnings, the X-ray
// samples and the charts. Every file written is named.

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <memory>

#include "app/cli/command_registry.h"
#include "app/cli/number_options.h"
#include "core/input/input_limits.h"
#include "core/nn/training_choices.h"
#include "core/study/files/curves_export.h"
#include "core/study/files/report_files.h"
#include "core/study/files/signals_export.h"
#include "core/study/files/study_report.h"
#include "core/study/files/sweep_export.h"
#include "core/study/files/xray_rows.h"

#if defined(PARITYLAB_HAS_UI) && __has_include("ui/shell/report_charts.h")
#include "ui/shell/report_charts.h"
#define PARITYLAB_REPORT_CHARTS 1
#endif

namespace paritylab::cli {
namespace report_command {

struct ReportArgs {
  std::string db, csv, charts, curves, signalsCsv, xray;
  std::string a, b, reference, statTest = "welch", tail = "two-sided", metric;
  double alpha = 0.05;
  std::optional<double> margin;
};

bool samePath(const std::string& x, const std::string& y) {
  std::error_code ec;
  if (std::filesystem::equivalent(x, y, ec)) return true;
  const auto cx = std::filesystem::weakly_canonical(x, ec);
  return !ec && cx == std::filesystem::weakly_canonical(y, ec) && !ec;
}

// Two outputs naming one file would keep only the last one written, and an output naming the
// database would replace it: refused before anything is written.
void requireDistinctFiles(const ReportArgs& a) {
  std::vector<std::pair<std::string, std::string>> files;  // what, path
  files.emplace_back("the results database", a.db);
  if (!a.csv.empty()) {
    files.emplace_back("--csv", a.csv);
    files.emplace_back("--csv's summary", study::summaryPathFor(a.csv));
    const std::filesystem::path p(a.csv);
    for (const char* table : {"churn", "summary", "mcnemar", "classes", "weights"}) {
      files.emplace_back(
          std::string("--csv's divergence ") + table,
          (p.parent_path() / (p.stem().string() + "-divergence-" + table + p.extension().string()))
              .string());
    }
    for (const std::string& sweep : study::sweepCsvPaths(a.csv))
      files.emplace_back("--csv's sweep table", sweep);
  }
  if (!a.curves.empty()) files.emplace_back("--curves", a.curves);
  if (!a.signalsCsv.empty()) files.emplace_back("--signals", a.signalsCsv);
  if (!a.xray.empty()) files.emplace_back("--xray", a.xray);
  for (std::size_t i = 1; i < files.size(); ++i) {
    for (std::size_t k = 0; k < i; ++k) {
      if (files[i].first.rfind("--csv's", 0) == 0 && files[k].first.rfind("--csv", 0) == 0)
        continue;  // the report's own files, distinct by construction
      if (samePath(files[i].second, files[k].second)) {
        throw CommandError(files[i].first + " '" + files[i].second + "' is the same file as " +
                           files[k].first + " '" + files[k].second + "'" +
                           ": give each output its own file");
      }
    }
  }
}

void runReport(const ReportArgs& a) {
  if (a.csv.empty() && a.curves.empty() && a.signalsCsv.empty() && a.xray.empty() &&
      a.charts.empty())
    throw CommandError(
        "nothing to write: give --csv FILE, --curves FILE, --signals FILE, --xray FILE or "
        "--charts DIR");
  requireDistinctFiles(a);
  if (a.a.empty() != a.b.empty()) throw CommandError("--a and --b go together (A against B)");
  if (!a.a.empty() && !a.reference.empty())
    throw CommandError("give either --a/--b (a pair) or --reference (all against it)");
  study::ReportOptions options;
  options.a = a.a;
  options.b = a.b;
  options.reference = a.reference;
  options.test = a.statTest == "student"        ? study::ReportTest::Student
                 : a.statTest == "mann-whitney" ? study::ReportTest::MannWhitney
                                                : study::ReportTest::Welch;
  options.tail = a.tail == "less"      ? stats::Tail::Less
                 : a.tail == "greater" ? stats::Tail::Greater
                                       : stats::Tail::TwoSided;
  options.alpha = a.alpha;
  options.margin = a.margin;
  if (!a.metric.empty()) options.metric = study::comparedMetricNamed(a.metric);
  try {
    auto store = study::ResultsStore::openReadOnly(a.db);
    if (!a.csv.empty()) {
      // Runs, summary and comparisons, the divergence tables and the per-epoch curves: the same
      // files as the app's Export all.
      const study::ReportFiles files = study::writeReportFiles(*store, a.csv, options);
      for (const study::ReportFile& file : files.written)
        std::cout << "Wrote " << file.path << " (" << file.what << ")\n";
      if (!files.skipped.empty()) std::cout << files.skipped << "\n";
    }
    if (!a.curves.empty()) {
      const std::size_t rows = study::writeStepCurves(*store, a.curves);
      std::cout << "Wrote " << a.curves << " (per-step curves, " << rows << " rows)\n";
    }
    if (!a.signalsCsv.empty()) {
      const std::size_t rows = study::writeStepSignals(*store, a.signalsCsv);
      std::cout << "Wrote " << a.signalsCsv << " (per-step early warnings, " << rows << " rows"
                << (rows == 0 ? "; the study's runs stored none" : "") << ")\n";
    }
    if (!a.xray.empty()) {
      const std::size_t rows = study::writeXrayCsv(*store, a.xray);
      std::cout << "Wrote " << a.xray << " (" << rows << " X-ray rows"
                << (rows == 0 ? "; the study ran without \"xray\"" : "") << ")\n";
    }
  } catch (const std::exception& ex) {
    throw CommandError(ex.what());
  }
  if (a.charts.empty()) return;
#ifdef PARITYLAB_REPORT_CHARTS
  std::string error;
  std::vector<std::string> written;
  // The Divergence charts compare --a with --b (or the first backend with --reference).
  if (!ui::renderReportCharts(a.db, a.charts, &error, &written,
                              {a.a, a.b.empty() ? a.reference : a.b, a.alpha}))
    throw CommandError(a.charts + ": " + error);
  for (const std::string& file : written) std::cout << "Wrote " << file << "\n";
#else
  throw CommandError("--charts needs a build with the desktop app (PARITYLAB_BUILD_UI=ON)");
#endif
}

const CommandRegistration reg{
    "report", 60, [](CLI::App& root) {
      auto* cmd = root.add_subcommand(
          "report",
          "Write the CSV report, the per-step curves and the charts of a results database");
      auto a = std::make_shared<ReportArgs>();
      cmd->add_option("db", a->db, "Results database")->required();
      cmd->add_option("--csv", a->csv,
                      "Runs CSV to write (beside it: <name>-summary.csv, the divergence tables "
                      "<name>-divergence-*.csv and the per-epoch curves <name>-epochs.csv)");
      cmd->add_option("--curves", a->curves,
                      "Per-step CSV to write (long form: run_id, backend, seed, step, epoch, "
                      "metric, value)");
      cmd->add_option("--signals", a->signalsCsv,
                      "Per-step early warnings CSV to write (long form: run_id, backend, seed, "
                      "step, epoch, signal, layer, value)");
      cmd->add_option("--xray", a->xray,
                      "X-ray CSV to write (long form: run, step, site, operand, statistics)");
      cmd->add_option(
          "--charts", a->charts,
          "Directory for the charts as PNG/SVG (the same ones as the app's Export all)");
      cmd->add_option("--a", a->a, "Compare this backend ...");
      cmd->add_option("--b", a->b, "... against this one (instead of all against a reference)");
      cmd->add_option("--reference", a->reference,
                      "Every other backend against this one, Holm-adjusted (default: cpu-fp32 "
                      "when present, else the first)");
      cmd->add_option("--test", a->statTest, "welch | student | mann-whitney")
          ->check(CLI::IsMember({"welch", "student", "mann-whitney"}));
      cmd->add_option("--tail", a->tail, "two-sided | less | greater")
          ->check(CLI::IsMember({"two-sided", "less", "greater"}));
      addRealOption(cmd, "--alpha", a->alpha, {0, 1, true, true}, "Significance level");
      addRealOption(cmd, "--margin", a->margin, {0, input::kMaxHyperparameter, true},
                    "TOST equivalence margin in the metric's units (accuracy fraction: 0.005 = "
                    "0.5 pt; a loss in nats)");
      cmd->add_option("--metric", a->metric,
                      nn::joinedNames(study::kComparedMetricNames, " | ") +
                          " (default: accuracy; val_loss for a language model's study)")
          ->check(CLI::IsMember(std::vector<std::string>(study::kComparedMetricNames.begin(),
                                                         study::kComparedMetricNames.end())));
      cmd->callback([a] { runReport(*a); });
    }};

}  // namespace report_command
}  // namespace paritylab::cli
