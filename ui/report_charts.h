#pragma once
// Headless rendering of the desktop app's charts for `paritylab-cli report DB --charts DIR`.
// Creates a QApplication on the offscreen Qt platform if none exists (whatever DISPLAY says).

#include <string>
#include <vector>

namespace paritylab::ui {

// Reads the results database at `dbPath` and writes, into `outDir` (created if missing), each
// chart as PNG and SVG: accuracy/loss curves and the sampled step loss (curves-*.png|svg), the
// final-accuracy histogram (histogram.png|svg) and the bit-layout diagram (bit-layout.png|svg).
// `written` (when non-null) receives every file's path. Returns false and sets *error (when
// non-null) naming the file that failed.
bool renderReportCharts(const std::string& dbPath, const std::string& outDir, std::string* error,
                        std::vector<std::string>* written = nullptr);

}  // namespace paritylab::ui
