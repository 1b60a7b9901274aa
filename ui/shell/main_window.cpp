#include "ui/shell/main_window.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLayout>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QScreen>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolBar>
#include <QVBoxLayout>
#include <algorithm>
#include <cstdio>
#include <optional>

#include "ui/charts/backend_colours.h"
#include "ui/panels/curves/curves_panel.h"
#include "ui/panels/curves/equivalence_band.h"
#include "ui/panels/distributions/distributions_panel.h"
#include "ui/panels/divergence/divergence_panel.h"
#include "ui/panels/formats/formats_panel.h"
#include "ui/panels/playground/playground_panel.h"
#include "ui/panels/runs/runs_panel.h"
#include "ui/panels/statistics/statistics_panel.h"
#include "ui/panels/sweep/sweep_panel.h"
#include "ui/panels/xray/xray_panel.h"
#include "ui/session/run_data.h"
#include "ui/session/shown_study.h"
#include "ui/session/study_actions.h"
#include "ui/session/study_bridge.h"
#include "ui/session/study_controller.h"
#include "ui/session/study_hint.h"
#include "ui/session/study_session.h"
#include "ui/shell/import_dialog.h"
#include "ui/shell/study_dialog.h"

namespace paritylab::ui {
namespace {

constexpr int kMaxRecent = 8;
const char* kRecentKey = "recentDatabases";

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      shown_(new ShownStudy(this)),
      data_(shown_->runs()),
      actions_(new StudyActions(this)),
      controller_(new StudyController(shown_, actions_, this)),
      runs_(new RunsPanel(shown_)),
      curves_(new CurvesPanel(shown_)),
      distributions_(new DistributionsPanel(shown_)),
      statistics_(new StatisticsPanel(shown_)),
      sweep_(new SweepPanel(shown_)),
      divergence_(new DivergencePanel(shown_)),
      formats_(new FormatsPanel),
      xray_(new XrayPanel(shown_)),
      tabs_(new QTabWidget),
      banner_(new QLabel),
      location_(new QLabel) {
  BackendColours::follow(shown_);  // the shown study's own backends never share a colour
  setWindowTitle(QStringLiteral("ParityLab"));
  setWindowIcon(QIcon(QStringLiteral(":/icons/paritylab.svg")));

  tabs_->addTab(curves_, tr("Curves"));
  tabs_->addTab(distributions_, tr("Distributions"));
  tabs_->addTab(statistics_, tr("Statistics"));
  tabs_->addTab(sweep_, tr("Sweep"));
  tabs_->addTab(divergence_, tr("Divergence"));
  tabs_->addTab(formats_, tr("Formats"));
  tabs_->addTab(xray_, tr("X-ray"));
  tabs_->addTab(new PlaygroundPanel, tr("Playground"));
  tabs_->setDocumentMode(true);

  banner_->setWordWrap(true);
  banner_->setTextFormat(Qt::RichText);
  auto* splitter = new QSplitter(Qt::Horizontal);
  splitter->addWidget(runs_);
  splitter->addWidget(tabs_);
  splitter->setStretchFactor(0, 0);
  splitter->setStretchFactor(1, 1);
  splitter->setSizes({560, 1040});
  auto* central = new QWidget;
  auto* layout = new QVBoxLayout(central);
  layout->setContentsMargins(6, 6, 6, 0);
  layout->addWidget(banner_);
  layout->addWidget(splitter, 1);
  setCentralWidget(central);
  setEmulated(true, {});
  buildMenus();

  runs_->setActions(actions_->start, actions_->cancel, actions_->resume, actions_->editStudy);
  statusBar()->addPermanentWidget(location_);
  connect(controller_, &StudyController::changed, this, &MainWindow::showState);
  connect(controller_, &StudyController::progressChanged, this, &MainWindow::updateTitle);
  connect(controller_, &StudyController::statusMessage, this,
          [this](const QString& text) { statusBar()->showMessage(text); });
  connect(controller_, &StudyController::errorOccurred, this, &MainWindow::showError);
  connect(controller_, &StudyController::databaseUsed, this, &MainWindow::addRecent);
  // The X-ray and Divergence tabs follow the shown study's database themselves. The Divergence
  // tab's pair and alpha follow the Statistics tab's until a pair is picked there.
  divergence_->setSuggestion([this] {
    const auto [a, b] = statistics_->comparedPair();
    return DivergencePanel::Suggestion{a, b, statistics_->reportOptions().alpha};
  });
  // So does the Curves tab's equivalence band.
  curves_->equivalence()->setSuggestion([this] { return statistics_->comparedPair(); });
  connect(tabs_, &QTabWidget::currentChanged, this, [this] {
    if (tabs_->currentWidget() == divergence_) suggestDivergencePair();
    if (tabs_->currentWidget() == curves_) curves_->equivalence()->followSuggestion();
  });
  // The runs selected in the table stand out in the curves; runs hidden there are not drawn.
  connect(runs_, &RunsPanel::runSelectionChanged, curves_, &CurvesPanel::setHighlightedRuns);
  connect(runs_, &RunsPanel::hiddenRunsChanged, curves_, &CurvesPanel::setHiddenRuns);
  connect(xray_, &XrayPanel::showInFormatsRequested, this, [this](double amax) {
    formats_->setValue(amax);
    tabs_->setCurrentWidget(formats_);
  });
  // At most the screen's available area (a 1024x700 screen shows the whole window).
  resize(screen() ? QSize(1600, 980).boundedTo(screen()->availableSize()) : QSize(1600, 980));
  showState();
  updateExportActions();
}

MainWindow::~MainWindow() = default;

void MainWindow::buildMenus() {
  StudyActions* a = actions_;
  connect(a->openSpec, &QAction::triggered, this, [this] {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Open study spec"), {}, tr("Study (*.json)"));
    if (!path.isEmpty()) controller_->loadSpecFile(path);
  });
  connect(a->openDatabase, &QAction::triggered, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open results database"), {},
                                                      tr("Results (*.db *.sqlite);;All files (*)"));
    if (!path.isEmpty()) openDatabase(path);
  });
  connect(a->importCsv, &QAction::triggered, this, [this] {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Import results CSV"), {}, tr("CSV (*.csv)"));
    if (!path.isEmpty()) importResultsFile(path);
  });
  connect(a->importLogs, &QAction::triggered, this, [this] { importWithPreview(); });
  connect(a->exportPng, &QAction::triggered, this, [this] { exportCurrent("png"); });
  connect(a->exportSvg, &QAction::triggered, this, [this] { exportCurrent("svg"); });
  connect(a->exportReport, &QAction::triggered, this, &MainWindow::exportReport);
  connect(a->exportAll, &QAction::triggered, this, [this] {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Export all to"));
    if (dir.isEmpty()) return;
    QString error;
    QStringList written, notes;
    if (!exportAllTo(dir, &error, &written, &notes)) {
      showError(tr("Export failed"), error);
      return;
    }
    // The short line stays in the status bar; the list of files in a box that nothing replaces.
    const QString summary = tr("Exported %1 files to %2").arg(written.size()).arg(dir);
    statusBar()->showMessage(summary);
    QMessageBox box(
        QMessageBox::Information, tr("Export all"),
        summary +
            (notes.isEmpty() ? QString() : QStringLiteral("\n\n") + notes.join(QLatin1Char('\n'))),
        QMessageBox::Ok, this);
    QStringList names;
    for (const QString& file : written) names << QFileInfo(file).fileName();
    box.setDetailedText(names.join(QLatin1Char('\n')));
    box.exec();
  });
  connect(a->quit, &QAction::triggered, qApp, &QApplication::closeAllWindows);
  connect(a->editStudy, &QAction::triggered, this, &MainWindow::editStudy);
  connect(a->start, &QAction::triggered, controller_, &StudyController::start);
  connect(a->resume, &QAction::triggered, controller_, &StudyController::resume);
  connect(a->cancel, &QAction::triggered, controller_, &StudyController::cancel);

  auto* file = menuBar()->addMenu(tr("&File"));
  file->addAction(a->openSpec);
  file->addAction(a->openDatabase);
  recentMenu_ = file->addMenu(tr("Recent databases"));
  updateRecentMenu();
  file->addAction(a->importCsv);
  file->addAction(a->importLogs);
  file->addSeparator();
  auto* exportMenu = file->addMenu(QIcon(QStringLiteral(":/icons/export.svg")), tr("&Export"));
  exportMenu->addAction(a->exportPng);
  exportMenu->addAction(a->exportSvg);
  exportMenu->addAction(a->exportReport);
  exportMenu->addAction(a->exportAll);
  // The current chart's entries name the visible tab's chart, or are off when it has none.
  connect(exportMenu, &QMenu::aboutToShow, this, &MainWindow::updateExportActions);
  connect(tabs_, &QTabWidget::currentChanged, this, &MainWindow::updateExportActions);
  file->addSeparator();
  file->addAction(a->quit);

  auto* studyMenu = menuBar()->addMenu(tr("&Study"));
  studyMenu->addAction(a->editStudy);
  studyMenu->addAction(a->start);
  studyMenu->addAction(a->resume);
  studyMenu->addAction(a->cancel);

  auto* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("About ParityLab"), this, [this] {
    QMessageBox::about(
        this, tr("About ParityLab"),
        tr("<h3>ParityLab %1</h3><p>Does the precision of TPUs, GPUs and CPUs change the model "
           "you get? ParityLab trains the same model many times per backend and tests whether "
           "final accuracies differ.</p><p><b>Backends are emulated on this CPU</b>: operands "
           "of every product are rounded to the backend's format with fp32 accumulation. "
           "Imported results come from real hardware.</p>")
            .arg(QStringLiteral(PARITYLAB_VERSION)));
  });

  auto* toolbar = addToolBar(tr("Main"));
  toolbar->setObjectName(QStringLiteral("mainToolbar"));
  toolbar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  toolbar->setIconSize(QSize(20, 20));
  toolbar->addAction(a->openSpec);
  toolbar->addAction(a->openDatabase);
  toolbar->addAction(a->importCsv);
  toolbar->addAction(a->exportAll);
  toolbar->addSeparator();
  toolbar->addAction(a->start);
  toolbar->addAction(a->cancel);
}

void MainWindow::suggestDivergencePair() {
  const auto [a, b] = statistics_->comparedPair();
  divergence_->suggestPair(a, b);
  // McNemar/Holm and the CIs at the Statistics tab's alpha.
  divergence_->setAlpha(statistics_->reportOptions().alpha);
}

void MainWindow::showState() {
  runs_->setStudyName(controller_->headerHtml());
  const bool imported = controller_->mode() == StudyController::Mode::Imported;
  setEmulated(!imported, controller_->importedFrom());
  location_->setText(controller_->databaseText());
  location_->setToolTip(tr("The results database the runs shown are stored in"));
  updateEmptyHint();
  updateTitle();
}

void MainWindow::updateEmptyHint() {
  // What the empty Curves chart says until the first epoch arrives.
  const StudyHint hint = studyStartHint(controller_->specJson());
  if (controller_->isRunning())
    curves_->setEmptyHint(tr("Training: the curves appear as the first epochs end"), hint.epochs);
  else if (controller_->mode() == StudyController::Mode::Imported)
    curves_->setEmptyHint(tr("No epoch recorded in these results"), 0);
  else
    curves_->setEmptyHint(hint.text, hint.epochs);
}

void MainWindow::setEmulated(bool emulated, const QString& source) {
  if (emulated) {
    banner_->setText(
        tr("<b>Emulated backends.</b> Every backend runs on this CPU: ParityLab rounds (or "
           "block-scales) the operands of every matrix product and convolution to the backend's "
           "format (bf16, TF32, fp16, fp8, MX, NVFP4) with fp32 accumulation, and stores tensors "
           "where the backend would. No TPU or GPU is used."));
    banner_->setStyleSheet(QStringLiteral(
        "QLabel { background: #fff8c5; border: 1px solid #d4a72c; border-radius: 5px; "
        "padding: 6px 10px; color: #3b2300; }"));
  } else {
    banner_->setText(tr("<b>Results from real hardware</b>, imported from %1. These runs were "
                        "not emulated.")
                         .arg(source.toHtmlEscaped()));
    banner_->setStyleSheet(QStringLiteral(
        "QLabel { background: #ddf4ff; border: 1px solid #54aeff; border-radius: 5px; "
        "padding: 6px 10px; color: #0a3069; }"));
  }
}

void MainWindow::showError(const QString& what, const QString& error) {
  statusBar()->showMessage(what + QStringLiteral(": ") + error, 15000);
  if (isVisible())
    QMessageBox::warning(this, what, error);
  else  // not shown yet (options given on the command line): the terminal is who is there
    std::fprintf(stderr, "paritylab: %s: %s\n", qPrintable(what), qPrintable(error));
}

void MainWindow::updateTitle() {
  // "ParityLab — 7/15 runs, 0:42 left" while training (taskbar too), else the database's name.
  QString title = QStringLiteral("ParityLab");
  const QString progress = controller_->progressTitle();
  const QString db = controller_->databasePath();
  if (!progress.isEmpty())
    title += QStringLiteral(" — ") + progress;
  else if (!db.isEmpty())
    title += QStringLiteral(" — ") + QFileInfo(db).fileName();
  else if (!controller_->specName().isEmpty())
    title += QStringLiteral(" — ") + controller_->specName();
  setWindowTitle(title);
  if (!progress.isEmpty())
    location_->setText(tr("Training: %1 · %2").arg(progress, controller_->databaseText()));
  else
    location_->setText(controller_->databaseText());
}

bool MainWindow::loadStudySpec(const QString& path) {
  return controller_->loadSpecFile(path);
}

void MainWindow::editStudy() {
  QString json = controller_->specJson();
  if (json.isEmpty() || controller_->mode() == StudyController::Mode::Imported) {
    QFile quick(QStringLiteral(":/studies/quick.json"));  // a starting point
    if (quick.open(QIODevice::ReadOnly)) json = QString::fromUtf8(quick.readAll());
  }
  StudyDialog dialog(json, this);
  if (dialog.exec() != QDialog::Accepted) return;
  controller_->setEditedSpec(dialog.specJson());
}

bool MainWindow::openDatabase(const QString& path) {
  return controller_->openDatabase(path);
}

bool MainWindow::importWithPreview(const QString& path) {
  ImportDialog dialog(path, this);
  if (dialog.exec() != QDialog::Accepted) return false;
  return controller_->storeImport(dialog.previewed());
}

bool MainWindow::importResultsFile(const QString& csvPath, const QString& target) {
  if (!controller_->importResults(csvPath, target)) return false;
  tabs_->setCurrentWidget(curves_);
  return true;
}

void MainWindow::addRecent(const QString& path) {
  QSettings settings;
  QStringList recent = settings.value(kRecentKey).toStringList();
  recent.removeAll(QFileInfo(path).absoluteFilePath());
  recent.prepend(QFileInfo(path).absoluteFilePath());
  while (recent.size() > kMaxRecent) recent.removeLast();
  settings.setValue(kRecentKey, recent);
  updateRecentMenu();
}

void MainWindow::updateRecentMenu() {
  recentMenu_->clear();
  const QStringList recent = QSettings().value(kRecentKey).toStringList();
  for (const QString& path : recent)
    recentMenu_->addAction(QFileInfo(path).fileName(), this, [this, path] { openDatabase(path); })
        ->setToolTip(path);
  recentMenu_->setEnabled(!recent.isEmpty());
}

ResultPanels MainWindow::resultPanels() const {
  return {curves_, distributions_, statistics_, divergence_, formats_, xray_, sweep_};
}

std::vector<Exportable> MainWindow::exportables() const {
  return resultPanels().exportables();
}

std::optional<Exportable> MainWindow::currentExportable() const {
  const auto* panel = dynamic_cast<const ChartExports*>(tabs_->currentWidget());
  if (!panel) return std::nullopt;
  return panel->currentExportable();
}

void MainWindow::updateExportActions() {
  const std::optional<Exportable> item = currentExportable();
  for (QAction* action : {actions_->exportPng, actions_->exportSvg}) {
    action->setEnabled(item.has_value());
    action->setStatusTip(item ? tr("Save the current chart (%1)").arg(item->name)
                              : tr("This tab has no chart to save yet"));
  }
}

void MainWindow::exportCurrent(const QString& suffix) {
  divergence_->settle();  // the reads in flight: the chart exported is the one they end with
  xray_->settle();
  curves_->settle();
  const std::optional<Exportable> item = currentExportable();
  if (!item) return;
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Export chart"), item->name + QLatin1Char('.') + suffix,
      suffix == QLatin1String("png") ? tr("PNG image (*.png)") : tr("SVG image (*.svg)"));
  if (path.isEmpty()) return;
  QString error;
  const bool ok = suffix == QLatin1String("png") ? exportPng(*item, path, &error)
                                                 : exportSvg(*item, path, &error);
  if (ok)
    statusBar()->showMessage(tr("Wrote %1").arg(path));
  else
    showError(tr("Export failed"), error);
}

void MainWindow::exportReport() {
  const QString db = controller_->databasePath();
  if (db.isEmpty()) {
    showError(tr("No results"), tr("Run a study, open a database or import a CSV first."));
    return;
  }
  const QString path = QFileDialog::getSaveFileName(
      this, tr("CSV report"), QStringLiteral("report.csv"), tr("CSV (*.csv)"));
  if (path.isEmpty()) return;
  QString error, note;
  QStringList written;
  // The comparisons as the Statistics tab shows them (backends, test, alpha, margin).
  if (writeCsvReport(db, path, statistics_->reportOptions(), &written, &note, &error))
    statusBar()->showMessage(tr("Wrote %1 files: %2%3")
                                 .arg(written.size())
                                 .arg(written.join(QStringLiteral(", ")),
                                      note.isEmpty() ? QString() : QStringLiteral(". ") + note));
  else
    showError(tr("Export failed"), error);
}

bool MainWindow::exportAllTo(const QString& dir, QString* error, QStringList* written,
                             QStringList* notes) {
  data_->flush();
  statistics_->recompute();
  divergence_->settle();  // the reads in flight, so the exported charts are the latest
  xray_->settle();
  curves_->settle();
  if (!divergence_->analysisError().isEmpty()) {
    if (error)
      *error = tr("the divergence charts cannot be made: %1").arg(divergence_->analysisError());
    return false;
  }
  QStringList skipped;
  if (!controller_->databasePath().isEmpty() && !divergence_->hasReport())
    skipped << tr("no divergence charts: %1").arg(divergence_->messageText());
  if (!controller_->databasePath().isEmpty() && !xray_->hasXray())
    skipped << tr(
        "no X-ray chart: these results hold no X-ray samples (a study records them "
        "when its spec asks for \"xray\")");
  // The charts as `report --charts` writes them, for the pair and alpha the Divergence tab shows.
  QStringList files;
  const ReportChartOptions shown{divergence_->backendA().toStdString(),
                                 divergence_->backendB().toStdString(), divergence_->alpha()};
  if (!writeReportCharts(resultPanels(), shown, dir, &files, error)) return false;
  const QString db = controller_->databasePath();
  if (!db.isEmpty()) {
    // The same tables as `report --csv`, then the data behind the remaining charts.
    QString note;
    if (!writeCsvReport(db, QDir(dir).filePath(QStringLiteral("report.csv")),
                        statistics_->reportOptions(), &files, &note, error))
      return false;
    const QString curves = QDir(dir).filePath(QStringLiteral("curves-steps.csv"));
    if (!writeStepCurvesCsv(db, curves, error)) return false;
    files << curves;
    if (xray_->hasXray()) {
      const QString xray = QDir(dir).filePath(QStringLiteral("xray.csv"));
      if (!writeXrayCsv(db, xray, error)) return false;
      files << xray;
    }
  }
  if (!controller_->specJson().isEmpty()) {  // the study that made these results
    const QString specPath = QDir(dir).filePath(QStringLiteral("study.json"));
    QFile spec(specPath);
    if (!spec.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
        spec.write(controller_->specJson().toUtf8()) < 0) {
      if (error) *error = tr("%1: %2").arg(specPath, spec.errorString());
      return false;
    }
    files << specPath;
  }
  if (written) *written = files;
  if (notes) *notes = skipped;
  return true;
}

}  // namespace paritylab::ui
