#include "core/study/run/study_time.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <queue>
#include <set>
#include <thread>
#include <vector>

#include "core/data/text_split.h"
#include "core/nn/run_start.h"
#include "core/nn/serving_comparison.h"
#include "core/nn/training_session.h"
#include "core/study/run/run_serving.h"
#include "core/study/run/training_benchmark.h"

namespace paritylab::study {

namespace {

using Clock = std::chrono::steady_clock;

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

// A policy as the study runs it (a sweep's cells and the chaos floor's nudge share their
// backend's; the summation-order floor has its own).
std::string policyKey(const BackendEntry& entry) {
  return backends::policyToJson(entry.policy).dump();
}

std::size_t testItems(const data::DataSplit& data) {
  return data.text ? data.text->validationWindows() : data.test.size();
}

}  // namespace

StudyTimeEstimate studyTimeFromCosts(const StudySpec& spec, const data::DataSplit& data,
                                     int threads, const SettingCost& cost) {
  StudyTimeEstimate e;
  e.threads = threadsFor(spec, threads);
  e.atMost = spec.sequential.has_value();
  const double items = double(testItems(data));
  const double single = double(std::min(testItems(data), kBatchInvarianceItems));
  // Each entry's costs and policy, once; the policies of the spec's own entries (those served),
  // each with how many entries have it and the evaluation cost of the first.
  struct Costed {
    nn::TrainConfig config;
    SettingSeconds cost;
    std::string policy;
  };
  std::vector<Costed> costed;
  std::map<std::string, std::pair<std::size_t, double>> served;  // policy -> entries, evalItem
  for (const BackendEntry& entry : spec.backends) {
    Costed c{trainConfigFor(spec, entry), {}, policyKey(entry)};
    c.cost = cost(entry, c.config);
    if (entry.perturbation == Perturbation::None) {
      auto& [entries, evalItem] = served.try_emplace(c.policy, 0, c.cost.evalItem).first->second;
      ++entries;
    }
    costed.push_back(std::move(c));
  }
  std::vector<double> runs;
  for (std::size_t i = 0; i < spec.backends.size(); ++i) {
    const BackendEntry& entry = spec.backends[i];
    const Costed& c = costed[i];
    const std::int64_t steps = nn::plannedSteps(c.config, data);
    double seconds = double(steps) * c.cost.step +
                     double(nn::plannedEpochs(c.config, data)) * items * c.cost.evalItem;
    if (spec.serve && entry.perturbation == Perturbation::None) {
      seconds += items * c.cost.evalItem + single * c.cost.singleItem;
      // run_serving: one evaluation per policy of the other entries (its own policy too when
      // another entry has it).
      for (const auto& [policy, counted] : served)
        if (policy != c.policy || counted.first > 1) seconds += items * counted.second;
    }
    for (std::size_t s = 0; s < spec.seeds.size(); ++s) runs.push_back(seconds);
    e.runs += std::int64_t(spec.seeds.size());
    e.steps += steps * std::int64_t(spec.seeds.size());
  }
  e.seconds = wallSeconds(std::move(runs), e.threads);
  return e;
}

StudyTimeEstimate estimateStudyTime(const StudySpec& spec, const data::DataSplit& data, int threads,
                                    int stepsTimed, const std::function<bool()>& cancelled) {
  std::map<std::string, double> stepSeconds;          // policy and batch size
  std::map<std::string, SettingSeconds> evalSeconds;  // policy (evalItem, singleItem)
  bool stopped = false;
  const float* inputs = data.text ? data.text->validationInputs.data() : data.test.images.data();
  const std::size_t count = testItems(data);
  const SettingCost measure = [&](const BackendEntry& entry, const nn::TrainConfig& config) {
    const std::string policy = policyKey(entry);
    const std::string key = policy + "|" + std::to_string(config.batchSize);
    SettingSeconds out;
    const bool timed = stepSeconds.count(key) && evalSeconds.count(policy);
    if (!timed && (stopped || (cancelled && cancelled()))) {
      stopped = true;
      return out;
    }
    if (!stepSeconds.count(key)) {
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
      stepSeconds[key] = measureTrainingThroughput(c, entry.policy, data).stepMilliseconds / 1000.0;
    }
    if (!evalSeconds.count(policy)) {
      SettingSeconds& s = evalSeconds[policy];
      if (count > 0) {
        nn::ModelSpec model = nn::modelSpecFor(config, data.train);
        nn::TrainingSession session(model, entry.policy, 0);
        const int batch = std::max(1, config.evalBatchSize);
        const std::size_t n = std::min(count, std::size_t(batch));
        const std::size_t alone = std::min<std::size_t>(count, 4);
        nn::answersOf(session, inputs, n, batch);  // untimed: buffers grow on the first batch
        const auto start = Clock::now();
        nn::answersOf(session, inputs, n, batch);
        const auto middle = Clock::now();
        nn::answersOf(session, inputs, alone, 1);
        const auto end = Clock::now();
        s.evalItem = std::chrono::duration<double>(middle - start).count() / double(n);
        s.singleItem = std::chrono::duration<double>(end - middle).count() / double(alone);
      }
    }
    out = evalSeconds[policy];
    out.step = stepSeconds[key];
    return out;
  };
  StudyTimeEstimate e = studyTimeFromCosts(spec, data, threads, measure);
  e.settingsTimed = int(stepSeconds.size());
  e.stepsTimed = std::max(1, stepsTimed);
  e.complete = !stopped;
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
  std::string words =
      (e.atMost || spec.sequential ? "at most " : "") + plural(own * seeds, "run", "runs") + " (";
  if (!spec.sweep.empty()) words += plural(cells, "cell", "cells") + " x ";
  words +=
      plural(backends.size(), "backend", "backends") + " x " + plural(seeds, "seed", "seeds") + ")";
  const std::size_t floor = spec.backends.size() - own;
  if (floor > 0) words += " + " + plural(floor * seeds, "chaos floor run", "chaos floor runs");
  if (e.settingsTimed == 0 && e.seconds == 0.0) return words;
  const std::size_t atOnce =
      std::size_t(std::min<std::int64_t>(e.threads, std::max<std::int64_t>(1, e.runs)));
  words += "; " + durationWords(e.seconds) + " with " + plural(atOnce, "run", "runs") +
           " at once (training, evaluation" + (spec.serve ? " and serving" : "");
  if (e.stepsTimed > 0)
    words += "; " + plural(std::size_t(e.stepsTimed), "step", "steps") +
             " timed per backend and batch size";
  return words + ")";
}

}  // namespace paritylab::study
