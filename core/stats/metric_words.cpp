#include "core/stats/metric_words.h"

#include <cmath>
#include <cstdio>

namespace paritylab::stats {

std::string MetricWords::amount(double d) const {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, scale * d);
  return buf;
}

std::string MetricWords::value(double v) const {
  return amount(v) + valueSuffix;
}

std::string MetricWords::difference(double d) const {
  if (unit.empty()) return amount(d);
  return amount(d) + " " + (std::fabs(scale * d) == 1.0 ? unitOne : unit);
}

MetricWords accuracyWords() {
  return {};
}

MetricWords lossWords(const std::string& name) {
  MetricWords w;
  w.name = name;
  w.scale = 1.0;
  w.decimals = 4;
  w.valueSuffix = " nats";
  w.unit = "nats";
  w.unitOne = "nat";
  w.differencePhrase = "nats of " + name;
  w.lowerIsBetter = true;
  return w;
}

MetricWords perplexityWords() {
  MetricWords w;
  w.name = "perplexity";
  w.scale = 1.0;
  w.decimals = 3;
  w.valueSuffix = "";
  w.unit = "";
  w.unitOne = "";
  w.differencePhrase = "in perplexity";
  w.lowerIsBetter = true;
  return w;
}

}  // namespace paritylab::stats
