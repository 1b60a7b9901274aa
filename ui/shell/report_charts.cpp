#include "ui/shell/report_charts.h"

#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <cstdlib>
#include <memory>

#include "ui/charts/backend_colours.h"
#include "ui/charts/backend_pair_choosers.h"
#include "ui/charts/chart_view.h"
#include "ui/panels/curves/curves_panel.h"
#include "ui/panels/curves/equivalence_band.h"
#include "ui/panels/distributions/distributions_panel.h"
#include "ui/panels/divergence/divergence_panel.h"
#include "ui/panels/formats/formats_panel.h"
#include "ui/panels/statistics/statistics_panel.h"
#include "ui/panels/sweep/sweep_panel.h"
#include "ui/panels/xray/xray_panel.h"
#include "ui/session/run_data.h"
#include "ui/session/shown_study.h"
#include "ui/session/study_bridge.h"

namespace paritylab::ui {
namespace {

// Sets the Divergence tab to options' pair and alpha (ReportChartOptions says which pair);
// `db` names the results in the error about a backend they do not hold.
bool choosePair(DivergencePanel& panel, const ReportChartOptions& options, const QString& db,
                QString* error) {
  const QStringList backends = panel.backends();
  QString a = QString::fromStdString(options.a), b = QString::fromStdString(options.b);
  for (const QString& name : {a, b})
    if (!name.isEmpty() && !backends.contains(name)) {
      if (error)
        *error = QStringLiteral("backend '%1' is not in %2 (its backends: %3)")
                     .arg(name, db, backends.join(QStringLiteral(", ")));
      return false;
    }
  if (!a.isEmpty() || !b.isEmpty()) {
    if (b.isEmpty()) b = defaultBackendPair(backends).second;
    for (const QString& name : backends)
      if (a.isEmpty() && name != b) a = name;
    if (!a.isEmpty() && (panel.backendA() != a || panel.backendB() != b)) panel.setPair(a, b);
  }
  panel.setAlpha(options.alpha);
  return true;
}

}  // namespace

std::vector<const ChartExports*> ResultPanels::sources() const {
  std::vector<const ChartExports*> all;
  for (const ChartExports* panel : std::initializer_list<const ChartExports*>{
           curves, distributions, statistics, sweep, divergence, formats, xray})
    if (panel) all.push_back(panel);
  return all;
}

std::vector<Exportable> ResultPanels::exportables() const {
  std::vector<Exportable> items;
  for (const ChartExports* panel : sources())
    for (Exportable& e : panel->exportables()) items.push_back(std::move(e));
  return items;
}

bool writeReportCharts(const ResultPanels& panels, const ReportChartOptions& options,
                       const QString& outDir, QStringList* written, QString* error) {
  DivergencePanel* divergence = panels.divergence;
  struct {
    bool picked = false;
    QString a, b;
    double alpha = 0.05;
  } own;
  if (divergence) {
    own = {divergence->pairPicked(), divergence->backendA(), divergence->backendB(),
           divergence->alpha()};
    if (!choosePair(*divergence, options, divergence->database(), error)) return false;
    divergence->settle();  // the report of that pair, not the one in flight
  }
  if (panels.xray) panels.xray->settle();  // the X-ray read in flight
  // The Curves tab's equivalence band compares the pair asked for too, then shows its own again.
  CurvesPanel* curves = panels.curves;
  QString curvesA, curvesB;
  if (curves) {
    curvesA = curves->equivalence()->backendA();
    curvesB = curves->equivalence()->backendB();
    if (divergence && (!options.a.empty() || !options.b.empty()))
      curves->equivalence()->setPair(divergence->backendA(), divergence->backendB());
    curves->settle();
  }
  if (panels.statistics) panels.statistics->recompute();
  QStringList files;
  const bool ok = exportAll(panels.exportables(), outDir, &files, error);
  if (divergence && (divergence->alpha() != own.alpha || divergence->backendA() != own.a ||
                     divergence->backendB() != own.b || divergence->pairPicked() != own.picked)) {
    // The tab shows its own pair again, at its own alpha.
    divergence->setAlpha(own.alpha);
    if (own.picked)
      divergence->setPair(own.a, own.b);
    else
      divergence->unpickPair();
    divergence->settle();
  }
  if (curves && (curves->equivalence()->backendA() != curvesA ||
                 curves->equivalence()->backendB() != curvesB)) {
    curves->equivalence()->setPair(curvesA, curvesB);
    curves->settle();
  }
  if (ok && written) *written << files;
  return ok;
}

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

  const QString db = QString::fromStdString(dbPath);
  LoadedStudy loaded;
  QString message;
  if (!loadDatabase(db, &loaded, &message)) return fail(message);

  // The study as the app shows this database: its spec (the metric compared, a language model's
  // curves, the chaos floor), its backends' colours.
  ShownStudy study;
  study.setSpec(loaded.specJson, loaded.title);
  const struct Colours {
    const ShownStudy* before;
    ~Colours() { BackendColours::follow(before); }
  } colours{BackendColours::follow(&study)};
  RunData& data = *study.runs();
  data.setRuns(std::move(loaded.runs), loaded.title);
  // The tabs as the app shows this database, at the size of the exported charts.
  const QSize size(1100, 680);
  CurvesPanel curves(&study);
  DistributionsPanel histogram(&study);
  StatisticsPanel statistics(&study);
  DivergencePanel divergence(&study);
  FormatsPanel formats;
  XrayPanel xray(&study);
  for (QWidget* panel : std::initializer_list<QWidget*>{&curves, &histogram, &statistics,
                                                        &divergence, &formats, &xray})
    panel->resize(size);
  curves.view()->resize(size);
  histogram.view()->resize(size);
  // The pair before the database: one analysis, of that pair (then writeReportCharts keeps it).
  if (!choosePair(divergence, options, db, &message)) return fail(message);
  study.setDatabase(db);  // the Divergence and X-ray tabs read it (writeReportCharts waits)

  QStringList files;
  if (!writeReportCharts({&curves, &histogram, &statistics, &divergence, &formats, &xray}, options,
                         QString::fromStdString(outDir), &files, &message))
    return fail(message);
  if (written)
    for (const QString& file : files) written->push_back(file.toStdString());
  return true;
}

}  // namespace paritylab::ui
