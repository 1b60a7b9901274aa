// paritylab: the desktop app.
//   paritylab [--study FILE.json] [--open FILE.db] [--import FILE.csv|LOGS] [--db FILE.db] [--run]
//             [--tab NAME] [--screenshot FILE.png] [--export-all DIR]
#include <QApplication>
#include <QComboBox>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QScreen>
#include <QTabWidget>
#include <QTimer>
#include <clocale>
#include <cstdio>
#include <cstring>

#include "core/nn/blas_setup.h"
#include "ui/session/study_controller.h"
#include "ui/shell/main_window.h"

namespace {

struct AppOptions {
  QCommandLineOption study, open, import, tab, db, run, screenshot, delay, exportAll;
};

void nameApplication() {
  QCoreApplication::setApplicationName(QStringLiteral("ParityLab"));
  QCoreApplication::setOrganizationName(QStringLiteral("ParityLab"));
  QCoreApplication::setApplicationVersion(QStringLiteral(PARITYLAB_VERSION));
}

AppOptions addAppOptions(QCommandLineParser& parser) {
  parser.setApplicationDescription(
      QStringLiteral("ParityLab: does TPU/GPU/CPU precision change the model you get?"));
  parser.addHelpOption();
  parser.addVersionOption();
  const QCommandLineOption study(QStringLiteral("study"),
                                 QStringLiteral("Study spec to load (default: quick)."),
                                 QStringLiteral("FILE"));
  const QCommandLineOption open(QStringLiteral("open"), QStringLiteral("Results database to open."),
                                QStringLiteral("FILE"));
  const QCommandLineOption import(
      QStringLiteral("import"),
      QStringLiteral("Results from real hardware to import, as `paritylab-cli import` reads "
                     "them by default: a results CSV, TensorBoard logs (a folder of runs or an "
                     "event file), or a W&B, MLflow, Lightning or TensorBoard CSV export."),
      QStringLiteral("FILE"));
  const QCommandLineOption tab(QStringLiteral("tab"),
                               QStringLiteral("Tab to show: curves, distributions, statistics, "
                                              "divergence, formats, x-ray, playground; "
                                              "TAB/PART/... picks parts or choices of it in turn, "
                                              "e.g. divergence/samples, curves/gradient norm, "
                                              "divergence/lockstep/free-running/lines."),
                               QStringLiteral("NAME"));
  const QCommandLineOption db(
      QStringLiteral("db"),
      QStringLiteral("Results database for Start and --import (instead of asking); an existing "
                     "file is never replaced by --import."),
      QStringLiteral("FILE"));
  const QCommandLineOption run(QStringLiteral("run"),
                               QStringLiteral("Start the loaded study at once."));
  const QCommandLineOption screenshot(
      QStringLiteral("screenshot"),
      QStringLiteral("Grab the window into FILE after --delay ms, then quit."),
      QStringLiteral("FILE"));
  const QCommandLineOption delay(QStringLiteral("delay"),
                                 QStringLiteral("Milliseconds before --screenshot (default 1500)."),
                                 QStringLiteral("MS"), QStringLiteral("1500"));
  const QCommandLineOption exportAll(QStringLiteral("export-all"),
                                     QStringLiteral("Export every chart and the report to DIR, "
                                                    "then quit."),
                                     QStringLiteral("DIR"));
  parser.addOptions({study, open, import, db, tab, run, screenshot, delay, exportAll});
  return {study, open, import, tab, db, run, screenshot, delay, exportAll};
}

}  // namespace

int main(int argc, char** argv) {
  // --help and --version need no display: answered before a QApplication (which aborts without
  // one) exists.
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0 ||
        std::strcmp(argv[i], "--help-all") == 0 || std::strcmp(argv[i], "--version") == 0 ||
        std::strcmp(argv[i], "-v") == 0) {
      QCoreApplication core(argc, argv);
      nameApplication();
      QCommandLineParser parser;
      addAppOptions(parser);
      parser.process(core);  // prints and exits
      return 0;
    }
  // Before any thread exists: it may set OPENBLAS_CORETYPE (setenv is not thread-safe).
  paritylab::nn::configureBlas();
  Q_INIT_RESOURCE(paritylab);
  QApplication app(argc, argv);
  // QApplication adopts the environment's locale for the C library; core formats and parses
  // numbers with it (snprintf, strtod), so a German desktop would export "p = 0,95" and read
  // "0.5" as 0. Numbers stay C; Qt's own widgets keep the user's locale.
  std::setlocale(LC_NUMERIC, "C");
  nameApplication();

  QCommandLineParser parser;
  const AppOptions o = addAppOptions(parser);
  parser.process(app);

  paritylab::ui::MainWindow window;
  // --db answers Start's question; File > Import still asks (it never writes into --db unasked).
  if (parser.isSet(o.db)) window.controller()->setStartDatabase(parser.value(o.db));
  const QString specPath =
      parser.isSet(o.study) ? parser.value(o.study) : QStringLiteral(":/studies/quick.json");
  // The default study only matters when nothing else was asked for.
  const bool specOk = window.loadStudySpec(specPath);
  for (const QString& problem : window.controller()->problems())
    std::fprintf(stderr, "paritylab: %s\n", qPrintable(problem));
  bool ok = specOk || (!parser.isSet(o.study) && (parser.isSet(o.open) || parser.isSet(o.import)));
  if (parser.isSet(o.open)) ok = window.openDatabase(parser.value(o.open)) && ok;
  if (parser.isSet(o.import))
    ok = window.importResultsFile(parser.value(o.import), parser.value(o.db)) && ok;
  if (!ok && (parser.isSet(o.screenshot) || parser.isSet(o.exportAll))) return 2;
  // The tab, then each further part in turn: a part of the tab or a choice of it. Applied again
  // before a screenshot: a choice listed only once a read arrives (the Lockstep view's modes).
  const auto showTab = [&window, names = parser.value(o.tab).toLower().split(QLatin1Char('/'))] {
    for (int i = 0; i < window.tabs()->count(); ++i)
      if (window.tabs()->tabText(i).toLower() == names.front()) window.tabs()->setCurrentIndex(i);
    // Each part is looked for within the page the parts before it chose.
    QWidget* scope = window.tabs()->currentWidget();
    for (qsizetype part = 1; scope && part < names.size(); ++part) {
      QWidget* chosen = nullptr;
      for (QTabWidget* parts : scope->findChildren<QTabWidget*>())
        for (int i = 0; i < parts->count() && !chosen; ++i)
          if (parts->tabText(i).toLower() == names[part]) {
            parts->setCurrentIndex(i);
            chosen = parts->widget(i);
          }
      // Or a choice of the page's (the Curves tab's metric: curves/gradient norm).
      if (!chosen)
        for (QComboBox* box : scope->findChildren<QComboBox*>())
          if (const int i = box->findText(names[part], Qt::MatchFixedString); i >= 0)
            box->setCurrentIndex(i);
      if (chosen) scope = chosen;
    }
  };
  if (parser.isSet(o.tab)) showTab();
  window.show();
  if (parser.isSet(o.run))
    QTimer::singleShot(0, &window, [&window] { window.controller()->start(); });
  if (parser.isSet(o.exportAll)) {
    QString error;
    QStringList written, notes;
    if (!window.exportAllTo(parser.value(o.exportAll), &error, &written, &notes)) {
      std::fprintf(stderr, "paritylab: error: %s\n", qPrintable(error));
      return 1;
    }
    for (const QString& file : written) std::printf("Wrote %s\n", qPrintable(file));
    for (const QString& note : notes) std::printf("Note: %s\n", qPrintable(note));
    if (!parser.isSet(o.screenshot)) return 0;
  }
  if (parser.isSet(o.screenshot)) {
    const QString file = parser.value(o.screenshot);
    const bool tabAsked = parser.isSet(o.tab);
    QTimer::singleShot(parser.value(o.delay).toInt(), &window, [&window, file, showTab, tabAsked] {
      if (tabAsked) {
        showTab();
        QApplication::processEvents();
      }
      if (!window.grab().save(file))
        std::fprintf(stderr, "paritylab: cannot write %s\n", qPrintable(file));
      QApplication::quit();
    });
  }
  return QApplication::exec();
}
