// Hovering a chart shows a vertical crosshair at the nearest data x and every
// visible series' value there (as TensorBoard and W&B do), not a tooltip needing a 2-pixel hit.
#include <QLineSeries>
#include <QtTest>

#include "ui/charts/chart_crosshair.h"
#include "ui/charts/chart_view.h"
#include "ui/panels/curves/curves_panel.h"
#include "ui/session/run_data.h"
#include "ui/session/shown_study.h"

using namespace paritylab;
using namespace paritylab::ui;

namespace {

void addRun(RunData& data, std::int64_t id, const char* backend, double finalAcc, int epochs) {
  study::RunKey k{id, backend, static_cast<std::uint64_t>(id)};
  for (int e = 1; e <= epochs; ++e)
    data.applyEpoch({k, e, epochs, 1.0 / e, 1.2 / e, finalAcc * e / epochs, 1.0});
  study::RunStateEvent done;
  done.run = k;
  done.state = study::RunState::Completed;
  done.finalAccuracy = finalAcc;
  data.applyState(done);
  data.flush();
}

}  // namespace

class CrosshairTest : public QObject {
  Q_OBJECT

 private slots:
  // Hovering shows a vertical line at the nearest data x and every visible series'
  // value there (means with N, and each run).
  void crosshairListsEverySeriesAtX() {
    ShownStudy study;
    RunData& data = *study.runs();
    addRun(data, 1, "cpu-fp32", 0.80, 4);
    addRun(data, 2, "cpu-fp32", 0.84, 4);
    addRun(data, 3, "tpu-bf16", 0.90, 4);
    CurvesPanel curves(&study);
    curves.resize(900, 600);
    curves.show();
    QVERIFY(QTest::qWaitForWindowExposed(&curves));
    ChartView* view = curves.view();
    QChart* chart = curves.chart();
    // A mouse position near epoch 3 (x = 2.9), mid-height.
    QLineSeries* anySeries = nullptr;
    for (QAbstractSeries* s : chart->series())
      if ((anySeries = qobject_cast<QLineSeries*>(s))) break;
    QVERIFY(anySeries);
    const QPointF inChart = chart->mapToPosition(QPointF(2.9, 50), anySeries);
    const QPoint at = view->mapFromScene(chart->mapToScene(inChart));
    QTest::mouseMove(view->viewport(), at);
    QVERIFY(curves.crosshair()->isShown());
    const QString text = curves.crosshair()->text();
    QVERIFY2(text.startsWith("epoch 3"), qPrintable(text));
    // Accuracy at epoch 3 of 4: final * 3/4, in percent.
    QVERIFY2(text.contains("cpu-fp32 mean: 61.50% (N=2)"), qPrintable(text));
    QVERIFY2(text.contains("tpu-bf16 mean: 67.50% (N=1)"), qPrintable(text));
    QVERIFY2(text.contains("cpu-fp32 seed 1: 60.00%"), qPrintable(text));
    QVERIFY2(text.contains("cpu-fp32 seed 2: 63.00%"), qPrintable(text));
    QVERIFY2(text.contains("tpu-bf16 seed 3: 67.50%"), qPrintable(text));
    const auto rows = curves.crosshair()->rowsAt(3.0);
    QCOMPARE(rows.size(), std::size_t(5));  // 2 means + 3 runs
    // A hidden backend leaves the list.
    curves.setBackendHidden("tpu-bf16", true);
    QTest::mouseMove(view->viewport(), at + QPoint(1, 0));
    QVERIFY(!curves.crosshair()->text().contains("tpu-bf16"));
    QCOMPARE(curves.crosshair()->rowsAt(3.0).size(), std::size_t(3));
    // Outside the plot area it disappears.
    QTest::mouseMove(view->viewport(), QPoint(2, 2));
    QVERIFY(!curves.crosshair()->isShown());
  }
};

QTEST_MAIN(CrosshairTest)
#include "crosshair_test.moc"
