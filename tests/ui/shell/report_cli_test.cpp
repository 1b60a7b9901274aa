// `paritylab-cli report --charts` renders with the offscreen platform whatever DISPLAY says (a
// stale DISPLAY aborted it); the report takes the Statistics tab's choices (--a/--b or
// --reference, --test, --alpha, --margin) and names every file it writes; `report --curves
// FILE.csv` writes the stored steps in long form. Each runs the command as a user would.
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

#include "core/study/store/results_store.h"

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

// Three backends x 4 completed runs with known final accuracies.
void writeGroups(const std::string& db) {
  auto store = study::ResultsStore::open(db, true);
  const std::vector<std::pair<const char*, std::vector<double>>> groups = {
      {"cpu-fp32", {0.79, 0.80, 0.78, 0.81}},
      {"tpu-bf16", {0.80, 0.83, 0.81, 0.84}},
      {"gpu-tf32", {0.78, 0.80, 0.79, 0.81}}};
  for (const auto& [backend, accuracies] : groups)
    for (std::size_t i = 0; i < accuracies.size(); ++i) {
      study::RunRecord run;
      run.backend = backend;
      run.seed = i;
      run.status = study::RunState::Completed;
      run.epochsDone = 1;
      run.finalAccuracy = accuracies[i];
      store->addRun(run);
    }
}

// A small CSV reader for the report (its fields here hold no quotes or commas but the verdict,
// which is quoted when it has commas).
QList<QStringList> readCsv(const QString& path) {
  QFile file(path);
  QList<QStringList> rows;
  if (!file.open(QIODevice::ReadOnly)) return rows;
  for (const QByteArray& line : file.readAll().split('\n')) {
    if (line.isEmpty()) continue;
    QStringList fields;
    QString field;
    bool quoted = false;
    QString text = QString::fromUtf8(line);
    if (text.endsWith('\r')) text.chop(1);  // RFC 4180 line ends
    for (const QChar c : text) {
      if (c == '"')
        quoted = !quoted;
      else if (c == ',' && !quoted)
        fields << field, field.clear();
      else
        field += c;
    }
    fields << field;
    rows << fields;
  }
  return rows;
}

QProcessEnvironment cleanEnv() {
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
  return env;
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
  // A DISPLAY naming no X server must not matter to headless chart rendering.
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

  // The per-step CSV in long form, exactly the stored steps.
  void curvesCsvIsLongForm() {
    QTemporaryDir dir;
    const QString db = dir.filePath("steps.db");
    {
      auto store = study::ResultsStore::open(db.toStdString(), true);
      study::RunRecord run;
      run.backend = "tpu-bf16";
      run.seed = 7;
      run.status = study::RunState::Completed;
      run.id = store->addRun(run);
      store->addSteps(run.id, {{3, 1, 0.5, 0.001}, {6, 2, 0.25, 0.002}});
    }
    const QString csv = dir.filePath("curves.csv");
    const CliResult r = runCli({"report", db, "--curves", csv}, cleanEnv());
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("Wrote " + csv), qPrintable(r.out));
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(file.readAll()),
             QStringLiteral("run_id,backend,seed,step,epoch,metric,value\r\n"  // RFC 4180 lines
                            "1,tpu-bf16,7,3,1,train_loss,0.5\r\n"
                            "1,tpu-bf16,7,3,1,lr,0.001\r\n"
                            "1,tpu-bf16,7,6,2,train_loss,0.25\r\n"
                            "1,tpu-bf16,7,6,2,lr,0.002\r\n"));
  }

  // A pair with Student's test, alpha and a margin: TOST and the minimum detectable
  // difference (no observed power) are in the summary,
  // no "give an equivalence margin", and both files are named on stdout.
  void reportTakesTheStatisticsChoices() {
    QTemporaryDir dir;
    const QString db = dir.filePath("pair.db");
    writeGroups(db.toStdString());
    const QString csv = dir.filePath("report.csv");
    const CliResult r = runCli({"report", db, "--csv", csv, "--a", "tpu-bf16", "--b", "gpu-tf32",
                                "--test", "student", "--alpha", "0.1", "--margin", "0.05"},
                               cleanEnv());
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QString summaryPath = dir.filePath("report-summary.csv");
    QVERIFY2(r.out.contains("Wrote " + csv) && r.out.contains("Wrote " + summaryPath),
             qPrintable(r.out));
    const QList<QStringList> rows = readCsv(summaryPath);
    const QStringList header = rows.front();
    QList<QStringList> compared;
    for (const QStringList& row : rows)
      if (row.value(0) != "summary" && row.value(0) != "section") compared << row;
    QCOMPARE(compared.size(), 1);
    const auto cell = [&](const char* column) {
      return compared.front().value(header.indexOf(column));
    };
    QCOMPARE(cell("section"), QStringLiteral("student"));
    QCOMPARE(cell("backend"), QStringLiteral("tpu-bf16"));
    QCOMPARE(cell("reference"), QStringLiteral("gpu-tf32"));
    QCOMPARE(cell("alpha"), QStringLiteral("0.1"));
    QCOMPARE(cell("tost_margin"), QStringLiteral("0.05"));
    // SciPy 1.10: ttest_ind(a, b, equal_var=True) on writeGroups()' tpu-bf16 and gpu-tf32:
    // t = 2.2360679774997845, p = 0.06670680196204137; TOST with margin 0.05 (pooled se, df 6):
    // max(t.sf((d + m) / se, 6), t.cdf((d - m) / se, 6)) = 0.03335340098101994; statsmodels
    // TTestIndPower().power(d / sd_pooled, nobs1=4, alpha=0.1) = 0.6299266016043219.
    QVERIFY(std::abs(cell("t").toDouble() - 2.2360679774997845) < 1e-9);
    QVERIFY(std::abs(cell("p_value").toDouble() - 0.06670680196204137) < 1e-9);
    QVERIFY(std::abs(cell("tost_p").toDouble() - 0.03335340098101994) < 1e-9);
    QVERIFY(std::abs(cell("min_detectable_diff").toDouble() - 0.03155143426360225) < 1e-6);
    QCOMPARE(header.indexOf("power"), -1);  // no observed power anywhere
    QVERIFY(!cell("verdict").contains("give an equivalence margin"));

    // All against a reference: one row per other backend, Holm-adjusted.
    const CliResult all =
        runCli({"report", db, "--csv", csv, "--reference", "cpu-fp32"}, cleanEnv());
    QVERIFY2(all.exitCode == 0, qPrintable(all.err));
    int tested = 0;
    for (const QStringList& row : readCsv(summaryPath))
      if (row.value(0) == "welch") {
        ++tested;
        QCOMPARE(row.value(header.indexOf("reference")), QStringLiteral("cpu-fp32"));
        QVERIFY(!row.value(header.indexOf("p_holm")).isEmpty());
      }
    QCOMPARE(tested, 2);

    // A backend the database does not hold is named, and nothing is written.
    const CliResult bad =
        runCli({"report", db, "--csv", dir.filePath("x.csv"), "--a", "tpu-bf17", "--b", "gpu-tf32"},
               cleanEnv());
    QVERIFY(bad.exitCode != 0);
    QVERIFY2(bad.err.contains("tpu-bf17"), qPrintable(bad.err));
    QVERIFY(!QFileInfo::exists(dir.filePath("x.csv")));
  }
};

QTEST_GUILESS_MAIN(ReportCliTest)
#include "report_cli_test.moc"
