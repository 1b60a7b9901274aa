#include "ui/charts/number_format.h"

#include <cmath>
#include <cstdio>

namespace paritylab::ui {
namespace {

QString dash() {
  return QStringLiteral("—");
}

QString fixed(double v, int decimals) {
  if (std::isnan(v)) return dash();
  if (std::isinf(v)) return v > 0 ? QStringLiteral("∞") : QStringLiteral("−∞");
  return QString::number(v, 'f', decimals);
}

}  // namespace

QString formatPValue(double p) {
  if (std::isnan(p)) return dash();
  if (p < 0.001) return QStringLiteral("< 0.001");
  char text[32];  // 0.170, 0.0305, 1.00: always 3 significant digits ('#' keeps trailing zeros)
  std::snprintf(text, sizeof text, "%#.3g", p);
  return QString::fromLatin1(text);
}

QString formatPoints(double fraction) {
  return fixed(fraction * 100.0, 2);
}

QString formatInterval(double low, double high) {
  return QStringLiteral("[%1, %2]").arg(formatPoints(low), formatPoints(high));
}

QString formatAmount(double value, const stats::MetricWords& words) {
  if (!std::isfinite(value)) return fixed(value, 0);  // "—", "∞", "−∞"
  return QString::fromStdString(words.amount(value));  // as the verdicts write it
}

QString formatInterval(double low, double high, const stats::MetricWords& words) {
  return QStringLiteral("[%1, %2]").arg(formatAmount(low, words), formatAmount(high, words));
}

QString differenceUnit(const stats::MetricWords& words) {
  return words.unit == "points" ? QStringLiteral("pts") : QString::fromStdString(words.unit);
}

QString valueUnit(const stats::MetricWords& words) {
  return QString::fromStdString(words.valueSuffix).trimmed();
}

}  // namespace paritylab::ui
