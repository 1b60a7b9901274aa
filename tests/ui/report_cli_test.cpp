// Covers issue 10 item 19: `paritylab-cli report --charts` renders with the offscreen platform
// whatever DISPLAY says (a stale DISPLAY aborted it), run as a user would run the command.
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "core/study/results_store.h"

using namespace paritylab;

namespace {

// A small finished study: 2 backends x 3 seeds, 2 epochs each.
void writeStudy(const std::string& db) {
  auto store = study::ResultsStore::open(db, true);
  for (int i = 0; i < 6; ++i) {
    study::RunRecord run;
    run.backend = i % 2 ? "tpu-bf16" : "cpu-fp32";
    run.seed = static_cast<std::uint64_t>(i / 2);
    run.status = study::RunState::Completed;
    run.epochsDone = 2;
    run.finalAccuracy = 0.80 + 0.01 * i;
    run.id = store->addRun(run);
    for (int e = 1; e <= 2; ++e)
      store->addEpoch(run.id, {e, 1.0 / e, 1.1 / e, run.finalAccuracy * e / 2, 1.0});
  }
}

struct CliResult {
  int exitCode = -1;
  QString out, err;
};

CliResult runCli(const QStringList& args, const QProcessEnvironment& env) {
  QProcess process;
  process.setProcessEnvironment(env);
  process.start(QStringLiteral(PARITYLAB_CLI), args);
  process.waitForFinished(120000);
  return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
          QString::fromUtf8(process.readAllStandardOutput()),
          QString::fromUtf8(process.readAllStandardError())};
}

}  // namespace

class ReportCliTest : public QObject {
  Q_OBJECT

 private slots:
  // Issue 10.19: a DISPLAY naming no X server must not matter to headless chart rendering.
  void chartsIgnoreAStaleDisplay() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString db = dir.filePath("results.db");
    writeStudy(db.toStdString());
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("QT_QPA_PLATFORM"));
    env.remove(QStringLiteral("WAYLAND_DISPLAY"));
    env.insert(QStringLiteral("DISPLAY"), QStringLiteral(":97.3"));  // no such server
    const QString charts = dir.filePath("charts");
    const CliResult r =
        runCli({"report", db, "--csv", dir.filePath("report.csv"), "--charts", charts}, env);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY(!QImage(charts + "/curves-accuracy.png").isNull());
    QVERIFY(!QImage(charts + "/histogram.png").isNull());
  }
};

QTEST_GUILESS_MAIN(ReportCliTest)
#include "report_cli_test.moc"
