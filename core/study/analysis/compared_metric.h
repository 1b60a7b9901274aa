#pragma once
// The metric a study's backends are compared on: a run's final accuracy (higher is better), its
// final test or validation loss (nats per example or per token; lower is better) or its
// perplexity (exp of the loss per token). The names are written here once; `stats`, `run` and
// the report read them from here. An image study compares accuracy unless told otherwise, a
// language model's study its validation loss.

#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/stats/metric_words.h"
#include "core/study/spec/study_spec.h"
#include "core/study/store/results_store.h"

namespace paritylab::study {

enum class ComparedMetric { Accuracy, TestLoss, ValidationLoss, Perplexity };

// The names a user gives (--metric), in the order a chooser offers them. test_loss and val_loss
// are the same stored value (the loss over the held-out part), named as image and language-model
// users name it.
inline constexpr std::array<std::string_view, 4> kComparedMetricNames = {"accuracy", "test_loss",
                                                                         "val_loss", "perplexity"};

// The metric called `name`; throws std::invalid_argument naming it and the choices.
ComparedMetric comparedMetricNamed(std::string_view name);
std::string_view comparedMetricName(ComparedMetric metric);
// How verdicts and tables speak of it ("validation loss" in nats, lower is better).
stats::MetricWords metricWords(ComparedMetric metric);

// accuracy for an image classifier, val_loss for a language model.
ComparedMetric defaultComparedMetric(const StudySpec& spec);
// The same for the study in `store`; accuracy when it holds runs without a study (imported).
ComparedMetric defaultComparedMetric(const ResultsStore& store);

// The metric's value from a run's final accuracy (a fraction) and test loss (nats); NaN when the
// run has no such value.
double metricValue(ComparedMetric metric, double accuracy, double testLoss);
// A run's final value of the metric; NaN when the run has none.
double finalMetricOf(const RunRecord& run, ComparedMetric metric);

// Completed runs' final values per backend, backends in first-appearance order; runs without a
// finite value are left out.
std::vector<std::pair<std::string, std::vector<double>>> finalMetricByBackend(
    const ResultsStore& store, ComparedMetric metric);

}  // namespace paritylab::study
