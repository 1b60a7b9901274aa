// paritylab: the desktop app.
//   paritylab [--study FILE.json] [--open FILE.db] [--import FILE.csv] [--db FILE.db] [--run]
//             [--tab NAME] [--screenshot FILE.png] [--export-all DIR]
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QScreen>
#include <QTabWidget>
#include <QTimer>
#include <cstdio>

#include "core/nn/blas_setup.h"
#include "ui/main_window.h"
#include "ui/study_controller.h"

int main(int argc, char** argv) {
  // Before any thread exists: it may set OPENBLAS_CORETYPE (setenv is not thread-safe).
  paritylab::nn::configureBlas();
  Q_INIT_RESOURCE(paritylab);
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("ParityLab"));
  QApplication::setOrganizationName(QStringLiteral("ParityLab"));
  QApplication::setApplicationVersion(QStringLiteral(PARITYLAB_VERSION));

  QCommandLineParser parser;
  parser.setApplicationDescription(
      QStringLiteral("ParityLab: does TPU/GPU/CPU precision change the model you get?"));
  parser.addHelpOption();
  parser.addVersionOption();
  const QCommandLineOption study(QStringLiteral("study"),
                                 QStringLiteral("Study spec to load (default: quick)."),
                                 QStringLiteral("FILE"));
  const QCommandLineOption open(QStringLiteral("open"), QStringLiteral("Results database to open."),
                                QStringLiteral("FILE"));
  const QCommandLineOption import(QStringLiteral("import"),
                                  QStringLiteral("CSV of results from real hardware to import."),
                                  QStringLiteral("FILE"));
  const QCommandLineOption tab(QStringLiteral("tab"),
                               QStringLiteral("Tab to show: curves, distributions, statistics, "
                                              "formats."),
                               QStringLiteral("NAME"));
  const QCommandLineOption db(
      QStringLiteral("db"),
      QStringLiteral("Results database for Start and --import (instead of asking)."),
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
  parser.process(app);

  paritylab::ui::MainWindow window;
  if (parser.isSet(db)) {
    const QString dbPath = parser.value(db);
    window.controller()->setDatabaseChooser(
        [dbPath](const QString&, const QString&) { return dbPath; });
  }
  const QString specPath =
      parser.isSet(study) ? parser.value(study) : QStringLiteral(":/studies/quick.json");
  // The default study only matters when nothing else was asked for.
  const bool specOk = window.loadStudySpec(specPath);
  for (const QString& problem : window.controller()->problems())
    std::fprintf(stderr, "paritylab: %s\n", qPrintable(problem));
  bool ok = specOk || (!parser.isSet(study) && (parser.isSet(open) || parser.isSet(import)));
  if (parser.isSet(open)) ok = window.openDatabase(parser.value(open)) && ok;
  if (parser.isSet(import)) ok = window.importCsvFile(parser.value(import)) && ok;
  if (!ok && (parser.isSet(screenshot) || parser.isSet(exportAll))) return 2;
  if (parser.isSet(tab)) {
    const QString name = parser.value(tab).toLower();
    for (int i = 0; i < window.tabs()->count(); ++i)
      if (window.tabs()->tabText(i).toLower() == name) window.tabs()->setCurrentIndex(i);
  }
  window.show();
  if (parser.isSet(run))
    QTimer::singleShot(0, &window, [&window] { window.controller()->start(); });
  if (parser.isSet(exportAll)) {
    QString error;
    QStringList written;
    if (!window.exportAllTo(parser.value(exportAll), &error, &written)) {
      std::fprintf(stderr, "paritylab: error: %s\n", qPrintable(error));
      return 1;
    }
    for (const QString& file : written) std::printf("Wrote %s\n", qPrintable(file));
    if (!parser.isSet(screenshot)) return 0;
  }
  if (parser.isSet(screenshot)) {
    const QString file = parser.value(screenshot);
    QTimer::singleShot(parser.value(delay).toInt(), &window, [&window, file] {
      if (!window.grab().save(file))
        std::fprintf(stderr, "paritylab: cannot write %s\n", qPrintable(file));
      QApplication::quit();
    });
  }
  return QApplication::exec();
}
