#include "core/study/run/study_time.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <queue>
#include <set>
#include <thread>
#include <vector>

#include "core/nn/run_start.h"
#include "core/study/run/training_benchmark.h"

namespace paritylab::study {

namespace {

int threadsFor(const StudySpec& spec, int threads) {
  if (threads <= 0) threads = spec.threads;
  if (threads <= 0) threads = int(std::max(1u, std::thread::hardware_concurrency()));
  return threads;
}

// The wall time of `runs` (seconds each) on `threads` workers taking the next run as they free:
// the longest first, as a scheduler that knew the lengths would (a study takes them in its own
// order; the difference is at most one run's time).
double wallSeconds(std::vector<double> runs, int threads) {
  std::sort(runs.begin(), runs.end(), std::greater<>());
  std::priority_queue<double, std::vector<double>, std::greater<>> free;
  for (int t = 0; t < threads; ++t) free.push(0.0);
  double end = 0.0;
  for (double r : runs) {
    const double start = free.top();
    free.pop();
    free.push(start + r);
    end = std::max(end, start + r);
  }
  return end;
}

// A setting whose step time does not depend on anything else a run varies: the policy as the
// spec writes it (a sweep's cells and the chaos floor share their backend's) and the batch size.
std::string settingKey(const BackendEntry& entry, const nn::TrainConfig& config) {
  return entry.policyJson.dump() + "|" + std::to_string(config.batchSize);
}

}  // namespace

StudyTimeEstimate studyTimeFromStepSeconds(const StudySpec& spec, const data::DataSplit& data,
                                           int threads, const StepSeconds& stepSeconds) {
  StudyTimeEstimate e;
  e.threads = threadsFor(spec, threads);
  e.atMost = spec.sequential.has_value();
  std::vector<double> runs;
  for (const BackendEntry& entry : spec.backends) {
    const nn::TrainConfig config = trainConfigFor(spec, entry);
    const std::int64_t steps = nn::plannedSteps(config, data);
    const double seconds = double(steps) * stepSeconds(entry, config);
    for (std::size_t s = 0; s < spec.seeds.size(); ++s) runs.push_back(seconds);
    e.runs += std::int64_t(spec.seeds.size());
    e.steps += steps * std::int64_t(spec.seeds.size());
  }
  e.seconds = wallSeconds(std::move(runs), e.threads);
  return e;
}

StudyTimeEstimate estimateStudyTime(const StudySpec& spec, const data::DataSplit& data, int threads,
                                    int stepsTimed, const std::function<bool()>& cancelled) {
  std::map<std::string, double> timed;  // settingKey -> seconds per step
  bool stopped = false;
  const StepSeconds measure = [&](const BackendEntry& entry, const nn::TrainConfig& config) {
    const std::string key = settingKey(entry, config);
    if (auto it = timed.find(key); it != timed.end()) return it->second;
    if (stopped || (cancelled && cancelled())) {
      stopped = true;
      return 0.0;
    }
    nn::validateTrainConfig(config, data);
    ThroughputConfig c;
    c.model = nn::modelSpecFor(config, data.train);
    c.optimizer = config.optimizer;
    // An image batch larger than the data trains on all of it (the last step of an epoch).
    c.batchSize = data.text
                      ? config.batchSize
                      : int(std::min<std::size_t>(std::size_t(config.batchSize),
                                                  std::max<std::size_t>(1, data.train.size())));
    c.warmupSteps = 1;
    c.steps = std::max(1, stepsTimed);
    c.threads = 1;
    const ThroughputResult r = measureTrainingThroughput(c, entry.policy, data);
    const double seconds = r.stepMilliseconds / 1000.0;
    timed[key] = seconds;
    return seconds;
  };
  StudyTimeEstimate e = studyTimeFromStepSeconds(spec, data, threads, measure);
  e.settingsTimed = int(timed.size());
  e.complete = !stopped;
  e.stepsTimed = std::max(1, stepsTimed);
  return e;
}

std::string durationWords(double seconds) {
  char text[48];
  if (!(seconds >= 0.0) || !std::isfinite(seconds)) return "unknown";
  if (seconds < 90.0)
    std::snprintf(text, sizeof text, "about %.0f s", std::max(1.0, std::round(seconds)));
  else if (seconds < 90.0 * 60.0)
    std::snprintf(text, sizeof text, "about %.0f min", std::round(seconds / 60.0));
  else if (seconds < 48.0 * 3600.0)
    std::snprintf(text, sizeof text, "about %.1f h", seconds / 3600.0);
  else
    std::snprintf(text, sizeof text, "about %.1f days", seconds / 86400.0);
  return text;
}

std::string describeStudyTime(const StudySpec& spec, const StudyTimeEstimate& e) {
  std::size_t own = 0;  // the spec's entries, not the chaos floor's
  std::set<std::string> backends;
  for (const BackendEntry& entry : spec.backends) {
    if (entry.perturbation != Perturbation::None) continue;
    ++own;
    backends.insert(entry.sweptFrom.empty() ? entry.name : entry.sweptFrom);
  }
  const std::size_t seeds = spec.seeds.size();
  const std::size_t cells = backends.empty() ? 1 : own / backends.size();
  const auto plural = [](std::size_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  std::string words = (e.atMost ? "at most " : "") + plural(own * seeds, "run", "runs") + " (";
  if (!spec.sweep.empty()) words += plural(cells, "cell", "cells") + " x ";
  words +=
      plural(backends.size(), "backend", "backends") + " x " + plural(seeds, "seed", "seeds") + ")";
  const std::size_t floor = spec.backends.size() - own;
  if (floor > 0) words += " + " + plural(floor * seeds, "chaos floor run", "chaos floor runs");
  if (e.settingsTimed == 0 && e.seconds == 0.0) return words;
  const std::size_t atOnce =
      std::size_t(std::min<std::int64_t>(e.threads, std::max<std::int64_t>(1, e.runs)));
  words += "; " + durationWords(e.seconds) + " of training with " + plural(atOnce, "run", "runs") +
           " at once (";
  if (e.stepsTimed > 0)
    words +=
        plural(std::size_t(e.stepsTimed), "step", "steps") + " timed per backend and batch size; ";
  return words + "evaluations not counted)";
}

}  // namespace paritylab::study
