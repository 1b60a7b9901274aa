// The Divergence tab's views as pure functions of a hand-made
// DivergenceReport (tests/ui/panels/divergence/divergence_reports.h): the churn matrix's cells and
// why undefined ones are empty, the per-class bars with CI whiskers, seed-noise band and marks, the
// per-layer weight distances (solid precision, dashed floor, log axis, legend per layer), the
// headline with the McNemar and paired-test summary, and the reasons shown instead of an empty
// chart.
#include <QChart>
#include <QImage>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPainter>
#include <QtTest>
#include <cmath>

#include "tests/ui/panels/divergence/divergence_reports.h"
#include "ui/charts/chart_hint.h"
#include "ui/panels/divergence/churn_matrix_view.h"
#include "ui/panels/divergence/class_difference_view.h"
#include "ui/panels/divergence/divergence_text.h"
#include "ui/panels/divergence/serve_matrix_view.h"
#include "ui/panels/divergence/weight_divergence_view.h"
#include "ui/panels/statistics/statistics_table.h"

using namespace paritylab;
using namespace paritylab::ui;
using paritylab::ui::testing::importedReport;
using paritylab::ui::testing::threeBackendReport;

namespace {

QImage paint(const std::function<void(QPainter&, const QSize&)>& painter, QSize size) {
  QImage image(size, QImage::Format_RGB32);
  image.fill(Qt::white);
  QPainter p(&image);
  painter(p, size);
  return image;
}

}  // namespace

class DivergenceViewsTest : public QObject {
  Q_OBJECT

 private slots:
  // Percent with 2 decimals, as `paritylab-cli compare` prints churn.
  void churnPercentages() {
    QCOMPARE(formatChurnCell(0.0193), QString("1.93%"));
    QCOMPARE(formatChurnCell(0.121), QString("12.10%"));
    QCOMPARE(formatChurnCell(0.00052), QString("0.05%"));
    QCOMPARE(formatChurnCell(1.0), QString("100.00%"));
    QCOMPARE(formatChurnCell(0.0), QString("0.00%"));
    QCOMPARE(formatChurnCell(NAN), QString("—"));
  }

  // The matrix: values written in the cells, the diagonal labelled seed churn, undefined cells
  // grey with the reason, more churn darker, the A-vs-B cell outlined.
  // The train x serve matrix: flips per cell with the KL beneath, the diagonal one item at a
  // time, the seed floor in its own column, unmeasured cells saying so, drawn darker for more.
  void serveMatrixCells() {
    study::TrainServeMatrix m;
    m.backends = {"cpu-fp32", "tpu-bf16"};
    m.cells.resize(4);
    m.cells[0] = {"cpu-fp32", "cpu-fp32", 1, 3, 1000, 0.0, 0.0, 0.0, 0.0};
    m.cells[1] = {"cpu-fp32", "tpu-bf16", 1000, 3, 10000, 0.004, 2.1e-5, 0.01, -0.001};
    m.cells[2] = {"tpu-bf16", "cpu-fp32", 1000, 3, 10000, 0.012, 3e-5, 0.02, 0.0};
    m.cells[3] = {"tpu-bf16", "tpu-bf16", 0, 0, 0, NAN, NAN, NAN, NAN};
    m.seedFloor.resize(2);
    stats::ChurnEstimate floor;
    floor.pairs = 3;
    floor.mean = 0.081;
    m.seedFloor[0] = floor;
    m.headlines = {"trained on cpu-fp32: served on tpu-bf16, 0.40% of test predictions flip"};
    ServeMatrixView view;
    QVERIFY(!view.hasMatrix());
    view.setMatrix(m);
    QVERIFY(view.hasMatrix());
    QCOMPARE(view.cellText(0, 0), (QStringList{"0.00%", "one at a time", "3 runs"}));
    QCOMPARE(view.cellText(0, 1).value(0), formatChurnCell(0.004));
    QCOMPARE(view.cellText(0, 1).value(1), "KL 2.1e-05 nats");
    QCOMPARE(view.cellText(1, 1), (QStringList{"—", "not served"}));
    QCOMPARE(view.cellText(0, 2), (QStringList{formatChurnCell(0.081), "two seeds"}));
    QCOMPARE(view.cellText(1, 2), (QStringList{"—", "fewer than 2 runs"}));
    const QImage image =
        paint([&](QPainter& p, const QSize& s) { view.paintTo(p, s); }, {900, 600});
    // The floor (8.1%, the scale's top) is the darkest cell: some pixel near the ramp's end.
    int dark = 0;
    for (int y = 0; y < image.height(); ++y)
      for (int x = 0; x < image.width(); ++x)
        dark += QColor(image.pixel(x, y)).lightnessF() < 0.35 ? 1 : 0;
    QVERIFY(dark > 1000);
    QCOMPARE(exportableServeMatrix(&view).name, "divergence-serving");
  }

  void churnMatrixCells() {
    const study::DivergenceReport report = threeBackendReport();
    ChurnMatrixView view;
    view.setReport(report);
    QCOMPARE(view.backendCount(), 3);
    QVERIFY(view.emptyReason().isEmpty());
    QCOMPARE(view.cellText(0, 0), QStringList({"7.80%", "7.10–8.50%", "seed churn"}));
    QCOMPARE(view.cellText(2, 0), QStringList({"1.90%", "1.50–2.30%", "same seed"}));
    QCOMPARE(view.cellText(0, 1), QStringList({"0.00%", "0.00–0.00%", "same seed"}));
    QCOMPARE(view.cellText(2, 2), QStringList({"—", "fewer than 2 seeds"}));
    // As `paritylab-cli compare` prints them: 2 decimals.
    study::ChurnCell seed{"cpu-fp32", "cpu-fp32", testing::churnEstimate(3, 0.121, 0.114, 0.132)};
    QCOMPARE(churnCellLines(seed), QStringList({"12.10%", "11.40–13.20%", "seed churn"}));
    study::ChurnCell unshared{"gpu-tf32", "tpu-bf16", testing::churnEstimate(0, 0, 0, 0)};
    QCOMPARE(churnCellLines(unshared), QStringList({"—", "no shared seed"}));
    // Colours: darker with more churn; undefined grey, distinct from zero churn's white-ish.
    QVERIFY(view.cellColour(0, 0).lightnessF() < view.cellColour(2, 0).lightnessF());
    QVERIFY(view.cellColour(2, 0).lightnessF() < view.cellColour(0, 1).lightnessF());
    QVERIFY(view.cellColour(2, 2) != view.cellColour(0, 1));
    QVERIFY(view.cellColour(2, 2).saturation() < 30);  // grey
    // Drawn: every cell inside the image, the A-vs-B cell (row tpu-bf16, column cpu-fp32)
    // outlined in dark ink, the other cells not.
    const QSize size(700, 460);
    const QImage image = paint([&](QPainter& p, const QSize& s) { view.paintTo(p, s); }, size);
    const QRectF ab = view.cellRect(size, 2, 0), other = view.cellRect(size, 1, 0);
    QVERIFY(QRectF(QPointF(0, 0), QSizeF(size)).contains(view.cellRect(size, 2, 2)));
    const auto edgeInk = [&](const QRectF& r) {
      return qGray(image.pixel(int(r.center().x()), int(r.top() + 2)));
    };
    QVERIFY2(edgeInk(ab) < 90, qPrintable(QString::number(edgeInk(ab))));
    QVERIFY2(edgeInk(other) > 150, qPrintable(QString::number(edgeInk(other))));
  }

  // Per class: bar = mean difference A - B in points, whiskers = the Welch CI, band = B's SD,
  // beyond the seed noise = Holm p < alpha (Shirt, 6 points down), marked red.
  void classBarsFromTheReport() {
    const study::DivergenceReport report = threeBackendReport();
    ClassDifferenceView view;
    view.setReport(report, 0.05);
    QCOMPARE(view.bars().size(), std::size_t(10));
    int beyond = 0;
    for (std::size_t k = 0; k < 10; ++k) {
      const ClassBar& bar = view.bars()[k];
      const study::ClassRow& row = report.classes[k];
      QCOMPARE(bar.label, QString::fromStdString(testing::kFashionNames[k]));
      QVERIFY(std::abs(bar.diff - 100 * row.difference.welch.mean_diff) < 1e-9);
      QCOMPARE(bar.ciLow, 100 * row.difference.welch.ci_low);
      QCOMPARE(bar.ciHigh, 100 * row.difference.welch.ci_high);
      QCOMPARE(bar.noise, 100 * row.difference.sd_reference);
      QCOMPARE(bar.beyondNoise, row.difference.beyond_seed_noise);
      QVERIFY(view.extent() >= std::abs(bar.ciLow) && view.extent() >= std::abs(bar.ciHigh));
      QVERIFY(view.extent() >= bar.noise);
      beyond += bar.beyondNoise;
    }
    QVERIFY(view.bars()[6].beyondNoise);
    QVERIFY(view.bars()[6].diff < -5.9 && view.bars()[6].diff > -6.1);
    QCOMPARE(beyond, 1);
    // Drawn: Shirt's bar is red half-way to its difference; the seed-noise band is grey on the
    // other side of zero (where no bar is) in a class with a band.
    const QSize size(900, view.heightForWidth(900));
    const QImage image = paint([&](QPainter& p, const QSize& s) { view.paintTo(p, s); }, size);
    const QColor shirt = image.pixelColor(int(view.xOf(size, view.bars()[6].diff / 2)),
                                          int(view.rowCentre(size, 6)));
    QVERIFY2(shirt.red() > shirt.blue() + 40 && shirt.red() > shirt.green() + 40,
             qPrintable(shirt.name()));
    int banded = -1;
    for (int k = 0; k < 10; ++k)
      if (view.bars()[std::size_t(k)].noise > 0.2 && std::abs(view.bars()[std::size_t(k)].diff) < 5)
        banded = k;
    QVERIFY(banded >= 0);
    const ClassBar& b = view.bars()[std::size_t(banded)];
    const double side = b.diff > 0 ? -0.7 * b.noise : 0.7 * b.noise;  // inside the band, no bar
    const QColor band =
        image.pixelColor(int(view.xOf(size, side)), int(view.rowCentre(size, banded) - 9));
    QVERIFY2(band.saturation() < 40 && qGray(band.rgb()) < 245 && qGray(band.rgb()) > 150,
             qPrintable(band.name()));
    QVERIFY(view.title().contains("tpu-bf16 − cpu-fp32"));
    QVERIFY(view.title().contains("95% Welch CI"));
  }

  // Per layer over epochs: solid precision, dashed floor in the same colour, percent on a log
  // axis, one legend entry per layer, zero distances counted instead of drawn.
  void weightDivergenceSeries() {
    const study::DivergenceReport report = threeBackendReport();
    WeightDivergenceView view;
    view.resize(900, 560);
    view.setReport(report);
    view.show();  // legend markers are visible only in a shown chart
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCOMPARE(view.layerCount(), 3);
    QVERIFY(!view.hint()->isShown());
    QCOMPARE(view.zeroDistances(), 1);
    for (int i = 0; i < 3; ++i) {
      const study::LayerDivergence& layer = report.layers[std::size_t(i)];
      QLineSeries* solid = view.precisionSeries(i);
      QLineSeries* dashed = view.floorSeries(i);
      QCOMPARE(solid->name(), QString::fromStdString(layer.layer));
      QCOMPARE(solid->pen().style(), Qt::SolidLine);
      QCOMPARE(dashed->pen().style(), Qt::DashLine);
      QCOMPARE(solid->pen().color(), dashed->pen().color());
      QCOMPARE(dashed->count(), 3);
      for (int k = 0; k < dashed->count(); ++k) {
        QCOMPARE(dashed->at(k).x(), double(layer.epochs[std::size_t(k)]));
        QCOMPARE(dashed->at(k).y(), 100 * layer.seedFloor[std::size_t(k)]);
      }
      QCOMPARE(solid->count(), i == 2 ? 2 : 3);  // fc1.bias's epoch-1 distance is 0
      QCOMPARE(solid->at(solid->count() - 1).y(), 100 * layer.precision.back());
      for (QLegendMarker* m : view.chart()->legend()->markers(solid)) QVERIFY(m->isVisible());
      for (QLegendMarker* m : view.chart()->legend()->markers(dashed)) QVERIFY(!m->isVisible());
    }
    QVERIFY(view.yAxis());
    QVERIFY(view.yAxis()->min() <= 100 * 0.0001 && view.yAxis()->max() >= 100 * 0.40);
    QVERIFY(view.chart()->title().contains("1 distances are 0"));
    QVERIFY(view.chart()->title().contains("A tpu-bf16, B cpu-fp32"));
  }

  // The headline and the tests' summary come from the report, in plain words.
  void summaryInWords() {
    const study::DivergenceReport report = threeBackendReport();
    const DivergenceSummary s = summarizeDivergence(report, 0.05);
    QCOMPARE(s.headline, QString::fromStdString(report.churn->headline));
    QVERIFY2(s.mcnemar.contains("the errors differ in 1 of 3 pairs"), qPrintable(s.mcnemar));
    QVERIFY2(s.mcnemar.contains("seed 1: 41 examples only tpu-bf16 gets right, 12 only cpu-fp32"),
             qPrintable(s.mcnemar));
    QVERIFY(s.mcnemar.contains(formatPValue(report.mcnemar[1].p_holm)));
    QVERIFY2(s.accuracy.contains("paired t over 3 seed-matched pairs"), qPrintable(s.accuracy));
    QVERIFY(s.accuracy.contains("p = " + formatPValue(report.pairedT->p_value)));
    QVERIFY(
        s.accuracy.contains("Wilcoxon signed-rank p = " + formatPValue(report.wilcoxon->p_value)));
    QVERIFY(s.accuracy.contains("unpaired Welch over 3 and 3 runs"));
    QVERIFY(s.accuracy.contains("p = " + formatPValue(report.welch->p_value)));
    QVERIFY(s.accuracy.contains("Pairing removes the seed's variance"));
    QCOMPARE(s.notes, QStringList({"seed 3 has no finished tpu-bf16 run"}));
    const QString html = divergenceSummaryHtml(s);
    QVERIFY(html.contains("<b>tpu-bf16 changes 1.9%"));
    QVERIFY(html.contains("seed 3 has no finished tpu-bf16 run"));
  }

  // The chaos floor: its sentence is the headline, its figures a paragraph of their own, and each
  // layer's perturbed distance a dotted line in the layer's colour.
  void chaosFloorShownBesideTheSeedFloor() {
    study::DivergenceReport report = threeBackendReport();
    study::ChaosFloorReport chaos;
    chaos.reference = "cpu-fp32";
    study::ChaosFloorPart part;
    part.backend = "nudged-cpu-fp32";
    part.perturbation = "weight-ulp";
    part.words = "a one-ulp nudge of one initial weight";
    part.churn = testing::churnEstimate(3, 0.016, 0.014, 0.018);
    part.layers = report.layers;
    for (study::LayerDivergence& l : part.layers)
      for (double& v : l.precision) v = v > 0 ? v / 2 : 0.001;
    chaos.parts.push_back(part);
    chaos.headline =
        "tpu-bf16 changes 1.9% of test predictions against cpu-fp32 at the same "
        "seed; a one-ulp nudge of one initial weight changes 1.6%; two seeds 7.8%: "
        "0.3 of the precision's 1.9 points exceed the chaos floor [0.1, 0.5]";
    report.chaos = chaos;
    const DivergenceSummary s = summarizeDivergence(report, 0.05);
    QCOMPARE(s.headline, QString::fromStdString(chaos.headline));
    QVERIFY2(s.chaos.contains("nudged-cpu-fp32 (a one-ulp nudge of one initial weight) changes "
                              "1.60% of predictions [1.40–1.80%]"),
             qPrintable(s.chaos));
    QVERIFY(divergenceSummaryHtml(s).contains("Chaos floor (cpu-fp32 perturbed"));

    WeightDivergenceView view;
    view.resize(900, 560);
    view.setReport(report);
    QCOMPARE(int(view.chaosSeries().size()), 3);
    for (int i = 0; i < 3; ++i) {
      QLineSeries* dotted = view.chaosSeries()[std::size_t(i)];
      QCOMPARE(dotted->pen().style(), Qt::DotLine);
      QCOMPARE(dotted->pen().color(), view.precisionSeries(i)->pen().color());
      QCOMPARE(dotted->at(dotted->count() - 1).y(),
               100 * part.layers[std::size_t(i)].precision.back());
    }
    QVERIFY(view.chart()->title().contains("dotted: the chaos floor, nudged-cpu-fp32 vs cpu-fp32"));
  }

  // Imported runs: no chart is empty without saying why; the notes are shown.
  void importedRunsSayWhy() {
    const study::DivergenceReport report = importedReport();
    const DivergenceSummary s = summarizeDivergence(report, 0.05);
    QVERIFY2(s.headline.contains("These runs carry no per-example predictions"),
             qPrintable(s.headline));
    QVERIFY(s.mcnemar.isEmpty());
    QVERIFY(s.accuracy.contains("unpaired Welch over 3 and 3 runs"));
    QVERIFY(!s.accuracy.contains("Pairing removes"));
    QCOMPARE(s.notes.size(), 2);

    ChurnMatrixView churn;
    churn.setReport(report);
    QCOMPARE(churn.backendCount(), 0);
    QVERIFY(churn.emptyReason().contains("no per-example predictions"));
    ClassDifferenceView classes;
    classes.setReport(report, 0.05);
    QVERIFY(classes.bars().empty());
    QVERIFY(classes.emptyReason().contains("no per-example predictions"));
    WeightDivergenceView weights;
    weights.resize(800, 500);
    weights.setReport(report);
    QVERIFY(weights.hint()->isShown());
    QVERIFY2(weights.hint()->text().simplified().contains("carry no weight snapshots"),
             qPrintable(weights.hint()->text()));
    // The reason is drawn: ink in the middle of the churn view where the matrix would be.
    const QImage image =
        paint([&](QPainter& p, const QSize& s) { churn.paintTo(p, s); }, QSize(700, 460));
    int ink = 0;
    for (int x = 100; x < 600; ++x) ink += qGray(image.pixel(x, 230)) < 128;
    for (int y = 200; y < 260 && ink == 0; ++y)
      for (int x = 100; x < 600; ++x) ink += qGray(image.pixel(x, y)) < 128;
    QVERIFY(ink > 0);
  }

  // A study that has only started: no run finished, which is not "runs without predictions".
  void aStudyJustStartedSaysNoRunHasFinished() {
    study::DivergenceReport report;
    report.a = "tpu-bf16";
    report.b = "cpu-fp32";
    const DivergenceSummary s = summarizeDivergence(report, 0.05);
    QVERIFY2(s.headline.startsWith("No run has finished yet"), qPrintable(s.headline));
    QVERIFY(!s.headline.contains("imported"));
    ChurnMatrixView churn;
    churn.setReport(report);
    QVERIFY(churn.emptyReason().startsWith("No run has finished yet"));
  }

  // A study with keep_weights "none", and one where B or A has no predictions.
  void partialReasons() {
    study::DivergenceReport report = threeBackendReport();
    report.layers.clear();
    report.weightsKept = "none";
    QVERIFY(weightDivergenceEmptyReason(report).contains("keep_weights is \"none\""));
    report.weightsKept = "final";
    QVERIFY(weightDivergenceEmptyReason(report).contains("No weight snapshots of tpu-bf16"));
    report.classes.clear();
    report.a = "pure-bf16";  // not among the backends with predictions
    QVERIFY2(classDifferencesEmptyReason(report).contains("No finished run of pure-bf16"),
             qPrintable(classDifferencesEmptyReason(report)));
    report.a = "tpu-bf16";
    QVERIFY(classDifferencesEmptyReason(report).contains("at least 2 finished runs"));
  }
};

QTEST_MAIN(DivergenceViewsTest)
#include "divergence_views_test.moc"
