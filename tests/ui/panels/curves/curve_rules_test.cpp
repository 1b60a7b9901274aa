// What the Curves tab draws: points of short series are marked, so a 1-epoch study is not an
// empty chart; bands come from the same smoothed per-run series as the mean (debiased EMA); at
// each x only the runs that have it (N per point; cancelled runs dashed and out of the means);
// accuracy in percent, empty charts with a range and a hint, the x axis ends at the data and
// stays put when a backend is hidden.
#include <QAreaSeries>
#include <QComboBox>
#include <QFile>
#include <QImage>
#include <QLineSeries>
#include <QPainter>
#include <QTemporaryDir>
#include <QValueAxis>
#include <QtTest>
#include <cmath>
#include <map>

#include "ui/charts/backend_colours.h"
#include "ui/charts/chart_export.h"
#include "ui/charts/chart_hint.h"
#include "ui/charts/chart_view.h"
#include "ui/charts/point_markers.h"
#include "ui/panels/curves/curves_panel.h"
#include "ui/session/run_data.h"
#include "ui/session/shown_study.h"
#include "ui/session/study_bridge.h"

using namespace paritylab;
using namespace paritylab::ui;

namespace {

void addEpochs(RunData& data, std::int64_t id, const char* backend,
               const std::vector<double>& accuracies, study::RunState end) {
  study::RunKey k{id, backend, static_cast<std::uint64_t>(id)};
  const int epochs = static_cast<int>(accuracies.size());
  for (int e = 1; e <= epochs; ++e)
    data.applyEpoch({k, e, 3, 1.0 / e, 1.2 / e, accuracies[static_cast<std::size_t>(e - 1)], 1.0});
  if (end != study::RunState::Running) {
    study::RunStateEvent state;
    state.run = k;
    state.state = end;
    state.finalAccuracy = accuracies.back();
    data.applyState(state);
  }
  data.flush();
}

QLineSeries* meanSeries(const CurvesPanel& curves, const QString& backend) {
  for (QAbstractSeries* s : curves.chart()->series())
    if (s->name().startsWith(backend + " (N=")) return qobject_cast<QLineSeries*>(s);
  return nullptr;
}

QAreaSeries* bandSeries(const CurvesPanel& curves, const QString& backend) {
  for (QAbstractSeries* s : curves.chart()->series())
    if (s->name() == backend + " band") return qobject_cast<QAreaSeries*>(s);
  return nullptr;
}

double yAt(const QLineSeries* s, double x) {
  for (const QPointF& p : s->points())
    if (std::abs(p.x() - x) < 1e-9) return p.y();
  return NAN;
}

bool near(double a, double b) {
  return std::abs(a - b) < 1e-9;
}

// TensorBoard's smoothing (tensorboard/plugins/scalar/vz_line_chart2 "resmoothDataset"), written
// out again here: last = last * w + (1 - w) * y; debiased by 1 - w^k after k finite values.
std::vector<double> tensorBoardEma(const std::vector<double>& ys, double w) {
  std::vector<double> out;
  double last = 0;
  int k = 0;
  for (double y : ys) {
    last = last * w + (1 - w) * y;
    ++k;
    out.push_back(last / (1 - std::pow(w, k)));
  }
  return out;
}

// Pixels within `tolerance` of `colour` inside `area` of `image`.
int pixelsNear(const QImage& image, const QRect& area, const QColor& colour, int tolerance) {
  int n = 0;
  for (int y = area.top(); y <= area.bottom(); ++y)
    for (int x = area.left(); x <= area.right(); ++x) {
      const QColor c = image.pixelColor(x, y);
      if (std::abs(c.red() - colour.red()) <= tolerance &&
          std::abs(c.green() - colour.green()) <= tolerance &&
          std::abs(c.blue() - colour.blue()) <= tolerance)
        ++n;
    }
  return n;
}

}  // namespace

class CurveRulesTest : public QObject {
  Q_OBJECT

 private slots:
  // Markers on series with few points, none on long ones.
  void fewPointsGetMarkers() {
    QLineSeries one, many;
    one.append(1, 0.5);
    markPointsIfFew(&one, 7);
    QVERIFY(one.pointsVisible());
    QCOMPARE(one.markerSize(), 7.0);
    for (int i = 0; i < 200; ++i) many.append(i, i);
    markPointsIfFew(&many, 7);
    QVERIFY(!many.pointsVisible());
  }

  // A 1-epoch study shows a marker per run and per mean, drawn in the plot area.
  void oneEpochStudyShowsPoints() {
    ShownStudy study;
    RunData& data = *study.runs();
    addEpochs(data, 1, "cpu-fp32", {0.81}, study::RunState::Completed);
    addEpochs(data, 2, "cpu-fp32", {0.83}, study::RunState::Completed);
    addEpochs(data, 3, "tpu-bf16", {0.79}, study::RunState::Completed);
    CurvesPanel curves(&study);
    for (QAbstractSeries* s : curves.chart()->series())
      if (auto* line = qobject_cast<QLineSeries*>(s); line && line->count() > 0)
        QVERIFY2(line->pointsVisible(), qPrintable(line->name()));
    // Rendered as an export: the means' colours appear inside the plot area (the legend is
    // outside it), so the points are really drawn.
    const QSize size(900, 560);
    const Exportable e = exportableChart(curves.view(), "one-epoch", size);
    QImage image(size, QImage::Format_ARGB32);
    image.fill(Qt::white);
    {
      QPainter p(&image);
      p.setRenderHint(QPainter::Antialiasing);
      e.paint(p, size);
    }
    curves.chart()->resize(size);
    const QRect plot = curves.chart()->plotArea().toRect().adjusted(1, 1, -1, -1);
    QVERIFY2(pixelsNear(image, plot, BackendColours::of("cpu-fp32"), 12) >= 20,
             "no cpu-fp32 point drawn");
    QVERIFY2(pixelsNear(image, plot, BackendColours::of("tpu-bf16"), 12) >= 20,
             "no tpu-bf16 point drawn");
  }

  // Smoothed mean and band come from the same smoothed runs; on the reference
  // experiment's 28 runs the mean never leaves its min-max band.
  void bandsFollowSmoothedRuns() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QString error;
    const QString db = dir.filePath("reference.db");
    QVERIFY2(
        importResults(QStringLiteral(PARITYLAB_REFERENCE_DIR) + "/torchprime-resnet18-metrics.csv",
                      db, &error),
        qPrintable(error));
    LoadedStudy loaded;
    QVERIFY2(loadDatabase(db, &loaded, &error), qPrintable(error));
    // Independent reference: each run smoothed by TensorBoard's formula, then min/mean/max.
    const double w = 0.6;
    std::map<QString, std::map<int, std::vector<double>>> smoothed;  // backend -> epoch -> runs
    for (const ShownRun& run : loaded.runs) {
      std::vector<double> ys;
      for (const EpochPoint& e : run.epochs) ys.push_back(100 * e.testAccuracy);
      const std::vector<double> s = tensorBoardEma(ys, w);
      for (std::size_t i = 0; i < s.size(); ++i)
        smoothed[run.backend][run.epochs[i].epoch].push_back(s[i]);
    }
    ShownStudy study;
    RunData& data = *study.runs();
    data.setRuns(std::move(loaded.runs), loaded.title);
    CurvesPanel curves(&study);
    CurveOptions o;
    o.band = BandKind::MinMax;
    o.smoothing = w;
    curves.setOptions(o);
    int checked = 0;
    for (const QString& backend : {QStringLiteral("xla"), QStringLiteral("cuda")}) {
      QLineSeries* mean = meanSeries(curves, backend);
      QAreaSeries* band = bandSeries(curves, backend);
      QVERIFY(mean && band);
      for (const auto& [epoch, values] : smoothed[backend]) {
        double sum = 0, lo = INFINITY, hi = -INFINITY;
        for (double v : values) sum += v, lo = std::min(lo, v), hi = std::max(hi, v);
        const double m = yAt(mean, epoch);
        QVERIFY2(std::abs(m - sum / values.size()) < 1e-9,
                 qPrintable(QStringLiteral("%1 epoch %2: mean %3, expected %4")
                                .arg(backend)
                                .arg(epoch)
                                .arg(m)
                                .arg(sum / values.size())));
        QVERIFY(std::abs(yAt(band->lowerSeries(), epoch) - lo) < 1e-9);
        QVERIFY(std::abs(yAt(band->upperSeries(), epoch) - hi) < 1e-9);
        QVERIFY(m >= lo - 1e-9 && m <= hi + 1e-9);
        ++checked;
      }
    }
    QCOMPARE(checked, 50);  // 25 epochs x 2 backends
  }

  // Each x averages only the runs that reach it; N shows per point when it varies;
  // cancelled runs are dashed and left out of the means unless asked for.
  void meansUseOnlyRunsWithThatX() {
    ShownStudy study;
    RunData& data = *study.runs();
    addEpochs(data, 1, "cpu-fp32", {0.50, 0.60, 0.70}, study::RunState::Completed);
    addEpochs(data, 2, "cpu-fp32", {0.52, 0.62}, study::RunState::Running);
    addEpochs(data, 3, "cpu-fp32", {0.10, 0.10}, study::RunState::Cancelled);
    CurvesPanel curves(&study);
    QLineSeries* mean = meanSeries(curves, "cpu-fp32");
    QVERIFY(mean);
    QVERIFY(near(yAt(mean, 1), 51.0));
    QVERIFY(near(yAt(mean, 2), 61.0));
    QVERIFY(near(yAt(mean, 3), 70.0));  // only run 1 has epoch 3
    QCOMPARE(mean->name(), QStringLiteral("cpu-fp32 (N=1–2 per epoch, 1 left out)"));
    const BackendCurve& c = curves.curves().backends.front();
    QCOMPARE(c.band[0].n, 2);
    QCOMPARE(c.band[2].n, 1);
    // The cancelled run is drawn, dashed; the others solid.
    int dashed = 0, solid = 0;
    for (QAbstractSeries* s : curves.chart()->series())
      if (s->name().startsWith("cpu-fp32 seed")) {
        const auto* line = static_cast<QLineSeries*>(s);
        (line->pen().style() == Qt::DashLine ? dashed : solid)++;
        if (line->pen().style() == Qt::DashLine) QCOMPARE(s->name(), "cpu-fp32 seed 3");
      }
    QCOMPARE(dashed, 1);
    QCOMPARE(solid, 2);
    // Asked for, the cancelled run joins the means.
    CurveOptions o = curves.options();
    o.includeInterrupted = true;
    curves.setOptions(o);
    mean = meanSeries(curves, "cpu-fp32");
    QVERIFY(std::abs(yAt(mean, 1) - (50 + 52 + 10) / 3.0) < 1e-9);
    QCOMPARE(mean->name(), QStringLiteral("cpu-fp32 (N=1–3 per epoch)"));
  }

  // Accuracy in percent on the axis and in the values.
  void accuracyInPercent() {
    ShownStudy study;
    RunData& data = *study.runs();
    addEpochs(data, 1, "cpu-fp32", {0.5, 0.8}, study::RunState::Completed);
    CurvesPanel curves(&study);
    QVERIFY(near(yAt(meanSeries(curves, "cpu-fp32"), 2), 80.0));
    auto* y = qobject_cast<QValueAxis*>(curves.chart()->axes(Qt::Vertical).front());
    QVERIFY(y);
    QVERIFY2(y->titleText().contains("%"), qPrintable(y->titleText()));
    QVERIFY(y->max() <= 100.0);
    // Losses stay as they are.
    CurveOptions o = curves.options();
    o.metric = CurveMetric::TestLoss;
    curves.setOptions(o);
    QVERIFY(near(yAt(meanSeries(curves, "cpu-fp32"), 2), 0.6));
  }

  // Losses are in nats on the axis; a study compared on its validation loss (a language model's)
  // draws its held-out loss curve, named "validation loss" once the spec is a language model's,
  // perplexity is exp of that loss, and a language model's exports include the perplexity and
  // attention-logit charts.
  void curvesFollowTheComparedMetricInNatsAndPerplexity() {
    ShownStudy study;
    RunData& data = *study.runs();
    addEpochs(data, 1, "cpu-fp32", {0.5, 0.8}, study::RunState::Completed);
    CurvesPanel curves(&study);
    QCOMPARE(curves.options().metric, CurveMetric::TestAccuracy);
    // The four epoch curves and three early warnings: no perplexity or attention logits for a
    // classifier.
    QCOMPARE(curves.exportables().size(), std::size_t(7));
    study.setMetric(study::ComparedMetric::ValidationLoss);
    QCOMPARE(curves.options().metric, CurveMetric::TestLoss);
    auto* y = qobject_cast<QValueAxis*>(curves.chart()->axes(Qt::Vertical).front());
    QVERIFY(y);
    QCOMPARE(y->titleText(), QStringLiteral("test loss (nats)"));
    const double loss = yAt(meanSeries(curves, "cpu-fp32"), 2);
    study.setMetric(study::ComparedMetric::Perplexity);
    QCOMPARE(curves.options().metric, CurveMetric::Perplexity);
    QVERIFY(near(yAt(meanSeries(curves, "cpu-fp32"), 2), std::exp(loss)));

    QFile file(QStringLiteral(PARITYLAB_SOURCE_DIR "/resources/studies/gpt.json"));
    QVERIFY(file.open(QIODevice::ReadOnly));
    study.setSpec(QString::fromUtf8(file.readAll()), QStringLiteral("gpt"));
    QCOMPARE(curves.options().metric, CurveMetric::TestLoss);  // the spec's default metric
    // A language model's held-out loss is called what its runs table and verdicts call it.
    y = qobject_cast<QValueAxis*>(curves.chart()->axes(Qt::Vertical).front());
    QVERIFY(y);
    QCOMPARE(y->titleText(), QStringLiteral("validation loss (nats)"));
    QVERIFY(curves.chart()->title().endsWith(QStringLiteral("validation loss")));
    const QComboBox* chooser = nullptr;  // the metric chooser: the box offering the metrics
    for (const QComboBox* box : curves.findChildren<QComboBox*>())
      if (box->findText(QStringLiteral("gradient norm")) >= 0) chooser = box;
    QVERIFY(chooser);
    QCOMPARE(chooser->currentText(), QStringLiteral("validation loss"));
    QCOMPARE(chooser->findText(QStringLiteral("test loss")), -1);
    // A panel made once the spec is shown names it so from the start.
    CurvesPanel later(&study);
    const QComboBox* laterChooser = nullptr;
    for (const QComboBox* box : later.findChildren<QComboBox*>())
      if (box->findText(QStringLiteral("gradient norm")) >= 0) laterChooser = box;
    QVERIFY(laterChooser);
    QCOMPARE(laterChooser->currentText(), QStringLiteral("validation loss"));
    const std::vector<Exportable> exports = curves.exportables();
    QCOMPARE(exports.size(), std::size_t(9));
    QCOMPARE(exports[4].name, QStringLiteral("curves-perplexity"));
    QCOMPARE(exports[7].name, QStringLiteral("curves-attention-logit"));
  }

  // An empty chart has a sensible range and says what will appear.
  void emptyChartHasRangeAndHint() {
    ShownStudy study;
    RunData& data = *study.runs();
    CurvesPanel curves(&study);
    curves.setEmptyHint("Press Start: 15 runs (3 backends × 5 seeds, 3 epochs each)", 3);
    QVERIFY(curves.hint()->isShown());
    QCOMPARE(curves.hint()->text(), "Press Start: 15 runs (3 backends × 5 seeds, 3 epochs each)");
    auto* x = qobject_cast<QValueAxis*>(curves.chart()->axes(Qt::Horizontal).front());
    auto* y = qobject_cast<QValueAxis*>(curves.chart()->axes(Qt::Vertical).front());
    QCOMPARE(x->min(), 0.0);
    QVERIFY(x->max() >= 3.0 && x->max() < 3.2);
    QCOMPARE(y->min(), 0.0);
    QCOMPARE(y->max(), 100.0);
    addEpochs(data, 1, "cpu-fp32", {0.5}, study::RunState::Running);
    QVERIFY(!curves.hint()->isShown());
  }

  // The early warnings are step curves of what the runs stored: each run's points, each
  // backend's mean over its runs, the largest update ratio over the layers; a chart without any
  // says why (still to come in a live study, none stored, no attention in the model).
  void earlyWarningsAreStepCurvesOrSayWhyNot() {
    ShownStudy study;
    RunData& data = *study.runs();
    addEpochs(data, 1, "cpu-fp32", {0.5}, study::RunState::Running);
    addEpochs(data, 2, "cpu-fp32", {0.6}, study::RunState::Running);
    CurvesPanel curves(&study);
    CurveOptions o = curves.options();
    o.metric = CurveMetric::GradNorm;
    o.showBand = false;
    curves.setOptions(o);
    QVERIFY(curves.hint()->isShown());
    QCOMPARE(curves.hint()->text(), "The early warnings appear as each run's epochs are stored");
    study::SignalRecord a{4, 1, 2.0, NAN, 10.0, {1e-3f, 4e-3f}};
    study::SignalRecord b{8, 1, 3.0, NAN, 11.0, {2e-3f, NAN}};
    data.applySignals({{1, "cpu-fp32", 1}, {study::signalPointOf(a), study::signalPointOf(b)}});
    a.gradNorm = 4.0;
    b.gradNorm = 5.0;
    data.applySignals({{2, "cpu-fp32", 2}, {study::signalPointOf(a), study::signalPointOf(b)}});
    data.flush();
    QVERIFY(!curves.hint()->isShown());
    const QLineSeries* mean = meanSeries(curves, "cpu-fp32");
    QVERIFY(mean);
    QCOMPARE(mean->count(), 2);
    QVERIFY(near(mean->at(0).y(), 3.0));  // (2 + 4) / 2
    QVERIFY(near(mean->at(1).y(), 4.0));
    QCOMPARE(curves.chart()->axes(Qt::Horizontal).front()->titleText(), "step");
    o.metric = CurveMetric::UpdateRatio;
    curves.setOptions(o);
    QVERIFY(near(meanSeries(curves, "cpu-fp32")->at(0).y(), 4e-3f));  // the larger layer's
    QVERIFY(near(meanSeries(curves, "cpu-fp32")->at(1).y(), 2e-3f));  // NaN left out
    o.metric = CurveMetric::AttentionLogit;
    curves.setOptions(o);
    QVERIFY(curves.hint()->isShown());
    QCOMPARE(curves.hint()->text(),
             "The model has no attention layers: no attention logits to draw");
  }

  // The x axis ends at the data and stays put when a backend is hidden.
  void xAxisEndsAtDataAndStays() {
    ShownStudy study;
    RunData& data = *study.runs();
    addEpochs(data, 1, "cpu-fp32", {0.5, 0.6}, study::RunState::Completed);
    addEpochs(data, 2, "tpu-bf16", {0.5, 0.6, 0.7}, study::RunState::Completed);
    CurvesPanel curves(&study);
    auto* x = qobject_cast<QValueAxis*>(curves.chart()->axes(Qt::Horizontal).front());
    // Ends at the data, with room for the last marker: within 5% past the last epoch.
    QVERIFY(x->max() >= 3.0 * 1.03 && x->max() <= 3.0 * 1.05);
    const double lo = x->min(), hi = x->max();
    curves.setBackendHidden("tpu-bf16", true);
    QCOMPARE(x->min(), lo);
    QCOMPARE(x->max(), hi);
  }
};

QTEST_MAIN(CurveRulesTest)
#include "curve_rules_test.moc"
