#include "ui/charts/legend_fit.h"

#include <QAbstractSeries>
#include <QChart>
#include <QFontMetricsF>
#include <QLegend>
#include <QLegendMarker>

namespace paritylab::ui {
namespace {

constexpr char kOutOfLegend[] = "paritylabOutOfLegend";

}  // namespace

void hideFromLegend(QChart* chart, QAbstractSeries* series) {
  series->setProperty(kOutOfLegend, true);
  for (QLegendMarker* m : chart->legend()->markers(series)) m->setVisible(false);
}

void fitLegend(QChart* chart, double width) {
  QLegend* legend = chart->legend();
  const QFontMetricsF metrics(legend->font());
  // An entry: its marker (about a line high), the gaps around it, its label.
  const double chrome = metrics.height() * 2.2;
  double row = 0.0;
  for (QLegendMarker* marker : legend->markers())
    if (!marker->series() || !marker->series()->property(kOutOfLegend).toBool())
      row += chrome + metrics.horizontalAdvance(marker->label());
  // The chart's margins and the legend's own frame.
  const double available = width - chart->margins().left() - chart->margins().right() - 40.0;
  const Qt::Alignment wanted = row <= available ? Qt::AlignBottom : Qt::AlignRight;
  if (legend->alignment() != wanted) legend->setAlignment(wanted);
}

}  // namespace paritylab::ui
