// Overlapping histograms stay readable. Bars of different backends never
// overlap (side by side within a bin), so no fill blends into another colour; each bar is filled
// and outlined in its backend's colour; the zero line is neutral grey and no backend-coloured line
// runs along the whole axis.
#include <QAreaSeries>
#include <QLineSeries>
#include <QValueAxis>
#include <QtTest>
#include <cmath>

#include "tests/ui/panels/statistics/reference_samples.h"
#include "ui/charts/backend_colours.h"
#include "ui/panels/distributions/distributions_panel.h"
#include "ui/session/run_data.h"
#include "ui/session/shown_study.h"

using namespace paritylab;
using namespace paritylab::ui;

class HistogramBarsTest : public QObject {
  Q_OBJECT

  static void addFinished(RunData& data, std::int64_t id, const char* backend, double acc) {
    study::RunKey k{id, backend, static_cast<std::uint64_t>(id)};
    data.applyEpoch({k, 1, 1, 1.0, 1.0, acc, 1.0});
    study::RunStateEvent done;
    done.run = k;
    done.state = study::RunState::Completed;
    done.finalAccuracy = acc;
    data.applyState(done);
  }

 private slots:
  void barsSideBySideWithDistinctOutlines() {
    // The reference experiment's final accuracies: the two histograms overlap heavily.
    ShownStudy study;
    RunData& data = *study.runs();
    std::int64_t id = 0;
    for (double a : testing::kXlaFinal) addFinished(data, ++id, "xla", a);
    for (double a : testing::kCudaFinal) addFinished(data, ++id, "cuda", a);
    data.flush();
    DistributionsPanel dist(&study);
    dist.setBins(8);
    QCOMPARE(dist.histogramCount(), 2);
    const auto& bars = dist.bars();
    int total = 0;
    for (const HistogramBar& b : bars) total += b.count;
    QCOMPARE(total, 28);  // every run in one bar
    // No two bars overlap (so no blended colours).
    for (std::size_t i = 0; i < bars.size(); ++i)
      for (std::size_t j = i + 1; j < bars.size(); ++j)
        QVERIFY2(bars[i].x1 <= bars[j].x0 + 1e-9 || bars[j].x1 <= bars[i].x0 + 1e-9,
                 qPrintable(QStringLiteral("%1 [%2, %3] overlaps %4 [%5, %6]")
                                .arg(bars[i].backend)
                                .arg(bars[i].x0)
                                .arg(bars[i].x1)
                                .arg(bars[j].backend)
                                .arg(bars[j].x0)
                                .arg(bars[j].x1)));
    // Each drawn bar: an area over its own width only, in its backend's colour.
    auto* x = qobject_cast<QValueAxis*>(dist.chart()->axes(Qt::Horizontal).front());
    QVERIFY(x);
    const double axisSpan = x->max() - x->min();
    int areas = 0;
    for (QAbstractSeries* s : dist.chart()->series()) {
      if (auto* area = qobject_cast<QAreaSeries*>(s)) {
        ++areas;
        const QList<QPointF> lower = area->lowerSeries()->points();
        QVERIFY(lower.last().x() - lower.first().x() < axisSpan / 8);
        const QColor fill = area->brush().color();
        QVERIFY(fill.rgb() == BackendColours::of("xla").rgb() ||
                fill.rgb() == BackendColours::of("cuda").rgb());
        QVERIFY(fill.alpha() >= 120);  // opaque enough to read, and nothing lies beneath
      } else if (auto* line = qobject_cast<QLineSeries*>(s)) {
        // A line along zero over (nearly) the whole axis is the neutral baseline.
        const QList<QPointF> p = line->points();
        if (p.size() == 2 && p[0].y() == 0 && p[1].y() == 0 &&
            p[1].x() - p[0].x() > axisSpan * 0.9) {
          const QColor c = line->pen().color();
          QVERIFY2(c != BackendColours::of("xla") && c != BackendColours::of("cuda"),
                   "the baseline is drawn in a backend's colour");
          QVERIFY(c.hsvSaturation() < 50);  // a neutral grey, not a palette hue
        }
      }
    }
    QCOMPARE(areas, static_cast<int>(bars.size()));
  }

  // The histogram shows the metric the study is compared on: a loss in nats, said to be lower is
  // better, with every completed run that has one.
  void histogramFollowsTheComparedMetric() {
    ShownStudy study;
    RunData& data = *study.runs();
    for (std::int64_t id = 1; id <= 6; ++id) {
      study::RunKey k{id, id <= 3 ? "pure-bf16" : "cpu-fp32", static_cast<std::uint64_t>(id)};
      study::RunStateEvent done;
      done.run = k;
      done.state = study::RunState::Completed;
      done.finalAccuracy = 0.4;
      done.finalTestLoss = 2.43 + 0.01 * double(id);
      data.applyState(done);
    }
    data.flush();
    DistributionsPanel panel(&study);
    study.setMetric(study::ComparedMetric::ValidationLoss);
    auto* x = qobject_cast<QValueAxis*>(panel.chart()->axes(Qt::Horizontal).first());
    QVERIFY(x);
    QCOMPARE(x->titleText(), QStringLiteral("final validation loss (nats)"));
    QVERIFY(x->min() <= 2.44 && x->max() >= 2.49 && x->max() < 2.6);
    QCOMPARE(panel.chart()->title(),
             QStringLiteral("Final validation loss by backend (lower is better)"));
    study.setMetric(study::ComparedMetric::Perplexity);
    x = qobject_cast<QValueAxis*>(panel.chart()->axes(Qt::Horizontal).first());
    QVERIFY(x->min() <= std::exp(2.44) && x->max() >= std::exp(2.49));
  }
};

QTEST_MAIN(HistogramBarsTest)
#include "histogram_bars_test.moc"
