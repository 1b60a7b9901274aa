// Charts gain series as runs finish; smoothing and bands are computed right.
#include <QAreaSeries>
#include <QLineSeries>
#include <QValueAxis>
#include <QtTest>
#include <cmath>

#include "ui/charts/series_math.h"
#include "ui/panels/curves/curves_panel.h"
#include "ui/panels/distributions/distributions_panel.h"
#include "ui/session/run_data.h"
#include "ui/session/shown_study.h"

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
    ShownStudy study;
    RunData& data = *study.runs();
    CurvesPanel curves(&study);
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
      if (s->name() == QStringLiteral("cpu-fp32 (N=2)")) {
        found = true;
        const auto* line = qobject_cast<QLineSeries*>(s);
        QVERIFY(line);
        QCOMPARE(line->count(), 3);
        // Mean of 0.82 and 0.84 at the last epoch, in percent.
        QVERIFY(std::abs(line->at(2).y() - 83.0) < 1e-9);
      }
    QVERIFY(found);
    curves.setBackendHidden("cpu-fp32", true);
    QVERIFY(curves.backendHidden("cpu-fp32"));
    for (QAbstractSeries* s : curves.chart()->series())
      if (s->name().startsWith("cpu-fp32")) QVERIFY(!s->isVisible());
  }

  void histogramsAppearAsRunsFinish() {
    ShownStudy study;
    RunData& data = *study.runs();
    DistributionsPanel dist(&study);
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

  // A live study lists its runs as planned (ids < 0) before the runner gives them database ids:
  // once epochs arrive under the new ids, each run's own curve is drawn at once, without any
  // control being touched.
  void plannedRunsAreDrawnOnceTheyTrain() {
    ShownStudy study;
    RunData& data = *study.runs();
    std::vector<ShownRun> planned;
    for (int i = 0; i < 4; ++i) {
      ShownRun run;
      run.runId = -1 - i;
      run.backend = i % 2 ? "tpu-bf16" : "cpu-fp32";
      run.seed = static_cast<std::uint64_t>(i / 2);
      run.currentLoss = std::nan("");
      planned.push_back(run);
    }
    data.setRuns(std::move(planned), "live");
    CurvesPanel curves(&study);
    QCOMPARE(curves.runSeriesCount(), 4);
    for (int i = 0; i < 4; ++i) {
      const study::RunKey key{100 + i, i % 2 ? "tpu-bf16" : "cpu-fp32",
                              static_cast<std::uint64_t>(i / 2)};
      data.applyState({key, study::RunState::Running});
      for (int e = 1; e <= 2; ++e)
        data.applyEpoch({key, e, 2, 1.0 / e, 1.1 / e, 0.5 + 0.1 * e + 0.01 * i, 1.0});
    }
    data.flush();
    for (int i = 0; i < 4; ++i)
      QVERIFY2(curves.runDrawn(100 + i), qPrintable(QStringLiteral("run %1").arg(100 + i)));
  }

  // Runs hidden from the table are not drawn (the others are); runs selected there are drawn
  // thicker than the rest.
  void hiddenRunsAreNotDrawnAndSelectedRunsStandOut() {
    ShownStudy study;
    RunData& data = *study.runs();
    CurvesPanel curves(&study);
    addRun(data, 1, "cpu-fp32", 0.80);
    addRun(data, 2, "cpu-fp32", 0.82);
    QVERIFY(curves.runDrawn(1) && curves.runDrawn(2));
    curves.setHiddenRuns({1});
    QVERIFY(!curves.runDrawn(1));
    QVERIFY(curves.runDrawn(2));
    curves.setHiddenRuns({});
    QVERIFY(curves.runDrawn(1));
    curves.setHighlightedRuns({2});
    double widest = 0, other = 0;
    for (QAbstractSeries* s : curves.chart()->series())
      if (auto* line = qobject_cast<QLineSeries*>(s)) {
        if (line->name() == QStringLiteral("cpu-fp32 seed 2")) widest = line->pen().widthF();
        if (line->name() == QStringLiteral("cpu-fp32 seed 1")) other = line->pen().widthF();
      }
    QVERIFY2(widest > other && other > 0,
             qPrintable(QStringLiteral("%1 vs %2").arg(widest).arg(other)));
  }

  // A study of one epoch: its points sit in the middle of the x axis, not on its right edge, and
  // the band has a width, so the spread between runs shows.
  void oneEpochChartIsReadable() {
    ShownStudy study;
    RunData& data = *study.runs();
    CurvesPanel curves(&study);
    addRun(data, 1, "cpu-fp32", 0.80, 1);
    addRun(data, 2, "cpu-fp32", 0.84, 1);
    const auto* x = qobject_cast<QValueAxis*>(curves.chart()->axes(Qt::Horizontal).front());
    QVERIFY(x);
    QVERIFY2(x->max() >= 1.9, qPrintable(QString::number(x->max())));
    bool bandHasWidth = false;
    for (QAbstractSeries* s : curves.chart()->series())
      if (auto* area = qobject_cast<QAreaSeries*>(s))
        bandHasWidth |= area->upperSeries()->count() == 2 &&
                        area->upperSeries()->at(1).x() > area->upperSeries()->at(0).x();
    QVERIFY(bandHasWidth);
  }
};

QTEST_MAIN(ChartsTest)
#include "charts_test.moc"
