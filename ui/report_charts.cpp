#include "ui/report_charts.h"

#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <cstdlib>
#include <memory>

#include "ui/bit_layout_diagram.h"
#include "ui/chart_export.h"
#include "ui/chart_view.h"
#include "ui/curves_panel.h"
#include "ui/distributions_panel.h"
#include "ui/run_data.h"
#include "ui/study_bridge.h"

namespace paritylab::ui {

bool renderReportCharts(const std::string& dbPath, const std::string& outDir, std::string* error,
                        std::vector<std::string>* written) {
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

  QStringList files;
  if (!exportAll(items, QString::fromStdString(outDir), &files, &message)) return fail(message);
  if (written)
    for (const QString& file : files) written->push_back(file.toStdString());
  return true;
}

}  // namespace paritylab::ui
