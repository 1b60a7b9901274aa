// The Divergence tab's Samples view from a hand-made report: the reference's text first, each
// other text's first differing character marked and the rest grey, the agreement lines with the
// seed floor, the seed chooser showing one seed, an image study's reason instead of text, and the
// export painting what is shown.
#include <QComboBox>
#include <QImage>
#include <QPainter>
#include <QTextDocument>
#include <QtTest>

#include "ui/panels/divergence/samples_view.h"

using namespace paritylab;
using namespace paritylab::ui;

namespace {

study::DivergenceReport languageModelReport() {
  study::DivergenceReport report;
  report.a = "tpu-bf16";
  report.b = "cpu-fp32";
  study::SamplesReport s;
  s.reference = "cpu-fp32";
  s.prompt = "\n";
  s.temperature = 0.8;
  s.length = 11;
  s.seeds.push_back({0,
                     {{"cpu-fp32", 1, "the cat sat", std::nullopt},
                      {"tpu-bf16", 2, "the car sat", std::size_t(6)}}});
  s.seeds.push_back({1,
                     {{"cpu-fp32", 3, "a dog\nran", std::nullopt},
                      {"tpu-bf16", 4, "a dog\nran", std::nullopt}}});
  s.agreement.push_back({"tpu-bf16", 2, 1, 7.5});
  s.seedFloor = study::SampleAgreement{"cpu-fp32", 1, 0, 0.0};
  report.samples = s;
  return report;
}

QString plain(const QString& html) {
  QTextDocument doc;
  doc.setHtml(html);
  return doc.toPlainText();
}

}  // namespace

class SamplesViewTest : public QObject {
  Q_OBJECT

 private slots:
  void marksWhereEachTextPartsFromTheReference() {
    const study::DivergenceReport report = languageModelReport();
    const QString html = samplesHtml(*report.samples, std::nullopt);
    // "the ca" as written, the 'r' marked, " sat" grey.
    QVERIFY2(html.contains("the ca<span style=\"background-color:#ffd7d5; color:#cf222e; "
                           "font-weight:bold\">r</span><span style=\"color:#8c959f\"> sat</span>"),
             qPrintable(html));
    const QString text = plain(html);
    QVERIFY2(text.contains("tpu-bf16 writes what cpu-fp32 writes for 8 characters (median over 2 "
                           "seeds; 1 identical)"),
             qPrintable(text));
    QVERIFY(text.contains("two seeds of cpu-fp32 agree for 0 characters (median over 1 pair of "
                          "seeds; 0 identical)"));
    QVERIFY(text.contains("sampled at temperature 0.8"));
    QVERIFY(text.contains("continues the prompt \\n sampled"));
    QVERIFY(text.contains("parts at 7"));  // 1-based, as a reader counts characters
    QVERIFY(text.contains("identical"));
    // The reference comes first at each seed.
    QVERIFY(text.indexOf("Seed 0") < text.indexOf("cpu-fp32\nreference"));
    QVERIFY(text.indexOf("cpu-fp32\nreference") < text.indexOf("tpu-bf16\nparts at 7"));
  }

  void theSeedChooserShowsOneSeed() {
    SamplesView view;
    view.setReport(languageModelReport());
    QVERIFY(view.hasSamples());
    QCOMPARE(view.seedChooser()->count(), 3);  // all seeds, 0, 1
    QVERIFY(plain(view.html()).contains("Seed 1"));
    view.seedChooser()->setCurrentIndex(1);
    QCOMPARE(view.shownSeed(), std::optional<std::uint64_t>(0));
    QVERIFY(!plain(view.html()).contains("Seed 1"));
    QVERIFY(plain(view.html()).contains("Seed 0"));
    // A new report keeps the chosen seed.
    view.setReport(languageModelReport());
    QCOMPARE(view.shownSeed(), std::optional<std::uint64_t>(0));
  }

  void anImageStudyHasNoSamplesAndSaysWhy() {
    SamplesView view;
    view.setReport(study::DivergenceReport{});
    QVERIFY(!view.hasSamples());
    QVERIFY(view.emptyReason().contains("image classifier"));
    study::DivergenceReport none = languageModelReport();
    none.samples->seeds.clear();
    none.samples->notes = {"2 completed runs have no sample"};
    view.setReport(none);
    QVERIFY2(view.emptyReason().contains("2 completed runs have no sample"),
             qPrintable(view.emptyReason()));
  }

  void theExportPaintsTheText() {
    SamplesView view;
    view.setReport(languageModelReport());
    const Exportable item = exportableSamples(&view);
    QCOMPARE(item.name, QString("divergence-samples"));
    QVERIFY(item.size.height() > 100);
    QImage image(item.size, QImage::Format_RGB32);
    image.fill(Qt::white);
    QPainter p(&image);
    item.paint(p, item.size);
    p.end();
    int ink = 0, red = 0;
    for (int y = 0; y < image.height(); ++y) {
      for (int x = 0; x < image.width(); ++x) {
        const QColor c = image.pixelColor(x, y);
        ink += qGray(c.rgb()) < 100;
        red += c.red() > 180 && c.green() < 80 && c.blue() < 80;  // the marked character
      }
    }
    QVERIFY(ink > 200);
    QVERIFY(red > 0);
  }
};

QTEST_MAIN(SamplesViewTest)
#include "samples_view_test.moc"
