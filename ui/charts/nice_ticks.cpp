#include "ui/charts/nice_ticks.h"

#include <QLogValueAxis>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace paritylab::ui {

NiceTicks niceTicks(double lo, double hi, int maxTicks, double minStep) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) return {};
  if (hi <= lo) hi = lo + 1.0;
  const double raw = (hi - lo) / std::max(1, maxTicks);
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double r = raw / magnitude;
  double step = r <= 1.0   ? magnitude
                : r <= 2.0 ? 2 * magnitude
                : r <= 5.0 ? 5 * magnitude
                           : 10 * magnitude;
  step = std::max(step, minStep);
  NiceTicks t;
  t.step = step;
  // Integer multiples of the step, so 0 is 0 and not -2.8e-17.
  t.first = std::ceil(lo / step - 1e-9) * step;
  if (std::abs(t.first) < step * 1e-9) t.first = 0.0;
  t.decimals = std::max(0, -static_cast<int>(std::floor(std::log10(step) + 1e-9)));
  return t;
}

namespace {

void applyNiceTicks(QValueAxis* axis, int maxTicks, double minStep) {
  const NiceTicks t = niceTicks(axis->min(), axis->max(), maxTicks, minStep);
  axis->setTickType(QValueAxis::TicksDynamic);
  axis->setTickAnchor(t.first);
  axis->setTickInterval(t.step);
  axis->setLabelFormat(QStringLiteral("%.") + QString::number(t.decimals) + QStringLiteral("f"));
}

}  // namespace

void keepTicksNice(QValueAxis* axis, int maxTicks, double minStep) {
  applyNiceTicks(axis, maxTicks, minStep);
  QObject::connect(axis, &QValueAxis::rangeChanged, axis,
                   [axis, maxTicks, minStep] { applyNiceTicks(axis, maxTicks, minStep); });
}

std::pair<double, double> decadeRange(double lo, double hi, int minDecades) {
  if (!(lo > 0) || !std::isfinite(lo)) lo = hi > 0 && std::isfinite(hi) ? hi / 10 : 0.1;
  if (!(hi > lo) || !std::isfinite(hi)) hi = lo * 10;
  int low = static_cast<int>(std::floor(std::log10(lo) + 1e-9));
  int high = static_cast<int>(std::ceil(std::log10(hi) - 1e-9));
  if (high <= low) high = low + 1;
  // Widen on the side with more room to spare (in log units) until enough decades show.
  while (high - low < std::max(1, minDecades)) {
    if (std::log10(lo) - low < high - std::log10(hi))
      --low;
    else
      ++high;
  }
  return {std::pow(10.0, low), std::pow(10.0, high)};
}

void setDecadeRange(QLogValueAxis* axis, double lo, double hi) {
  const auto [a, b] = decadeRange(lo, hi);
  axis->setBase(10);
  axis->setLabelFormat(QStringLiteral("%g"));
  axis->setMinorTickCount(8);  // 2, 3, ..., 9 of every decade
  axis->setRange(a, b);
}

LogAxisRange fittedLogRange(double lo, double hi) {
  const auto [a, b] = decadeRange(lo, hi);
  if (!(lo > 0) || !std::isfinite(lo) || !(hi > lo) || !std::isfinite(hi) || hi / lo >= 10)
    return {10, a, b};
  constexpr int kIntervals = 4;
  // Some room either side, so that no point sits on the plot's edge.
  const double padded = std::log(hi / lo) * 1.1 + 1e-12;
  const double base = std::exp(padded / kIntervals);
  const double low = std::pow(base, std::floor(std::log(lo) / std::log(base) - 0.05));
  const double high = std::pow(base, std::ceil(std::log(hi) / std::log(base) + 0.05));
  // A hair outside base^k, so that rounding never moves the end ticks out of the range.
  return {base, low * (1 - 1e-9), high * (1 + 1e-9)};
}

void setFittedLogRange(QLogValueAxis* axis, double lo, double hi) {
  const LogAxisRange r = fittedLogRange(lo, hi);
  if (r.base == 10) {
    setDecadeRange(axis, lo, hi);
    return;
  }
  axis->setBase(r.base);
  axis->setLabelFormat(QStringLiteral("%.3g"));
  axis->setMinorTickCount(0);
  axis->setRange(r.low, r.high);
}

}  // namespace paritylab::ui
