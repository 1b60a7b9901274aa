// `report --charts` renders the curves, the histogram
// and the bit-layout diagram headless from a results database, as valid PNG and SVG files.
#include "ui/shell/report_charts.h"

#include <QFile>
#include <QImage>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QtTest>

#include "core/study/store/results_store.h"
#include "ui/charts/backend_colours.h"
#include "ui/charts/chart_export.h"
#include "ui/charts/chart_view.h"
#include "ui/panels/curves/curves_panel.h"
#include "ui/session/run_data.h"
#include "ui/session/shown_study.h"
#include "ui/session/study_bridge.h"

using namespace paritylab;

namespace {

// Bounding box of the pixels that are not (near) white.
QRect drawnExtent(const QImage& image) {
  QRect box;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x)
      if (qGray(image.pixel(x, y)) < 240) box |= QRect(x, y, 1, 1);
  return box;
}

// Adds a completed run of `epochs` epochs: its accuracy rising to finalAccuracy, its test loss
// falling to finalTestLoss.
void addCompletedRun(study::ResultsStore& store, const std::string& backend, std::uint64_t seed,
                     int epochs, double finalAccuracy, double finalTestLoss) {
  study::RunRecord run;
  run.backend = backend;
  run.seed = seed;
  run.status = study::RunState::Completed;
  run.epochsDone = epochs;
  run.finalAccuracy = finalAccuracy;
  run.finalTestLoss = finalTestLoss;
  run.id = store.addRun(run);
  for (int e = 1; e <= epochs; ++e)
    store.addEpoch(
        run.id, {e, 1.0 / e, finalTestLoss + 0.1 * (epochs - e), finalAccuracy * e / epochs, 1.0});
}

}  // namespace

class ReportChartsTest : public QObject {
  Q_OBJECT

 private slots:
  void rendersEveryChart() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string db = dir.filePath("results.db").toStdString();
    {
      auto store = study::ResultsStore::open(db, true);
      for (int i = 0; i < 6; ++i)
        addCompletedRun(*store, i % 2 ? "tpu-bf16" : "cpu-fp32", std::uint64_t(i / 2), 3,
                        0.80 + 0.01 * i, 0.5 - 0.01 * i);
    }
    std::string error;
    const std::string out = dir.filePath("charts").toStdString();
    QVERIFY2(ui::renderReportCharts(db, out, &error), error.c_str());
    for (const char* stem :
         {"curves-accuracy", "curves-test-loss", "curves-train-loss", "histogram", "bit-layout"}) {
      const QString base = QString::fromStdString(out) + "/" + stem;
      const QImage png(base + ".png");
      QVERIFY2(!png.isNull(), qPrintable(base + ".png"));
      // The chart fills the image: drawn pixels span most of its width and height (a chart left
      // at its default geometry by a hidden view came out as a small square in the middle).
      const QRect drawn = drawnExtent(png);
      QVERIFY2(drawn.width() > png.width() * 0.7 && drawn.height() > png.height() * 0.7,
               qPrintable(base + QStringLiteral(".png: drawn area %1x%2 of %3x%4")
                                     .arg(drawn.width())
                                     .arg(drawn.height())
                                     .arg(png.width())
                                     .arg(png.height())));
      QVERIFY2(QSvgRenderer(base + ".svg").isValid(), qPrintable(base + ".svg"));
    }
    QVERIFY(!ui::renderReportCharts(dir.filePath("missing.db").toStdString(), out, &error));
    QVERIFY(error.find("missing.db") != std::string::npos);

    // The test-loss chart was exported right after the panel was rebuilt from the accuracy
    // chart: it must equal the same chart from a fresh panel, pixel for pixel (Qt Charts deletes
    // replaced axes' graphics later; leftovers were drawn as a second grid and labels).
    ui::LoadedStudy loaded;
    QString message;
    QVERIFY2(ui::loadDatabase(QString::fromStdString(db), &loaded, &message), qPrintable(message));
    ui::ShownStudy study;
    ui::RunData& data = *study.runs();
    data.setRuns(std::move(loaded.runs), loaded.title);
    ui::CurvesPanel fresh(&study);
    ui::CurveOptions options = fresh.options();
    options.metric = ui::CurveMetric::TestLoss;
    fresh.setOptions(options);
    const QString freshPng = dir.filePath("fresh.png");
    QVERIFY2(ui::exportPng(ui::exportableChart(fresh.view(), "fresh", QSize(1100, 680)), freshPng,
                           &message),
             qPrintable(message));
    QCOMPARE(QImage(QString::fromStdString(out) + "/curves-test-loss.png")
                 .convertToFormat(QImage::Format_RGB32),
             QImage(freshPng).convertToFormat(QImage::Format_RGB32));
  }

  // A 1-epoch study's curves are not empty in `report --charts` either: its
  // points are drawn, in the backends' colours, inside the plot area.
  void oneEpochCurvesShowPoints() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string db = dir.filePath("one-epoch.db").toStdString();
    {
      auto store = study::ResultsStore::open(db, true);
      for (int i = 0; i < 4; ++i)
        addCompletedRun(*store, i % 2 ? "tpu-bf16" : "cpu-fp32", std::uint64_t(i / 2), 1,
                        0.80 + 0.01 * i, 0.8);
    }
    std::string error;
    const std::string out = dir.filePath("charts").toStdString();
    QVERIFY2(ui::renderReportCharts(db, out, &error), error.c_str());
    const QImage png = QImage(QString::fromStdString(out) + "/curves-accuracy.png")
                           .convertToFormat(QImage::Format_RGB32);
    QVERIFY(!png.isNull());
    // The plot area of the same chart at the report's size (the PNG has twice the pixels).
    ui::LoadedStudy loaded;
    QString message;
    QVERIFY(ui::loadDatabase(QString::fromStdString(db), &loaded, &message));
    ui::ShownStudy study;
    ui::RunData& data = *study.runs();
    data.setRuns(std::move(loaded.runs), loaded.title);
    ui::CurvesPanel panel(&study);
    panel.chart()->resize(1100, 680);
    const QRectF area = panel.chart()->plotArea();
    const QRect plot(int(area.left() * 2) + 2, int(area.top() * 2) + 2, int(area.width() * 2) - 4,
                     int(area.height() * 2) - 4);
    for (const char* backend : {"cpu-fp32", "tpu-bf16"}) {
      const QColor want = ui::BackendColours::of(backend);
      int n = 0;
      for (int y = plot.top(); y <= plot.bottom(); ++y)
        for (int x = plot.left(); x <= plot.right(); ++x) {
          const QColor c = png.pixelColor(x, y);
          n += std::abs(c.red() - want.red()) <= 12 && std::abs(c.green() - want.green()) <= 12 &&
               std::abs(c.blue() - want.blue()) <= 12;
        }
      QVERIFY2(n >= 40, qPrintable(QStringLiteral("%1: %2 pixels").arg(backend).arg(n)));
    }
  }

  // A language model's database charts as the app shows it: from its spec, the study is compared
  // on its validation loss (the histogram's title), its curves include the perplexity and the
  // attention logits, and its backends take the colours the app gives them (gpt-recipes'
  // nvfp4-no-hadamard and nvfp4-head-bf16 hash to one entry; in the study they do not share it).
  void aLanguageModelsChartsFollowItsSpec() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string db = dir.filePath("gpt.db").toStdString();
    QFile spec(QStringLiteral(PARITYLAB_SOURCE_DIR "/resources/studies/gpt-recipes.json"));
    QVERIFY(spec.open(QIODevice::ReadOnly));
    {
      auto store = study::ResultsStore::open(db, true);
      store->saveStudySpec(spec.readAll().toStdString());
      for (int i = 0; i < 4; ++i)
        addCompletedRun(*store, i % 2 ? "nvfp4-head-bf16" : "nvfp4-no-hadamard",
                        std::uint64_t(i / 2), 2, 0.31, 2.43 + 0.01 * i);
    }
    std::string error;
    const QString out = dir.filePath("charts");
    QVERIFY2(ui::renderReportCharts(db, out.toStdString(), &error), error.c_str());
    // Its held-out loss is named as its chart names it.
    for (const char* stem :
         {"curves-validation-loss", "curves-perplexity", "curves-attention-logit", "histogram"})
      QVERIFY2(QFile::exists(out + "/" + stem + ".png"), stem);
    QVERIFY(!QFile::exists(out + "/curves-test-loss.png"));
    QFile histogram(out + "/histogram.svg");
    QVERIFY(histogram.open(QIODevice::ReadOnly));
    const QByteArray svg = histogram.readAll();
    QVERIFY(svg.contains("final validation loss"));
    QVERIFY(!svg.contains("final accuracy"));
    // The colours the study gives them, not each name's hash entry (both sky blue, #56b4e9).
    QVERIFY(svg.contains("#009e73"));
    QVERIFY(svg.contains("#56b4e9"));
    QVERIFY(ui::BackendColours::of("nvfp4-head-bf16") == QColor(0x56, 0xb4, 0xe9));  // restored
  }
};

QTEST_MAIN(ReportChartsTest)
#include "report_charts_test.moc"
