// A chart's legend stays below the plot while its entries fit there whole and moves to the right
// when a row would cut their names short; hidden entries take no room; an exported chart's legend
// is placed for the export's width and put back after.
#include "ui/charts/legend_fit.h"

#include <QAbstractSeries>
#include <QApplication>
#include <QChart>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPainter>
#include <QtTest>

#include "ui/charts/chart_export.h"
#include "ui/charts/chart_view.h"

using namespace paritylab::ui;

namespace {

void addSeries(QChart* chart, const QStringList& names) {
  for (const QString& name : names) {
    auto* s = new QLineSeries;
    s->setName(name);
    s->append(0, 0);
    s->append(1, 1);
    chart->addSeries(s);
  }
}

const QStringList kNineBackends = {
    "gpu-amp-bf16 (N=3)",   "fp8-e4m3 (N=3)", "fp8-current (N=3)", "fp8-blockwise (N=3)",
    "mxfp8 (N=3)",          "mxfp4 (N=3)",    "nvfp4 (N=3)",       "nvfp4-no-hadamard (N=3)",
    "nvfp4-head-bf16 (N=3)"};

}  // namespace

class LegendFitTest : public QObject {
  Q_OBJECT

 private slots:
  void aFewShortNamesStayBelowThePlot() {
    QChart chart;
    addSeries(&chart, {"cpu-fp32 (N=5)", "gpu-tf32 (N=5)", "tpu-bf16 (N=5)"});
    fitLegend(&chart, 1000);
    QCOMPARE(chart.legend()->alignment(), Qt::AlignBottom);
  }

  void nineBackendsMoveToTheRightOfANarrowChart() {
    QChart chart;
    addSeries(&chart, kNineBackends);
    fitLegend(&chart, 465);  // the Curves tab's chart in a 1024-pixel window
    QCOMPARE(chart.legend()->alignment(), Qt::AlignRight);
    fitLegend(&chart, 4000);  // and back below on a wall-sized one
    QCOMPARE(chart.legend()->alignment(), Qt::AlignBottom);
  }

  void entriesHiddenFromTheLegendTakeNoRoom() {
    QChart chart;
    addSeries(&chart, kNineBackends);
    const QList<QAbstractSeries*> series = chart.series();
    for (int i = 2; i < series.size(); ++i) hideFromLegend(&chart, series[i]);
    fitLegend(&chart, 465);
    QCOMPARE(chart.legend()->alignment(), Qt::AlignBottom);
  }

  void anExportPlacesTheLegendForItsOwnWidth() {
    auto* chart = new QChart;
    addSeries(chart, kNineBackends);
    ChartView view(chart);
    view.resize(465, 400);
    view.setLegendFitted(true);
    QCOMPARE(chart->legend()->alignment(), Qt::AlignRight);
    // The legend's place while the export lays the chart out at 4,000 pixels.
    Qt::Alignment whileExported = {};
    QObject::connect(chart, &QChart::plotAreaChanged, chart, [&] {
      if (chart->size().width() > 3000) whileExported = chart->legend()->alignment();
    });
    const Exportable e = exportableChart(&view, "wide", QSize(4000, 600));
    QImage image(e.size, QImage::Format_ARGB32);
    QPainter p(&image);
    e.paint(p, e.size);
    QCOMPARE(whileExported, Qt::AlignBottom);
    QCOMPARE(chart->legend()->alignment(), Qt::AlignRight);  // the window's, put back
  }
};

QTEST_MAIN(LegendFitTest)
#include "legend_fit_test.moc"
