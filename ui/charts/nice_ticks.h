#pragma once
// "Nice" axis ticks for every chart: steps of 1, 2 or 5 times a power of ten, labels with just the
// decimals the step needs, recomputed whenever the range changes (zoom, pan, auto-range), so an
// axis never shows 3.09126. Log axes span whole decades so at least two powers of ten are labelled.

#include <utility>

class QLogValueAxis;
class QValueAxis;

namespace paritylab::ui {

struct NiceTicks {
  double first = 0.0;  // the first tick at or above the range's low end
  double step = 1.0;   // 1, 2 or 5 x 10^k (never below minStep)
  int decimals = 0;    // digits after the point that every tick label needs
};

// Ticks for [lo, hi] with at most about `maxTicks` intervals; `minStep` > 0 floors the step
// (1 for whole epochs). lo >= hi gives a step for a unit range around lo.
NiceTicks niceTicks(double lo, double hi, int maxTicks, double minStep = 0.0);

// Sets the axis to dynamic ticks at niceTicks() of its range and keeps them nice whenever its
// range changes. Call once per axis.
void keepTicksNice(QValueAxis* axis, int maxTicks, double minStep = 0.0);

// The smallest range of whole decades covering [lo, hi] (lo > 0) that spans at least
// `minDecades` decades, so a log axis labels minDecades + 1 powers of ten.
std::pair<double, double> decadeRange(double lo, double hi, int minDecades = 1);

// A log10 axis over decadeRange(lo, hi) with a grid line at 2..9 of every decade and %g labels.
void setDecadeRange(QLogValueAxis* axis, double lo, double hi);

// A log axis that fits [lo, hi]: the decade range when the data spans a decade or more; a
// narrower span (accuracies of 80-92%) gets a base of its own, so that about four labelled ticks
// fall inside, the lowest at the axis's lower end, instead of a mostly empty decade.
struct LogAxisRange {
  double base = 10, low = 1, high = 10;
};
LogAxisRange fittedLogRange(double lo, double hi);
void setFittedLogRange(QLogValueAxis* axis, double lo, double hi);

}  // namespace paritylab::ui
