// The statistics panel shows the same numbers as core/stats, and on the
// reference experiment's runs the Welch test gives t = 1.4035, p = 0.17 (SciPy: 0.17344679).
// One precision per column, the Hodges-Lehmann shift and CI with Mann-Whitney, "runs needed"
// names the test it assumes, and "detectable ≥" replaces observed power.
#include "ui/panels/statistics/statistics_panel.h"

#include <QFile>
#include <QImage>
#include <QPainter>
#include <QTableWidget>
#include <QtTest>
#include <cmath>

#include "core/stats/mann_whitney.h"
#include "core/stats/verdict.h"
#include "reference_samples.h"
#include "ui/panels/statistics/difference_plot.h"
#include "ui/session/run_data.h"
#include "ui/session/shown_study.h"

using namespace paritylab;
using namespace paritylab::ui;
using paritylab::ui::testing::kCudaFinal;
using paritylab::ui::testing::kXlaFinal;

class StatisticsPanelTest : public QObject {
  Q_OBJECT

  static std::vector<ShownRun> referenceRuns() {
    std::vector<ShownRun> runs;
    std::int64_t id = 1;
    for (const auto* sample : {&kXlaFinal, &kCudaFinal})
      for (double acc : *sample) {
        ShownRun r;
        r.runId = id++;
        r.backend = sample == &kXlaFinal ? "xla" : "cuda";
        r.state = study::RunState::Completed;
        r.finalAccuracy = acc;
        runs.push_back(r);
      }
    return runs;
  }

 private slots:
  void welchMatchesCoreAndScipy() {
    ShownStudy study;
    RunData& data = *study.runs();
    data.setRuns(referenceRuns(), "reference");
    StatisticsPanel panel(&study);
    panel.setMargin(1.0);
    panel.setSelection("xla", "cuda");
    QCOMPARE(panel.rows().size(), std::size_t(1));
    const auto& c = panel.rows()[0].comparison;
    QVERIFY(c.t_test.has_value());
    // SciPy 1.10 ttest_ind(equal_var=False).
    QVERIFY(std::abs(c.t_test->t - 1.4034822046081936) < 1e-9);
    QVERIFY(std::abs(c.t_test->p_value - 0.17344679058805318) < 1e-9);
    // Same numbers as core, shown in the table and in the verdict.
    stats::CompareOptions o;
    o.margin = 0.01;
    const auto core = stats::compareSamples("xla", kXlaFinal, "cuda", kCudaFinal, o);
    QCOMPARE(c.t_test->t, core.t_test->t);
    QCOMPARE(c.tost->p_value, core.tost->p_value);
    QCOMPARE(panel.verdictText(), QString::fromStdString(core.verdict));
    QVERIFY(panel.verdictText().contains("0.17"));
    QCOMPARE(panel.table()->rowCount(), 1);
    QCOMPARE(cell(panel, "t / U"), QStringLiteral("1.40"));
    QCOMPARE(cell(panel, "p"), QStringLiteral("0.173"));
    // What decides comes first: the pair, n, the difference, its CI and p, before the means.
    QCOMPARE(panel.table()->horizontalHeaderItem(6)->text(), QStringLiteral("p"));
    QVERIFY(panel.table()->isColumnHidden(7));  // p (Holm): only for a family of comparisons
  }

  static QString cell(const StatisticsPanel& panel, const QString& header) {
    const QTableWidget* t = panel.table();
    for (int c = 0; c < t->columnCount(); ++c)
      // Headers wrap onto two lines ("detectable ≥\n(pts)"); tests name them on one.
      if (t->horizontalHeaderItem(c)->text().replace('\n', ' ') == header)
        return t->item(0, c)->text();
    return QStringLiteral("<no column '%1'>").arg(header);
  }

  // p with 3 significant digits or "< 0.001"; points with 2 decimals.
  void formatsOnePrecisionPerColumn() {
    QCOMPARE(formatPValue(0.17344679058805318), QStringLiteral("0.173"));
    QCOMPARE(formatPValue(0.03051351864412646), QStringLiteral("0.0305"));
    QCOMPARE(formatPValue(0.05), QStringLiteral("0.0500"));
    QCOMPARE(formatPValue(1.0), QStringLiteral("1.00"));
    QCOMPARE(formatPValue(0.0012345), QStringLiteral("0.00123"));
    QCOMPARE(formatPValue(0.000999), QStringLiteral("< 0.001"));
    QCOMPARE(formatPValue(NAN), QStringLiteral("—"));
    QCOMPARE(formatPoints(0.0041643), QStringLiteral("0.42"));
    QCOMPARE(formatPoints(-0.0019640), QStringLiteral("-0.20"));
    QCOMPARE(formatPoints(INFINITY), QStringLiteral("∞"));
  }

  // Welch on the reference runs with a ±0.5 point margin: SciPy/statsmodels values in
  // tests/stats/reference_experiment_test.cpp (diff 0.4164, CI -0.1964 to 1.0292, p 0.17345,
  // TOST p 0.390, MDD 0.8669 points at 80%, 43 runs for ±0.5 points).
  void tableShowsDetectableDifferenceNotPower() {
    ShownStudy study;
    RunData& data = *study.runs();
    data.setRuns(referenceRuns(), "reference");
    StatisticsPanel panel(&study);
    panel.setMargin(0.5);
    panel.setSelection("xla", "cuda");
    QStringList headers;
    for (int c = 0; c < panel.table()->columnCount(); ++c)
      headers << panel.table()->horizontalHeaderItem(c)->text().replace('\n', ' ');
    QVERIFY(!headers.contains(QStringLiteral("power")));
    QCOMPARE(cell(panel, "diff (pts)"), QStringLiteral("0.42"));
    QCOMPARE(cell(panel, "CI (pts)"), QStringLiteral("[-0.20, 1.03]"));
    QCOMPARE(cell(panel, "p"), QStringLiteral("0.173"));
    QCOMPARE(cell(panel, "TOST p"), QStringLiteral("0.390"));
    QCOMPARE(cell(panel, "mean A %"), QStringLiteral("69.79"));
    QCOMPARE(cell(panel, "detectable ≥ (pts)"), QStringLiteral("0.87"));
    QCOMPARE(cell(panel, "runs needed (TOST)"), QStringLiteral("43"));
    QVERIFY(panel.verdictText().contains("this study would detect a difference of 0.87 points"));
    QVERIFY(!panel.verdictText().contains("underpowered"));
    // Power is selectable: at 90%, statsmodels' root x sd_w = 0.010033155214646311 (1.00 points).
    panel.setPower(0.9);
    QVERIFY(std::abs(panel.rows()[0].comparison.detectable->difference - 0.010033155214646311) <
            1e-10);
    QCOMPARE(cell(panel, "detectable ≥ (pts)"), QStringLiteral("1.00"));
    QVERIFY(panel.verdictText().contains("or more 90% of the time"));
    // Without a margin there is no runs-needed figure (never one for the observed difference).
    panel.setMargin(0.0);
    QCOMPARE(cell(panel, "runs needed (TOST)"), QStringLiteral("—"));
  }

  // The exported difference plot is painted at the export's size, whatever size the tab has on
  // screen (it was laid out at the widget's size: cut off, or a blank strip, in the image).
  void exportedDifferencePlotIgnoresTheTabsSize() {
    ShownStudy study;
    RunData& data = *study.runs();
    data.setRuns(referenceRuns(), "reference");
    StatisticsPanel panel(&study);
    panel.setSelection("xla", "cuda");
    const Exportable first = panel.exportables().front();
    QCOMPARE(first.name, QStringLiteral("difference"));
    QCOMPARE(first.size.height(), panel.plot()->heightForWidth(first.size.width()));
    const auto render = [&panel] {
      const Exportable e = panel.exportables().front();
      QImage image(e.size, QImage::Format_ARGB32);
      image.fill(Qt::transparent);
      QPainter painter(&image);
      e.paint(painter, e.size);
      return image;
    };
    panel.plot()->resize(400, 150);
    const QImage narrow = render();
    panel.plot()->resize(1500, 300);
    QCOMPARE(render(), narrow);
  }

  // With Mann-Whitney the difference and CI are the Hodges-Lehmann shift's (brute force over the
  // 196 pairwise differences, ties -> normal critical value: 0.42500 points, CI -0.17 to 1.11; see
  // tests/stats/hodges_lehmann_test.cpp), and the planning figures say they assume the t-test.
  void mannWhitneyShowsHodgesLehmann() {
    ShownStudy study;
    RunData& data = *study.runs();
    data.setRuns(referenceRuns(), "reference");
    StatisticsPanel panel(&study);
    panel.setMargin(0.5);
    panel.setSelection("xla", "cuda");
    panel.setTest(StatTest::MannWhitney);
    QVERIFY(panel.rows()[0].hodgesLehmann.has_value());
    QCOMPARE(panel.rows()[0].hodgesLehmann->estimate, 0.004249999999999976);
    QCOMPARE(cell(panel, "HL shift (pts)"), QStringLiteral("0.42"));
    QCOMPARE(cell(panel, "HL CI (pts)"), QStringLiteral("[-0.17, 1.11]"));
    QCOMPARE(cell(panel, "p"), QStringLiteral("0.223"));
    QCOMPARE(cell(panel, "t / U"), QStringLiteral("U = 125"));
    QCOMPARE(cell(panel, "detectable ≥ (pts)"), QStringLiteral("0.87 (Welch t)"));
    QCOMPARE(cell(panel, "runs needed (TOST)"), QStringLiteral("43 (Welch t)"));
    QVERIFY(panel.verdictText().contains("Hodges-Lehmann shift 0.42 points, 95% CI [-0.17, 1.11]"));
  }

  void studentAndMannWhitney() {
    ShownStudy study;
    RunData& data = *study.runs();
    data.setRuns(referenceRuns(), "reference");
    StatisticsPanel panel(&study);
    panel.setSelection("xla", "cuda");
    panel.setTest(StatTest::Student);
    QVERIFY(std::abs(panel.rows()[0].comparison.t_test->p_value - 0.1723042696475626) < 1e-9);
    panel.setTest(StatTest::MannWhitney);
    QVERIFY(panel.rows()[0].mannWhitney.has_value());
    QCOMPARE(panel.rows()[0].mannWhitney->u, 125.0);
    QVERIFY(std::abs(panel.rows()[0].mannWhitney->p_value - 0.22324415728809321) < 1e-9);
  }

  void recomputesLiveAsRunsFinish() {
    ShownStudy study;
    RunData& data = *study.runs();
    StatisticsPanel panel(&study);
    std::int64_t id = 1;
    for (double acc : {0.80, 0.81, 0.82}) {
      data.applyState({{id++, "a", 1}, study::RunState::Completed, 0, {}, acc});
      data.applyState({{id++, "b", 1}, study::RunState::Completed, 0, {}, acc + 0.01});
    }
    data.flush();
    panel.setSelection("a", "b");
    QCOMPARE(panel.rows()[0].comparison.n_a, std::size_t(3));
    data.applyState({{id++, "a", 2}, study::RunState::Completed, 0, {}, 0.79});
    data.flush();
    QCOMPARE(panel.rows()[0].comparison.n_a, std::size_t(4));
  }

  void allAgainstReference() {
    ShownStudy study;
    RunData& data = *study.runs();
    std::int64_t id = 1;
    for (const char* backend : {"ref", "x", "y"})
      for (double acc : {0.80, 0.82, 0.83, 0.85})
        data.applyState({{id++, backend, 1},
                         study::RunState::Completed,
                         0,
                         {},
                         acc + (backend[0] == 'y' ? 0.05 : 0.0)});
    data.flush();
    StatisticsPanel panel(&study);
    panel.setSelection("x", "ref");
    panel.setAllAgainstReference(true);
    QCOMPARE(panel.rows().size(), std::size_t(2));
    for (const StatRow& row : panel.rows())
      QVERIFY(row.pAdjusted >= row.comparison.t_test->p_value ||
              std::isnan(row.comparison.t_test->p_value));
  }

  // A study's runs arrive backend by backend (cpu-fp32 first): the pair shown is never a backend
  // against itself once a second one exists, and it is a backend against the reference.
  void defaultPairIsNeverABackendAgainstItself() {
    ShownStudy study;
    RunData& data = *study.runs();
    StatisticsPanel panel(&study);
    std::int64_t id = 1;
    data.applyState({{id++, "cpu-fp32", 0}, study::RunState::Completed, 0, {}, 0.80});
    data.flush();
    QVERIFY(panel.rows().empty());  // one backend: nothing to compare, said in words
    QVERIFY2(panel.verdictText().contains("needs a second backend"),
             qPrintable(panel.verdictText()));
    for (const char* backend : {"gpu-tf32", "tpu-bf16"})
      for (double acc : {0.80, 0.82})
        data.applyState({{id++, backend, 1}, study::RunState::Completed, 0, {}, acc});
    data.applyState({{id++, "cpu-fp32", 1}, study::RunState::Completed, 0, {}, 0.81});
    data.flush();
    const study::ReportOptions o = panel.reportOptions();
    QCOMPARE(QString::fromStdString(o.b), QStringLiteral("cpu-fp32"));
    QCOMPARE(QString::fromStdString(o.a), QStringLiteral("tpu-bf16"));
    QCOMPARE(panel.rows().size(), std::size_t(1));
    QCOMPARE(panel.rows()[0].comparison.name_a, std::string("tpu-bf16"));
  }

  // Picking the same backend twice is refused in words, and the report's options carry no pair
  // that compares a backend with itself.
  void samePairIsRefusedInWords() {
    ShownStudy study;
    RunData& data = *study.runs();
    data.setRuns(referenceRuns(), "reference");
    StatisticsPanel panel(&study);
    panel.setSelection("xla", "xla");
    QVERIFY(panel.rows().empty());
    QVERIFY2(panel.verdictText().contains("A and B are both xla"), qPrintable(panel.verdictText()));
    QVERIFY(panel.plot()->rows().empty());
    const study::ReportOptions o = panel.reportOptions();
    QVERIFY(o.a.empty() && o.b.empty());
  }

  // With Mann-Whitney the difference plot draws the Hodges-Lehmann shift and its CI (the table's
  // numbers), says so in its title, and each row carries its p and verdict.
  void differencePlotFollowsTheChosenTest() {
    ShownStudy study;
    RunData& data = *study.runs();
    data.setRuns(referenceRuns(), "reference");
    StatisticsPanel panel(&study);
    panel.setSelection("xla", "cuda");
    panel.setTest(StatTest::Welch);
    QCOMPARE(panel.plot()->rows().size(), std::size_t(1));
    QCOMPARE(panel.plot()->rows()[0].diff, panel.rows()[0].comparison.t_test->mean_diff * 100);
    QVERIFY(panel.plot()->title().contains("Welch t-test: difference of means"));
    QVERIFY2(panel.plot()->rows()[0].outcome.contains("p = 0.173"),
             qPrintable(panel.plot()->rows()[0].outcome));
    panel.setTest(StatTest::MannWhitney);
    const DifferenceRow& row = panel.plot()->rows()[0];
    QCOMPARE(row.diff, panel.rows()[0].hodgesLehmann->estimate * 100);
    QCOMPARE(row.ciLow, panel.rows()[0].hodgesLehmann->ci_low * 100);
    QCOMPARE(row.ciHigh, panel.rows()[0].hodgesLehmann->ci_high * 100);
    QVERIFY(std::isnan(row.tostLow));
    QVERIFY2(panel.plot()->title().contains("Hodges–Lehmann"), qPrintable(panel.plot()->title()));
    QVERIFY2(row.outcome.contains("p = 0.223") && row.outcome.contains("not significant"),
             qPrintable(row.outcome));
  }

  // TOST reads the (1 - 2 alpha) interval: alpha cannot reach 0.5, where it is undefined.
  void alphaStaysWhereTostIsDefined() {
    ShownStudy study;
    RunData& data = *study.runs();
    data.setRuns(referenceRuns(), "reference");
    StatisticsPanel panel(&study);
    panel.setSelection("xla", "cuda");
    panel.setMargin(1.0);
    panel.setAlpha(0.5);
    QVERIFY(panel.reportOptions().alpha < 0.5);
    QVERIFY(panel.rows()[0].comparison.tost.has_value());
    QVERIFY2(!panel.verdictText().contains("must be below"), qPrintable(panel.verdictText()));
    QVERIFY(!panel.plot()->title().contains(" 0% CI"));
  }

  // A language model's study is compared on its validation loss: the Metric chooser says so, the
  // table writes nats to 4 decimals, the margin is in nats, the verdict says lower is better and
  // is core's verdict for the same values; switching to accuracy compares the accuracies.
  void languageModelStudyIsComparedOnValidationLossInNats() {
    ShownStudy study;
    QFile file(QStringLiteral(PARITYLAB_SOURCE_DIR "/resources/studies/gpt.json"));
    QVERIFY(file.open(QIODevice::ReadOnly));
    study.setSpec(QString::fromUtf8(file.readAll()), QStringLiteral("gpt"));
    QCOMPARE(study.metric(), study::ComparedMetric::ValidationLoss);
    const std::vector<double> lossA = {2.4431, 2.4502, 2.4398, 2.4467, 2.4489};
    const std::vector<double> lossB = {2.4298, 2.4310, 2.4275, 2.4333, 2.4301};
    std::vector<ShownRun> runs;
    for (int i = 0; i < 10; ++i) {
      ShownRun r;
      r.runId = i + 1;
      r.backend = i < 5 ? "pure-bf16" : "cpu-fp32";
      r.state = study::RunState::Completed;
      r.finalTestLoss = i < 5 ? lossA[std::size_t(i)] : lossB[std::size_t(i - 5)];
      r.finalAccuracy = i < 5 ? 0.40 + 0.001 * i : 0.41 + 0.001 * i;
      runs.push_back(r);
    }
    study.runs()->setRuns(runs, "gpt");
    StatisticsPanel panel(&study);
    panel.setSelection("pure-bf16", "cpu-fp32");
    panel.setMargin(0.01);  // nats
    stats::CompareOptions o;
    o.margin = 0.01;
    o.words = study::metricWords(study::ComparedMetric::ValidationLoss);
    const auto core = stats::compareSamples("pure-bf16", lossA, "cpu-fp32", lossB, o);
    QCOMPARE(panel.verdictText(), QString::fromStdString(core.verdict));
    QVERIFY(panel.verdictText().contains("lower is better"));
    QCOMPARE(cell(panel, "mean A nats"), QStringLiteral("2.4457"));
    QCOMPARE(cell(panel, "diff (nats)"), QString::number(core.t_test->mean_diff, 'f', 4));
    QVERIFY(panel.plot()->title().contains("validation loss, nats"));

    study.setMetric(study::ComparedMetric::Accuracy);
    QVERIFY(panel.rows()[0].comparison.t_test);
    QVERIFY(std::abs(panel.rows()[0].comparison.t_test->mean_a - 0.402) < 1e-12);
    QCOMPARE(cell(panel, "mean A %"), QStringLiteral("40.20"));
    QVERIFY(panel.reportOptions().metric == study::ComparedMetric::Accuracy);
    QVERIFY(std::abs(*panel.reportOptions().margin - 0.01) < 1e-12);  // the default 1 point
  }
};

QTEST_MAIN(StatisticsPanelTest)
#include "statistics_panel_test.moc"
