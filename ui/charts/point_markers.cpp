#include "ui/charts/point_markers.h"

#include <QXYSeries>

namespace paritylab::ui {

void markPointsIfFew(QXYSeries* series, double markerSize) {
  const bool few = series->count() <= kFewPoints;
  if (few) series->setMarkerSize(markerSize);
  if (series->pointsVisible() != few) series->setPointsVisible(few);
}

}  // namespace paritylab::ui
