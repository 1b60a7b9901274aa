#pragma once
// How every panel writes a statistic: p values and differences in points, the same in the
// Statistics and Divergence tabs and their exports.

#include <QString>

namespace paritylab::ui {

// p with 3 significant digits or "< 0.001" ("—" for NaN);
// a difference in points (fraction x 100) with 2 decimals ("∞"/"−∞" for infinite bounds).
QString formatPValue(double p);
QString formatPoints(double fraction);
// "[-0.20, 1.03]": a CI of fractions in points.
QString formatInterval(double low, double high);

}  // namespace paritylab::ui
