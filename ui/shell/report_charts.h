#pragma once
// The charts Export all and `paritylab-cli report DB --charts DIR` write, from one list: every
// tab's exportables() but the Playground's (its charts do not come from the results; its own
// Export all writes them with their data). Headless rendering creates a QApplication on the
// offscreen Qt platform if none exists (whatever DISPLAY says).

#include <QStringList>
#include <string>
#include <vector>

#include "ui/charts/chart_export.h"

namespace paritylab::ui {

class CurvesPanel;
class DistributionsPanel;
class DivergencePanel;
class FormatsPanel;
class StatisticsPanel;
class SweepPanel;
class XrayPanel;

// The tabs whose charts are the results' charts, in tab order.
struct ResultPanels {
  CurvesPanel* curves = nullptr;
  DistributionsPanel* distributions = nullptr;
  StatisticsPanel* statistics = nullptr;
  DivergencePanel* divergence = nullptr;
  FormatsPanel* formats = nullptr;
  XrayPanel* xray = nullptr;
  SweepPanel* sweep = nullptr;

  std::vector<const ChartExports*> sources() const;
  std::vector<Exportable> exportables() const;  // every source's, in order
};

// The pair the Divergence charts compare: A against the reference B (empty: the Divergence tab's
// pair, for a fresh tab its default pair, defaultBackendPair; B alone: the first other backend
// against it), and alpha.
struct ReportChartOptions {
  std::string a, b;
  double alpha = 0.05;
};

// Writes `panels`' charts into `outDir` (created if missing) as PNG and SVG, the Divergence
// charts and the Curves tab's equivalence band for options' pair (the Divergence tab's alpha);
// both tabs get their own pair and alpha back after.
// `written` receives every file's path. False with *error naming the file or the unknown backend.
bool writeReportCharts(const ResultPanels& panels, const ReportChartOptions& options,
                       const QString& outDir, QStringList* written, QString* error);

// Reads the results database at `dbPath` into panels of its own and writes their charts into
// `outDir` (writeReportCharts): accuracy/loss curves and the sampled step loss (curves-*), the
// final-accuracy histogram (histogram), the difference plot (difference), the Divergence tab's
// charts when the runs carry predictions or weight snapshots (divergence-churn, -classes,
// -weights), the bit-layout diagram (bit-layout) and the X-ray heatmap when the runs hold X-ray
// samples (xray-<statistic>). `written` (when non-null) receives every file's path. Returns false
// and sets *error (when non-null) naming the file (or the backend) that failed.
bool renderReportCharts(const std::string& dbPath, const std::string& outDir, std::string* error,
                        std::vector<std::string>* written = nullptr,
                        const ReportChartOptions& options = {});

}  // namespace paritylab::ui
