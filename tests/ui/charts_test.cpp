// Covers issue #5: charts gain series as runs finish; smoothing and bands are computed right.
#include <QLineSeries>
#include <QtTest>
#include <cmath>

#include "ui/curves_panel.h"
#include "ui/distributions_panel.h"
#include "ui/run_data.h"
#include "ui/series_math.h"

using namespace paritylab;
using namespace paritylab::ui;

class ChartsTest : public QObject {
  Q_OBJECT

  static void addRun(RunData& data, std::int64_t id, const char* backend, double finalAcc,
                     int epochs = 3) {
    study::RunKey k{id, backend, static_cast<std::uint64_t>(id)};
    for (int e = 1; e <= epochs; ++e)
      data.applyEpoch({k, e, epochs, 1.0 / e, 1.2 / e, finalAcc * e / epochs, 1.0});
    study::RunStateEvent done{k, study::RunState::Completed};
    done.finalAccuracy = finalAcc;
    data.applyState(done);
    data.flush();
  }

 private slots:
  void curvesGainSeriesAsRunsArrive() {
    RunData data;
    CurvesPanel curves(&data);
    QCOMPARE(curves.runSeriesCount(), 0);
    addRun(data, 1, "tpu-bf16", 0.80);
    QCOMPARE(curves.runSeriesCount(), 1);
    QCOMPARE(curves.backendSeriesCount(), 1);
    addRun(data, 2, "cpu-fp32", 0.82);
    addRun(data, 3, "cpu-fp32", 0.84);
    QCOMPARE(curves.runSeriesCount(), 3);
    QCOMPARE(curves.backendSeriesCount(), 2);
    // The mean line's legend names N.
    bool found = false;
    for (QAbstractSeries* s : curves.chart()->series())
      if (s->name() == QStringLiteral("cpu-fp32 mean (N=2)")) {
        found = true;
        const auto* line = qobject_cast<QLineSeries*>(s);
        QVERIFY(line);
        QCOMPARE(line->count(), 3);
        // Mean of 0.82 and 0.84 at the last epoch, in percent (issue 10, item 11).
        QVERIFY(std::abs(line->at(2).y() - 83.0) < 1e-9);
      }
    QVERIFY(found);
    curves.setBackendHidden("cpu-fp32", true);
    QVERIFY(curves.backendHidden("cpu-fp32"));
    for (QAbstractSeries* s : curves.chart()->series())
      if (s->name().startsWith("cpu-fp32")) QVERIFY(!s->isVisible());
  }

  void histogramsAppearAsRunsFinish() {
    RunData data;
    DistributionsPanel dist(&data);
    QCOMPARE(dist.histogramCount(), 0);
    // A running run is not in the histogram.
    data.applyEpoch({{1, "gpu-tf32", 1}, 1, 3, 1.0, 1.0, 0.5, 1.0});
    data.flush();
    QCOMPARE(dist.histogramCount(), 0);
    addRun(data, 2, "gpu-tf32", 0.9);
    QCOMPARE(dist.histogramCount(), 1);
    addRun(data, 3, "tpu-bf16", 0.88);
    QCOMPARE(dist.histogramCount(), 2);
  }

  void emaMatchesHandComputation() {
    // weight 0.5: s1 = 0.5*1 / (1-0.5) = 1; s2 = (0.25 + 0.5*3) / 0.75 = 2.333...
    const auto s = emaSmooth({{1, 1.0}, {2, 3.0}}, 0.5);
    QCOMPARE(s[0].y, 1.0);
    QVERIFY(std::abs(s[1].y - 1.75 / 0.75) < 1e-12);
    QCOMPARE(emaSmooth({{1, 2.0}}, 0.0)[0].y, 2.0);
  }

  void bandsMatchHandComputation() {
    const std::vector<std::vector<XY>> curves = {{{1, 1.0}}, {{1, 2.0}}, {{1, 4.0}}};
    const auto sd = meanBand(curves, BandKind::StdDev);
    QCOMPARE(sd.size(), std::size_t(1));
    QVERIFY(std::abs(sd[0].mean - 7.0 / 3) < 1e-12);
    const double s = std::sqrt(((1 - 7.0 / 3) * (1 - 7.0 / 3) + (2 - 7.0 / 3) * (2 - 7.0 / 3) +
                                (4 - 7.0 / 3) * (4 - 7.0 / 3)) /
                               2);
    QVERIFY(std::abs(sd[0].high - (7.0 / 3 + s)) < 1e-12);
    const auto se = meanBand(curves, BandKind::StdErr);
    QVERIFY(std::abs(se[0].low - (7.0 / 3 - s / std::sqrt(3.0))) < 1e-12);
    const auto mm = meanBand(curves, BandKind::MinMax);
    QCOMPARE(mm[0].low, 1.0);
    QCOMPARE(mm[0].high, 4.0);
    QCOMPARE(mm[0].n, 3);
    const auto h = histogram({0.1, 0.2, 0.25, 0.9}, 0.0, 1.0, 4);
    QCOMPARE(h.counts, (std::vector<int>{2, 1, 0, 1}));  // 0.25 opens the second bin
  }
};

QTEST_MAIN(ChartsTest)
#include "charts_test.moc"
