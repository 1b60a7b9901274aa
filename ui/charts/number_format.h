#pragma once
// How every panel writes a statistic: p values and differences in points, the same in the
// Statistics and Divergence tabs and their exports.

#include <QString>

#include "core/stats/metric_words.h"

namespace paritylab::ui {

// p with 3 significant digits or "< 0.001" ("—" for NaN);
// a difference in points (fraction x 100) with 2 decimals ("∞"/"−∞" for infinite bounds).
QString formatPValue(double p);
QString formatPoints(double fraction);
// "[-0.20, 1.03]": a CI of fractions in points.
QString formatInterval(double low, double high);

// The same for the metric `words` speak of: a value or difference as the metric writes it
// (accuracy in points with 2 decimals, a loss in nats with 4, perplexity with 3), and its CI.
QString formatAmount(double value, const stats::MetricWords& words);
QString formatInterval(double low, double high, const stats::MetricWords& words);
// The short unit of a difference for headers and axes: "pts", "nats", or "" for a plain number.
QString differenceUnit(const stats::MetricWords& words);
// The unit of a value: "%", "nats", or "".
QString valueUnit(const stats::MetricWords& words);

}  // namespace paritylab::ui
