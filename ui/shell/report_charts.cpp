#include "ui/shell/report_charts.h"

#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <cstdlib>
#include <memory>

#include "ui/charts/backend_pair_choosers.h"
#include "ui/charts/bit_layout_diagram.h"
#include "ui/charts/chart_export.h"
#include "ui/charts/chart_view.h"
#include "ui/panels/divergence/churn_matrix_view.h"
#include "ui/panels/divergence/class_difference_view.h"
#include "ui/panels/curves/curves_panel.h"
#include "ui/panels/distributions/distributions_panel.h"
#include "ui/panels/divergence/divergence_panel.h"
#include "ui/session/run_data.h"
#include "ui/session/study_bridge.h"
#include "ui/panels/divergence/weight_divergence_view.h"

namespace paritylab::ui {

bool renderReportCharts(const std::string& dbPath, const std::string& outDir, std::string* error,
                        std::vector<std::string>* written, const ReportChartOptions& options) {
  const auto fail = [error](const QString& message) {
    if (error) *error = message.toStdString();
    return false;
  };
  std::unique_ptr<QApplication> ownApp;
  if (!QApplication::instance()) {
    // Charts are painted into images and SVG files, never shown: always the offscreen platform,
    // whatever DISPLAY says (a stale DISPLAY over ssh or in a batch job would abort xcb).
    qputenv("QT_QPA_PLATFORM", "offscreen");
    static int argc = 1;
    static char name[] = "paritylab-cli";
    static char* argv[] = {name, nullptr};
    ownApp = std::make_unique<QApplication>(argc, argv);
  } else if (!qobject_cast<QApplication*>(QCoreApplication::instance())) {
    return fail(QStringLiteral("charts need a QApplication, but a non-GUI application exists"));
  }

  LoadedStudy loaded;
  QString message;
  if (!loadDatabase(QString::fromStdString(dbPath), &loaded, &message)) return fail(message);

  RunData data;
  data.setRuns(std::move(loaded.runs), loaded.title);
  const QSize size(1100, 680);
  std::vector<Exportable> items;

  CurvesPanel curves(&data);
  curves.resize(size);
  curves.view()->resize(size);
  for (CurveMetric m : {CurveMetric::TestAccuracy, CurveMetric::TestLoss, CurveMetric::TrainLoss,
                        CurveMetric::StepLoss}) {
    Exportable e =
        exportableChart(curves.view(), QStringLiteral("curves-") + curveMetricSlug(m), size);
    auto paint = e.paint;
    CurvesPanel* panel = &curves;
    e.paint = [panel, m, paint](QPainter& p, const QSize& s) {
      CurveOptions o = panel->options();
      o.metric = m;
      panel->setOptions(o);
      paint(p, s);
    };
    items.push_back(std::move(e));
  }
  DistributionsPanel histogram(&data);
  histogram.resize(size);
  histogram.view()->resize(size);
  items.push_back(exportableChart(histogram.view(), QStringLiteral("histogram"), size));
  BitLayoutDiagram diagram;
  items.push_back(exportableDiagram(&diagram, QStringLiteral("bit-layout")));

  // The Divergence tab's charts, as the tab draws them, for the parts the runs carry.
  ChurnMatrixView churn;
  ClassDifferenceView classes;
  WeightDivergenceView weights;
  weights.resize(size);
  weights.view()->resize(size);
  QString a = QString::fromStdString(options.a), b = QString::fromStdString(options.b);
  const QStringList backends = data.backends();
  for (const QString& name : {a, b})
    if (!name.isEmpty() && !backends.contains(name))
      return fail(QStringLiteral("backend '%1' is not in %2 (its backends: %3)")
                      .arg(name, QString::fromStdString(dbPath), backends.join(", ")));
  if (b.isEmpty()) b = defaultBackendPair(backends).second;
  for (const QString& name : backends)
    if (a.isEmpty() && name != b) a = name;
  if (!a.isEmpty() && a != b) {
    study::DivergenceOptions divergence;
    divergence.a = a.toStdString();
    divergence.b = b.toStdString();
    divergence.alpha = options.alpha;
    divergence.bootstrap.alpha = options.alpha;
    study::DivergenceReport report;
    try {
      report = analyseDatabase(QString::fromStdString(dbPath), divergence);
    } catch (const std::exception&) {
      // A database without a study (or damaged divergence tables): no divergence charts, the
      // others as before; `compare` names the cause.
    }
    churn.setReport(report);
    classes.setReport(report, options.alpha);
    weights.setReport(report);
    if (!report.backends.empty()) items.push_back(exportableChurnMatrix(&churn));
    if (!report.classes.empty()) items.push_back(exportableClassDifferences(&classes));
    if (!report.layers.empty())
      items.push_back(exportableChart(weights.view(), QStringLiteral("divergence-weights"), size));
  }

  QStringList files;
  if (!exportAll(items, QString::fromStdString(outDir), &files, &message)) return fail(message);
  if (written)
    for (const QString& file : files) written->push_back(file.toStdString());
  return true;
}

}  // namespace paritylab::ui
