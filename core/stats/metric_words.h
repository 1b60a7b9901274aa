#pragma once
// How verdicts speak of the metric they compare: its name, how a value and a difference are
// written, and which direction is better. Accuracy (a fraction, spoken in percent and percentage
// points) is the default; a loss is spoken in nats, perplexity as a plain number.

#include <string>

namespace paritylab::stats {

struct MetricWords {
  std::string name = "accuracy";  // "every run of each gave the same accuracy"
  double scale = 100.0;           // a value v is written as scale * v
  int decimals = 2;               // digits after the point of a written value or difference
  std::string valueSuffix = "%";  // "85.90%"
  std::string unit = "points";    // of a difference: "0.12 points" ("" for a plain number)
  std::string unitOne = "point";  // of a difference of exactly 1
  // What follows a difference in the verdict's first sentence: "by 0.12 accuracy points".
  std::string differencePhrase = "accuracy points";
  bool lowerIsBetter = false;

  // "85.90%", "1.5234 nats", "38.02".
  std::string value(double v) const;
  // "0.12", "0.0123": a difference without its unit.
  std::string amount(double d) const;
  // "0.12 points", "1 point", "0.0123 nats", "0.52".
  std::string difference(double d) const;
};

// Accuracy as a fraction in [0, 1], spoken in percent and percentage points (the default).
MetricWords accuracyWords();
// A cross-entropy loss in nats per example or token: `name` "test loss" or "validation loss".
MetricWords lossWords(const std::string& name);
// Perplexity, exp(loss per token).
MetricWords perplexityWords();

}  // namespace paritylab::stats
