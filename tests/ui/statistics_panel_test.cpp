// Covers issue #5: the statistics panel shows the same numbers as core/stats, and on the
// reference experiment's runs the Welch test gives t = 1.4035, p = 0.17 (SciPy: 0.17344679).
#include "ui/statistics_panel.h"

#include <QTableWidget>
#include <QtTest>
#include <cmath>

#include "core/stats/mann_whitney.h"
#include "core/stats/verdict.h"
#include "reference_samples.h"
#include "ui/run_data.h"

using namespace paritylab;
using namespace paritylab::ui;
using paritylab::ui::testing::kCudaFinal;
using paritylab::ui::testing::kXlaFinal;

class StatisticsPanelTest : public QObject {
  Q_OBJECT

  static std::vector<RunRecord> referenceRuns() {
    std::vector<RunRecord> runs;
    std::int64_t id = 1;
    for (const auto* sample : {&kXlaFinal, &kCudaFinal})
      for (double acc : *sample) {
        RunRecord r;
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
    RunData data;
    data.setRuns(referenceRuns(), "reference");
    StatisticsPanel panel(&data);
    panel.setMarginPoints(1.0);
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
    QCOMPARE(panel.table()->item(0, 10)->text(), QString::number(core.t_test->t, 'g', 5));
    QCOMPARE(panel.table()->item(0, 12)->text(), QStringLiteral("0.17"));
  }

  void studentAndMannWhitney() {
    RunData data;
    data.setRuns(referenceRuns(), "reference");
    StatisticsPanel panel(&data);
    panel.setSelection("xla", "cuda");
    panel.setTest(StatTest::Student);
    QVERIFY(std::abs(panel.rows()[0].comparison.t_test->p_value - 0.1723042696475626) < 1e-9);
    panel.setTest(StatTest::MannWhitney);
    QVERIFY(panel.rows()[0].mannWhitney.has_value());
    QCOMPARE(panel.rows()[0].mannWhitney->u, 125.0);
    QVERIFY(std::abs(panel.rows()[0].mannWhitney->p_value - 0.22324415728809321) < 1e-9);
  }

  void recomputesLiveAsRunsFinish() {
    RunData data;
    StatisticsPanel panel(&data);
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
    RunData data;
    std::int64_t id = 1;
    for (const char* backend : {"ref", "x", "y"})
      for (double acc : {0.80, 0.82, 0.83, 0.85})
        data.applyState({{id++, backend, 1},
                         study::RunState::Completed,
                         0,
                         {},
                         acc + (backend[0] == 'y' ? 0.05 : 0.0)});
    data.flush();
    StatisticsPanel panel(&data);
    panel.setSelection("x", "ref");
    panel.setAllAgainstReference(true);
    QCOMPARE(panel.rows().size(), std::size_t(2));
    for (const StatRow& row : panel.rows())
      QVERIFY(row.pAdjusted >= row.comparison.t_test->p_value ||
              std::isnan(row.comparison.t_test->p_value));
  }
};

QTEST_MAIN(StatisticsPanelTest)
#include "statistics_panel_test.moc"
