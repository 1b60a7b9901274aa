// The Divergence tab as a panel, without a results database (a hand-made
// analysis stands in for study::analyseDivergence): the report is computed off the GUI thread,
// at most one at a time, with the previous report shown meanwhile and one more computation for
// any number of requests (runs finishing, pair changes) that arrive during it; the pair follows
// the Statistics tab's until the user picks one; errors and imported runs are said in words;
// the charts export (PNG/SVG, Export all) and the main window has the tab.
#include "ui/panels/divergence/divergence_panel.h"

#include <QComboBox>
#include <QFile>
#include <QImage>
#include <QSemaphore>
#include <QSignalSpy>
#include <QSvgRenderer>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>
#include <atomic>
#include <memory>
#include <stdexcept>

#include "core/study/store/results_store.h"
#include "tests/ui/panels/divergence/divergence_reports.h"
#include "ui/panels/divergence/churn_matrix_view.h"
#include "ui/session/run_data.h"
#include "ui/session/shown_study.h"
#include "ui/shell/main_window.h"

static void initResources() {
  Q_INIT_RESOURCE(paritylab);
}

using namespace paritylab;
using namespace paritylab::ui;

namespace {

// The stand-in analysis: records where and how often it runs; can be held at a gate.
struct FakeAnalysis {
  std::atomic<int> calls{0};
  std::atomic<bool> onGuiThread{false};
  std::atomic<bool> gated{false};
  std::atomic<double> alpha{0.0};  // of the last call
  QSemaphore gate;
  QThread* gui = QThread::currentThread();

  DivergencePanel::Analysis function() {
    return [this](const QString& path, const study::DivergenceOptions& o) {
      if (QThread::currentThread() == gui) onGuiThread = true;
      ++calls;
      alpha = o.alpha;
      if (gated) gate.acquire();
      if (path.endsWith("bad.db")) throw std::invalid_argument("bad.db: not a results database");
      study::DivergenceReport r =
          path.endsWith("imported.db") ? testing::importedReport() : testing::threeBackendReport();
      r.a = o.a;
      r.b = o.b;
      return r;
    };
  }
};

void addRun(RunData* data, std::int64_t id, const char* backend, std::uint64_t seed,
            bool finish = true) {
  study::RunKey k{id, backend, seed};
  data->applyEpoch({k, 1, 1, 0.5, 0.6, 0.8, 1.0});
  if (finish) {
    study::RunStateEvent done;
    done.run = k;
    done.state = study::RunState::Completed;
    done.finalAccuracy = 0.8;
    data->applyState(done);
  }
}

void fillRuns(RunData* data) {
  std::int64_t id = 1;
  for (std::uint64_t seed = 0; seed < 2; ++seed)
    for (const char* b : {"cpu-fp32", "gpu-tf32", "tpu-bf16"}) addRun(data, id++, b, seed);
  data->flush();
}

bool waitShown(DivergencePanel& panel) {
  QSignalSpy spy(&panel, &DivergencePanel::reportShown);
  return spy.wait(10000);
}

// A panel over RunData (three backends' finished runs, or none), analysed by a FakeAnalysis that
// outlives it. batchIntervalMs > 0: RunData's redraw batching interval, set before the runs.
struct PanelWithRuns {
  ShownStudy study;
  RunData& data = *study.runs();
  FakeAnalysis fake;
  std::unique_ptr<DivergencePanel> owned;
  explicit PanelWithRuns(bool withRuns = true, int batchIntervalMs = 0) {
    if (batchIntervalMs > 0) data.setBatchInterval(batchIntervalMs);
    if (withRuns) fillRuns(&data);
    owned = std::make_unique<DivergencePanel>(&study);
    owned->setAnalysis(fake.function());
  }
  DivergencePanel& panel() { return *owned; }
};

}  // namespace

class DivergencePanelTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { initResources(); }

  void withoutResultsItSaysWhatComes() {
    PanelWithRuns f(false);
    DivergencePanel& panel = f.panel();
    FakeAnalysis& fake = f.fake;
    QVERIFY(panel.summaryText().contains("Run a study or open a results database"));
    QCOMPARE(fake.calls.load(), 0);
    QVERIFY(panel.exportables().empty());
  }

  void computesOffTheGuiThread() {
    PanelWithRuns f;
    DivergencePanel& panel = f.panel();
    FakeAnalysis& fake = f.fake;
    f.study.setDatabase("study.db");
    QVERIFY(waitShown(panel));
    QVERIFY(!fake.onGuiThread);
    QCOMPARE(fake.calls.load(), 1);
    QVERIFY(panel.hasReport());
    // Default: the last backend that is not the reference, against the reference.
    QCOMPARE(panel.backendA(), QString("tpu-bf16"));
    QCOMPARE(panel.backendB(), QString("cpu-fp32"));
    QCOMPARE(panel.report().a, std::string("tpu-bf16"));
    QVERIFY(panel.summaryText().contains("changes 1.9% of test predictions"));
    QVERIFY(panel.summaryText().contains("McNemar"));
    QVERIFY(panel.summaryText().contains("seed 3 has no finished tpu-bf16 run"));
    QCOMPARE(panel.churnView()->backendCount(), 3);
  }

  void pairFollowsStatisticsUntilPicked() {
    PanelWithRuns f;
    DivergencePanel& panel = f.panel();
    FakeAnalysis& fake = f.fake;
    panel.suggestPair("tpu-bf16", "cpu-fp32");
    f.study.setDatabase("study.db");
    QVERIFY(waitShown(panel));
    QCOMPARE(panel.report().a, std::string("tpu-bf16"));
    panel.suggestPair("gpu-tf32", "tpu-bf16");
    QVERIFY(waitShown(panel));
    QCOMPARE(panel.report().a, std::string("gpu-tf32"));
    QCOMPARE(panel.report().b, std::string("tpu-bf16"));
    panel.setPair("tpu-bf16", "gpu-tf32");  // the user's choice stays
    QVERIFY(waitShown(panel));
    const int calls = fake.calls;
    panel.suggestPair("gpu-tf32", "cpu-fp32");
    QCOMPARE(panel.backendA(), QString("tpu-bf16"));
    QCOMPARE(panel.backendB(), QString("gpu-tf32"));
    QCOMPARE(fake.calls.load(), calls);
  }

  // The tab's tests and CIs at the alpha it is given (the Statistics tab's), and
  // the same alpha again computes nothing.
  void alphaReachesTheAnalysis() {
    PanelWithRuns f;
    DivergencePanel& panel = f.panel();
    FakeAnalysis& fake = f.fake;
    f.study.setDatabase("study.db");
    QVERIFY(waitShown(panel));
    QCOMPARE(fake.alpha.load(), 0.05);
    panel.setAlpha(0.01);
    QVERIFY(waitShown(panel));
    QCOMPARE(fake.alpha.load(), 0.01);
    const int calls = fake.calls;
    panel.setAlpha(0.01);
    panel.settle();
    QCOMPARE(fake.calls.load(), calls);
  }

  // Runs finishing during a computation: the previous report stays, and one more computation
  // follows however many requests arrived.
  void batchedWhileComputing() {
    PanelWithRuns f(true, 1);
    DivergencePanel& panel = f.panel();
    FakeAnalysis& fake = f.fake;
    RunData& data = f.data;
    f.study.setDatabase("study.db");
    QVERIFY(waitShown(panel));
    QCOMPARE(fake.calls.load(), 1);
    const QString before = panel.summaryText();

    fake.gated = true;
    addRun(&data, 100, "tpu-bf16", 7);
    data.flush();  // runFinished: a computation starts and waits at the gate
    QTRY_COMPARE(fake.calls.load(), 2);
    QVERIFY(panel.busy());
    for (int i = 0; i < 10; ++i) {
      addRun(&data, 101 + i, "cpu-fp32", 10 + std::uint64_t(i));
      data.flush();
      panel.recompute();
    }
    QCoreApplication::processEvents();
    QCOMPARE(fake.calls.load(), 2);  // never a second one in flight
    QVERIFY(panel.hasReport());      // the previous report, shown meanwhile
    QCOMPARE(panel.summaryText(), before);
    fake.gated = false;
    fake.gate.release();
    panel.settle();
    QVERIFY(!panel.busy());
    QCOMPARE(fake.calls.load(), 3);  // the one in flight and one for all the requests after it
    QCOMPARE(panel.analysesStarted(), 3);
  }

  // Opening a database changes the shown study's database and replaces its runs at once: one
  // analysis for both, not one each.
  void openingADatabaseAnalysesItOnce() {
    PanelWithRuns f;
    DivergencePanel& panel = f.panel();
    const int before = panel.analysesStarted();
    f.study.setDatabase("study.db");
    f.data.setRuns(std::vector<ShownRun>(f.data.runs()), "reopened");
    QVERIFY(waitShown(panel));
    panel.settle();
    QCOMPARE(panel.analysesStarted() - before, 1);
    QCOMPARE(f.fake.calls.load(), 1);
  }

  void errorsAndImportedRunsInWords() {
    PanelWithRuns f;
    DivergencePanel& panel = f.panel();
    f.study.setDatabase("bad.db");
    QVERIFY(waitShown(panel));
    QVERIFY(!panel.hasReport());
    QVERIFY(panel.summaryText().contains("Cannot analyse tpu-bf16 against cpu-fp32"));
    QVERIFY(panel.summaryText().contains("bad.db: not a results database"));
    QVERIFY(panel.exportables().empty());

    f.study.setDatabase("imported.db");
    QVERIFY(waitShown(panel));
    QVERIFY(panel.hasReport());
    QVERIFY(panel.summaryText().contains("These runs carry no per-example predictions"));
    QVERIFY(panel.summaryText().contains("imported runs carry no weight snapshots"));
    QVERIFY(panel.exportables().empty());  // nothing to draw: no empty chart exported
  }

  void chartsExport() {
    PanelWithRuns f;
    DivergencePanel& panel = f.panel();
    panel.resize(1000, 700);
    f.study.setDatabase("study.db");
    panel.settle();
    const std::vector<Exportable> items = panel.exportables();
    QStringList names;
    for (const Exportable& e : items) names << e.name;
    QCOMPARE(names, QStringList({"divergence-churn", "divergence-classes", "divergence-weights"}));
    QTemporaryDir dir;
    QStringList written;
    QString error;
    QVERIFY2(exportAll(items, dir.path(), &written, &error), qPrintable(error));
    QCOMPARE(written.size(), 6);
    for (const QString& name : names) {
      const QImage png(dir.filePath(name + ".png"));
      QVERIFY2(!png.isNull(), qPrintable(name));
      QVERIFY(QSvgRenderer(dir.filePath(name + ".svg")).isValid());
    }
    for (int tab = 0; tab < 3; ++tab) {
      panel.charts()->setCurrentIndex(tab);
      QVERIFY(panel.currentExportable());
      QCOMPARE(panel.currentExportable()->name, names[tab]);
    }
  }

  // The window has the tab; Export all writes its charts.
  // `--tab divergence/per token band` finds the tab as soon as a language model's study is shown,
  // before its first report arrives; an image study's tab is "Per class".
  void aLanguageModelsGroupTabIsNamedBeforeTheReport() {
    PanelWithRuns f(false);
    // (capturing the panel, not f: a closure holding a file-local type in a member function of
    // the test class draws GCC's -Wsubobject-linkage)
    const auto groupTab = [&panel = f.panel()] {
      for (QTabWidget* tabs : panel.findChildren<QTabWidget*>())
        for (int i = 0; i < tabs->count(); ++i)
          if (tabs->tabText(i).startsWith("Per ")) return tabs->tabText(i);
      return QString();
    };
    QCOMPARE(groupTab(), QStringLiteral("Per class"));
    QFile file(QStringLiteral(PARITYLAB_SOURCE_DIR "/resources/studies/gpt.json"));
    QVERIFY(file.open(QIODevice::ReadOnly));
    f.study.setSpec(QString::fromUtf8(file.readAll()), QStringLiteral("gpt"));
    QCOMPARE(groupTab(), QStringLiteral("Per token band"));
    QFile quick(QStringLiteral(PARITYLAB_SOURCE_DIR "/resources/studies/quick.json"));
    QVERIFY(quick.open(QIODevice::ReadOnly));
    f.study.setSpec(QString::fromUtf8(quick.readAll()), QStringLiteral("quick"));
    QCOMPARE(groupTab(), QStringLiteral("Per class"));
  }

  void mainWindowHasTheTab() {
    MainWindow window;
    fillRuns(window.runData());
    FakeAnalysis fake;
    window.divergence()->setAnalysis(fake.function());
    // The shown study's database (the window's Export all writes its report too): a real one,
    // empty; the Divergence tab's analysis of it is the fake one.
    QTemporaryDir dbDir;
    const QString db = dbDir.filePath("study.db");
    study::ResultsStore::open(db.toStdString(), true);
    window.shownStudy()->setDatabase(db);
    bool found = false;
    for (int t = 0; t < window.tabs()->count(); ++t)
      found |= window.tabs()->tabText(t) == "Divergence";
    QVERIFY(found);
    QTemporaryDir dir;
    QString error;
    QStringList written;
    QVERIFY2(window.exportAllTo(dir.path(), &error, &written), qPrintable(error));
    for (const char* name :
         {"divergence-churn.png", "divergence-classes.svg", "divergence-weights.png"})
      QVERIFY2(written.contains(dir.filePath(name)), name);
  }
};

QTEST_MAIN(DivergencePanelTest)
#include "divergence_panel_test.moc"
