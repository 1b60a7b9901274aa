#pragma once
// Headless rendering of the desktop app's charts for `paritylab-cli report DB --charts DIR`.
// Creates a QApplication on the offscreen Qt platform if none exists (whatever DISPLAY says).

#include <string>
#include <vector>

namespace paritylab::ui {

// The pair the Divergence charts compare: A against the reference B (empty: the Divergence tab's
// default pair, defaultBackendPair; B alone: the first other backend against it), and alpha.
struct ReportChartOptions {
  std::string a, b;
  double alpha = 0.05;
};

// Reads the results database at `dbPath` and writes, into `outDir` (created if missing), each
// chart as PNG and SVG: accuracy/loss curves and the sampled step loss (curves-*.png|svg), the
// final-accuracy histogram (histogram.png|svg), the bit-layout diagram (bit-layout.png|svg) and,
// when the runs carry predictions or weight snapshots, the Divergence tab's charts
// (divergence-churn, divergence-classes, divergence-weights) for options' pair.
// `written` (when non-null) receives every file's path. Returns false and sets *error (when
// non-null) naming the file (or the backend) that failed.
bool renderReportCharts(const std::string& dbPath, const std::string& outDir, std::string* error,
                        std::vector<std::string>* written = nullptr,
                        const ReportChartOptions& options = {});

}  // namespace paritylab::ui
