#pragma once
// Point markers on line series that have few points. A line through one point draws nothing and a
// line through two or three hides where the measurements are (a 1-epoch study showed empty charts
// with "N=3" in the legend), so every chart marks the points of such series, on screen and in
// exports.

class QXYSeries;

namespace paritylab::ui {

// At or below this many points a series shows its points.
constexpr int kFewPoints = 12;

// Shows `series`' points (at `markerSize` pixels) when it has at most kFewPoints points, hides
// them otherwise. Call after replacing the points.
void markPointsIfFew(QXYSeries* series, double markerSize);

}  // namespace paritylab::ui
