// `paritylab-cli report DB --csv FILE [--charts DIR] [--xray FILE]`: runs CSV + per-backend summary
// and tests.

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "app/cli/command_registry.h"
#include "core/study/study_report.h"
#include "core/study/xray_rows.h"

#if defined(PARITYLAB_HAS_UI) && __has_include("ui/report_charts.h")
#include "ui/report_charts.h"
#define PARITYLAB_REPORT_CHARTS 1
#endif

namespace paritylab::cli {
namespace {

struct ReportArgs {
  std::string db, csv, charts, xray;
  double alpha = 0.05;
};

void runReport(const ReportArgs& a) {
  try {
    auto store = study::ResultsStore::open(a.db);
    std::string summary = study::writeReport(*store, a.csv, a.alpha);
    std::cout << "Wrote " << a.csv << " and " << summary << "\n";
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
  if (!ui::renderReportCharts(a.db, a.charts, &error)) throw CommandError(a.charts + ": " + error);
  std::cout << "Wrote charts to " << a.charts << "\n";
#else
  throw CommandError("--charts needs a build with the desktop app (PARITYLAB_BUILD_UI=ON)");
#endif
}

const CommandRegistration reg{
    "report", 60, [](CLI::App& root) {
      auto* cmd =
          root.add_subcommand("report", "Write the CSV report (and charts) of a results database");
      auto a = std::make_shared<ReportArgs>();
      cmd->add_option("db", a->db, "Results database")->required();
      cmd->add_option("--csv", a->csv, "Runs CSV to write (summary goes to <name>-summary.csv)")
          ->required();
      cmd->add_option("--charts", a->charts, "Directory for PNG/SVG charts");
      cmd->add_option("--xray", a->xray,
                      "X-ray CSV to write (long form: run, step, site, operand, statistics)");
      cmd->add_option("--alpha", a->alpha, "Significance level")->check(CLI::Range(1e-9, 0.999999));
      cmd->callback([a] { runReport(*a); });
    }};

}  // namespace
}  // namespace paritylab::cli
