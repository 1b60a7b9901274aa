#include "ui/main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QSplitter>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolBar>
#include <QVBoxLayout>
#include <optional>

#include "ui/bit_layout_diagram.h"
#include "ui/chart_view.h"
#include "ui/curves_panel.h"
#include "ui/distributions_panel.h"
#include "ui/formats_panel.h"
#include "ui/run_data.h"
#include "ui/runs_panel.h"
#include "ui/statistics_panel.h"
#include "ui/study_bridge.h"
#include "ui/study_dialog.h"
#include "ui/study_hint.h"
#include "ui/study_session.h"

namespace paritylab::ui {
namespace {

constexpr int kMaxRecent = 8;
const char* kRecentKey = "recentDatabases";

// "quick — mlp on fashion-mnist · cpu-fp32, gpu-tf32, tpu-bf16 · 5 seeds · 3 epochs"
QString describeSpec(const QString& json, QString* name) {
  const QJsonObject o = QJsonDocument::fromJson(json.toUtf8()).object();
  *name = o.value(QStringLiteral("name")).toString(QObject::tr("study"));
  QStringList backends;
  for (const QJsonValue& b : o.value(QStringLiteral("backends")).toArray())
    backends << (b.isString()
                     ? b.toString()
                     : b.toObject()
                           .value(QStringLiteral("name"))
                           .toString(b.toObject().value(QStringLiteral("preset")).toString()));
  const QJsonValue seeds = o.value(QStringLiteral("seeds"));
  const int nSeeds = seeds.isArray() ? static_cast<int>(seeds.toArray().size()) : seeds.toInt();
  const QJsonValue dataset = o.value(QStringLiteral("dataset"));
  const QString datasetName = dataset.isString()
                                  ? dataset.toString()
                                  : dataset.toObject().value(QStringLiteral("source")).toString();
  const QJsonValue training = o.value(QStringLiteral("training"));
  const QJsonObject t = training.isObject() ? training.toObject() : o;
  return QObject::tr("<b>%1</b> — %2 on %3 · %4 · %5 seeds · %6 epochs")
      .arg(name->toHtmlEscaped(), t.value(QStringLiteral("model")).toString().toHtmlEscaped(),
           datasetName.toHtmlEscaped(), backends.join(QStringLiteral(", ")).toHtmlEscaped())
      .arg(nSeeds)
      .arg(t.value(QStringLiteral("epochs")).toInt());
}

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      data_(new RunData(this)),
      session_(new StudySession(data_, this)),
      runs_(new RunsPanel(data_)),
      curves_(new CurvesPanel(data_)),
      distributions_(new DistributionsPanel(data_)),
      statistics_(new StatisticsPanel(data_)),
      formats_(new FormatsPanel),
      tabs_(new QTabWidget),
      banner_(new QLabel) {
  setWindowTitle(QStringLiteral("ParityLab"));
  setWindowIcon(QIcon(QStringLiteral(":/icons/paritylab.svg")));

  tabs_->addTab(curves_, tr("Curves"));
  tabs_->addTab(distributions_, tr("Distributions"));
  tabs_->addTab(statistics_, tr("Statistics"));
  tabs_->addTab(formats_, tr("Formats"));
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

  connect(runs_, &RunsPanel::startRequested, this, [this] { startStudy(false); });
  connect(runs_, &RunsPanel::resumeRequested, this, [this] { startStudy(true); });
  connect(runs_, &RunsPanel::cancelRequested, session_, &StudySession::cancel);
  connect(runs_, &RunsPanel::editStudyRequested, this, &MainWindow::editStudy);
  connect(session_, &StudySession::runningChanged, this, [this](bool running) {
    runs_->setRunning(running, canResume_);
    statusBar()->showMessage(running ? tr("Training… %1").arg(dbPath_) : tr("Idle"));
  });
  connect(session_, &StudySession::finished, this, [this] {
    canResume_ = data_->completedCount() < static_cast<int>(data_->runs().size());
    runs_->setRunning(false, canResume_);
    statusBar()->showMessage(tr("Study finished: %1 of %2 runs completed · %3")
                                 .arg(data_->completedCount())
                                 .arg(data_->runs().size())
                                 .arg(dbPath_));
  });
  connect(session_, &StudySession::failed, this,
          [this](const QString& reason) { showError(tr("The study stopped"), reason); });
  resize(1600, 980);
  statusBar()->showMessage(tr("Ready"));
}

MainWindow::~MainWindow() = default;

void MainWindow::buildMenus() {
  auto* file = menuBar()->addMenu(tr("&File"));
  auto* openSpec = file->addAction(
      QIcon(QStringLiteral(":/icons/study.svg")), tr("Open study spec…"), this, [this] {
        const QString path =
            QFileDialog::getOpenFileName(this, tr("Open study spec"), {}, tr("Study (*.json)"));
        if (!path.isEmpty()) loadStudySpec(path);
      });
  auto* open = file->addAction(
      QIcon(QStringLiteral(":/icons/open.svg")), tr("&Open database…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Open results database"), {}, tr("Results (*.db *.sqlite);;All files (*)"));
        if (!path.isEmpty()) openDatabase(path);
      });
  open->setShortcut(QKeySequence::Open);
  recentMenu_ = file->addMenu(tr("Recent databases"));
  updateRecentMenu();
  auto* import = file->addAction(QIcon(QStringLiteral(":/icons/import.svg")),
                                 tr("&Import CSV from real hardware…"), this, [this] {
                                   const QString path = QFileDialog::getOpenFileName(
                                       this, tr("Import results CSV"), {}, tr("CSV (*.csv)"));
                                   if (!path.isEmpty()) importCsvFile(path);
                                 });
  file->addSeparator();
  auto* exportMenu = file->addMenu(QIcon(QStringLiteral(":/icons/export.svg")), tr("&Export"));
  exportMenu->addAction(tr("Current chart as PNG…"), this, [this] { exportCurrent("png"); });
  exportMenu->addAction(tr("Current chart as SVG…"), this, [this] { exportCurrent("svg"); });
  exportMenu->addAction(tr("CSV report…"), this, &MainWindow::exportReport);
  auto* exportAll = exportMenu->addAction(
      QIcon(QStringLiteral(":/icons/export.svg")), tr("Export all to folder…"), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Export all to"));
        if (dir.isEmpty()) return;
        QString error;
        if (exportAllTo(dir, &error))
          statusBar()->showMessage(tr("Exported to %1").arg(dir));
        else
          showError(tr("Export failed"), error);
      });
  file->addSeparator();
  file->addAction(tr("&Quit"), qApp, &QApplication::closeAllWindows)
      ->setShortcut(QKeySequence::Quit);

  auto* studyMenu = menuBar()->addMenu(tr("&Study"));
  studyMenu->addAction(QIcon(QStringLiteral(":/icons/study.svg")), tr("&Edit study…"), this,
                       &MainWindow::editStudy);
  studyMenu->addAction(QIcon(QStringLiteral(":/icons/start.svg")), tr("&Start"), this,
                       [this] { startStudy(false); });
  studyMenu->addAction(QIcon(QStringLiteral(":/icons/resume.svg")), tr("&Resume"), this,
                       [this] { startStudy(true); });
  studyMenu->addAction(QIcon(QStringLiteral(":/icons/cancel.svg")), tr("&Cancel"), session_,
                       &StudySession::cancel);

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
  toolbar->addAction(openSpec);
  toolbar->addAction(open);
  toolbar->addAction(import);
  toolbar->addAction(exportAll);
}

void MainWindow::setEmulated(bool emulated, const QString& source) {
  if (emulated) {
    banner_->setText(
        tr("<b>Emulated backends.</b> Every backend runs on this CPU: ParityLab rounds the "
           "operands of every matrix product and convolution to the backend's format (bf16, "
           "TF32, fp16, fp8) with fp32 accumulation, and stores tensors where the backend "
           "would. No TPU or GPU is used."));
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
  if (isVisible()) QMessageBox::warning(this, what, error);
}

void MainWindow::updateTitle() {
  QString title = QStringLiteral("ParityLab");
  if (!dbPath_.isEmpty()) title += QStringLiteral(" — ") + QFileInfo(dbPath_).fileName();
  setWindowTitle(title);
}

bool MainWindow::loadStudySpec(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) {
    showError(tr("Cannot open the study"), tr("%1: %2").arg(path, file.errorString()));
    return false;
  }
  QJsonParseError parseError;
  const QByteArray bytes = file.readAll();
  QJsonDocument::fromJson(bytes, &parseError);
  if (parseError.error != QJsonParseError::NoError) {
    showError(tr("Cannot read the study"),
              tr("%1: %2 at offset %3").arg(path, parseError.errorString()).arg(parseError.offset));
    return false;
  }
  specJson_ = QString::fromUtf8(bytes);
  runs_->setStudyName(describeSpec(specJson_, &specName_));
  canResume_ = false;
  data_->clear(specName_);
  dbPath_.clear();
  runs_->setRunning(false, false);
  setEmulated(true, {});
  updateTitle();
  const StudyHint hint = studyStartHint(specJson_);
  curves_->setEmptyHint(hint.text, hint.epochs);
  statusBar()->showMessage(tr("Study %1 ready to run").arg(specName_));
  return true;
}

void MainWindow::editStudy() {
  StudyDialog dialog(specJson_, this);
  if (dialog.exec() != QDialog::Accepted) return;
  specJson_ = dialog.specJson();
  runs_->setStudyName(describeSpec(specJson_, &specName_));
  const StudyHint hint = studyStartHint(specJson_);
  curves_->setEmptyHint(hint.text, hint.epochs);
  data_->clear(specName_);
  canResume_ = false;
  runs_->setRunning(false, false);
}

void MainWindow::startStudy(bool resume) {
  if (session_->isRunning()) return;
  QString path = dbPath_;
  if (!resume || path.isEmpty()) {
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    QDir().mkpath(dir);
    const QString suggested = QDir(dir).filePath(
        QStringLiteral("%1-%2.db")
            .arg(specName_.isEmpty() ? QStringLiteral("study") : specName_,
                 QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"))));
    // A fresh database per start, named after the study and the time; File > Recent finds it.
    path = suggested;
    data_->clear(specName_);
  }
  QString error;
  if (!session_->start(specJson_, path, resume, &error)) {
    showError(tr("Cannot start the study"), error);
    return;
  }
  dbPath_ = path;
  curves_->setEmptyHint(tr("Training: the curves appear as the first epochs end"),
                        studyStartHint(specJson_).epochs);
  addRecent(path);
  setEmulated(true, {});
  updateTitle();
}

bool MainWindow::openDatabase(const QString& path) {
  if (session_->isRunning()) {
    showError(tr("Cannot open a database"), tr("A study is running; cancel it first."));
    return false;
  }
  LoadedStudy loaded;
  QString error;
  if (!loadDatabase(path, &loaded, &error)) {
    showError(tr("Cannot open the database"), error);
    return false;
  }
  dbPath_ = path;
  canResume_ = loaded.canResume;
  if (!loaded.specJson.isEmpty()) {
    specJson_ = loaded.specJson;
    runs_->setStudyName(describeSpec(specJson_, &specName_));
    setEmulated(true, {});
  } else {
    runs_->setStudyName(tr("<b>%1</b> — imported results").arg(loaded.title.toHtmlEscaped()));
    setEmulated(false, loaded.title);
  }
  curves_->setEmptyHint(tr("No epoch recorded in this database yet"), 0);
  data_->setRuns(std::move(loaded.runs), loaded.title);
  runs_->setRunning(false, canResume_);
  addRecent(path);
  updateTitle();
  statusBar()->showMessage(tr("Opened %1: %2 runs").arg(path).arg(data_->runs().size()));
  return true;
}

bool MainWindow::importCsvFile(const QString& csvPath) {
  const QString dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
  QDir().mkpath(dir);
  const QString db =
      QDir(dir).filePath(QFileInfo(csvPath).completeBaseName() + QStringLiteral(".db"));
  if (QFileInfo::exists(db)) QFile::remove(db);
  QString error;
  if (!importCsv(csvPath, db, &error)) {
    showError(tr("Cannot import the CSV"), error);
    return false;
  }
  if (!openDatabase(db)) return false;
  setEmulated(false, QFileInfo(csvPath).fileName());
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

std::vector<Exportable> MainWindow::exportables() const {
  std::vector<Exportable> items;
  // Each curve metric is rendered by switching the panel's metric, then restoring it.
  auto* curves = curves_;
  for (CurveMetric m : {CurveMetric::TestAccuracy, CurveMetric::TestLoss, CurveMetric::TrainLoss}) {
    Exportable e = exportableChart(curves->view(), QStringLiteral("curves-") + curveMetricSlug(m),
                                   QSize(1100, 680));
    auto paint = e.paint;
    e.paint = [curves, m, paint](QPainter& p, const QSize& s) {
      const CurveOptions saved = curves->options();
      CurveOptions o = saved;
      o.metric = m;
      curves->setOptions(o);
      paint(p, s);
      curves->setOptions(saved);
    };
    items.push_back(std::move(e));
  }
  items.push_back(
      exportableChart(distributions_->view(), QStringLiteral("histogram"), QSize(1100, 680)));
  items.push_back(exportableDiagram(formats_->diagram(), QStringLiteral("bit-layout")));
  return items;
}

void MainWindow::exportCurrent(const QString& suffix) {
  QWidget* current = tabs_->currentWidget();
  std::optional<Exportable> item;
  if (current == curves_)
    item = exportableChart(curves_->view(),
                           QStringLiteral("curves-") + curveMetricSlug(curves_->options().metric));
  else if (current == distributions_)
    item = exportableChart(distributions_->view(), QStringLiteral("histogram"));
  else if (current == formats_)
    item = exportableDiagram(formats_->diagram(), QStringLiteral("bit-layout"));
  else if (current == statistics_)
    item = Exportable{QStringLiteral("statistics"), statistics_->size(),
                      [this](QPainter& p, const QSize&) { statistics_->render(&p); }};
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
  if (dbPath_.isEmpty()) {
    showError(tr("No results"), tr("Run a study, open a database or import a CSV first."));
    return;
  }
  const QString path = QFileDialog::getSaveFileName(
      this, tr("CSV report"), QStringLiteral("report.csv"), tr("CSV (*.csv)"));
  if (path.isEmpty()) return;
  QString error;
  if (writeCsvReport(dbPath_, path, &error))
    statusBar()->showMessage(tr("Wrote %1").arg(path));
  else
    showError(tr("Export failed"), error);
}

bool MainWindow::exportAllTo(const QString& dir, QString* error) {
  data_->flush();
  QStringList written;
  if (!exportAll(exportables(), dir, &written, error)) return false;
  if (!dbPath_.isEmpty() &&
      !writeCsvReport(dbPath_, QDir(dir).filePath(QStringLiteral("report.csv")), error))
    return false;
  return true;
}

}  // namespace paritylab::ui
