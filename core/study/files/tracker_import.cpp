#include "core/study/files/tracker_import.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>

#include "core/input/csv.h"
#include "core/input/input_limits.h"
#include "core/input/number_input.h"
#include "core/study/files/import_checks.h"
#include "core/study/files/import_run_rule.h"

namespace paritylab::study {
namespace {

using import_checks::shownValue;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr std::size_t kMaxNameLength = 200;  // as a CSV's backend names
constexpr double kMaxLoss = 1e6;             // as a CSV's losses
constexpr std::size_t kListed = 12;          // metric names listed in a message

std::vector<std::string> withFirst(std::vector<std::string> first,
                                   const std::vector<std::string>& rest) {
  for (const std::string& name : rest)
    if (std::find(first.begin(), first.end(), name) == first.end()) first.push_back(name);
  return first;
}

std::string nameList(const std::set<std::string>& names) {
  return import_checks::shownList(names, kListed, "names");
}

bool logs(const TrackedRun& run, const std::string& metric) {
  const auto it = run.metrics.find(metric);
  return it != run.metrics.end() && !it->second.empty();
}

std::string chooseMetric(const std::string& path, const std::string& named,
                         const std::vector<std::string>& defaults, const std::string& option,
                         const TrackedRuns& tracked) {
  const auto anyLogs = [&](const std::string& metric) {
    return std::any_of(tracked.runs.begin(), tracked.runs.end(),
                       [&](const TrackedRun& r) { return r.skip.empty() && logs(r, metric); });
  };
  if (!named.empty()) {
    if (!anyLogs(named)) {
      throw input::CsvError(path + ": no run logs the metric " + shownValue(named) + " (" + option +
                            "); the metrics logged: " + nameList(tracked.loggedNames));
    }
    return named;
  }
  for (const std::string& metric : defaults)
    if (anyLogs(metric)) return metric;
  return "";
}

const TrackedAttribute* attribute(const TrackedRun& run, const std::string& name, bool columns,
                                  bool hparams) {
  if (hparams) {
    const auto it = run.hparams.find(name);
    if (it != run.hparams.end() && !it->second.value.empty()) return &it->second;
  }
  if (columns) {
    const auto it = run.columns.find(name);
    if (it != run.columns.end() && !it->second.value.empty()) return &it->second;
  }
  return nullptr;
}

void requireBackendName(const std::string& name, const std::string& place) {
  std::string why;
  if (name.size() > kMaxNameLength)
    why = "is longer than " + std::to_string(kMaxNameLength) + " characters";
  for (const char c : name)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) why = "holds a control character";
  if (!why.empty())
    throw input::CsvError(place + ": the backend name " + shownValue(name) + " " + why);
}

std::string number(double value) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

// A run's backend and seed, or why it is skipped.
struct Identity {
  std::string backend;
  std::optional<std::uint64_t> seed;
  std::string skip;
};

Identity identify(const TrackedRun& run, const std::optional<RunBackendRule>& rule,
                  const std::string& seedName) {
  Identity id;
  const TrackedAttribute* backend = nullptr;
  std::string place = run.folder;
  if (rule && rule->kind() == RunBackendRule::Kind::Path) {
    const auto match = rule->path().match(run.path);
    if (!match) return {{}, {}, "does not match " + rule->text()};
    id.backend = match->backend;
    id.seed = match->seed;
    place += " (" + rule->text() + ")";
  } else if (rule) {
    const bool column = rule->kind() == RunBackendRule::Kind::Column;
    backend = attribute(run, rule->name(), column, !column);
    if (!backend) {
      return {{},
              {},
              std::string(column ? "no column " : "no hyperparameter ") + shownValue(rule->name())};
    }
  } else {
    for (const char* name : {"backend", "device"})
      if (!backend) backend = attribute(run, name, true, true);
    if (!backend) {
      return {{},
              {},
              "no --backend-from rule, and no hyperparameter or column 'backend' or 'device' "
              "(name one with --backend-from column:NAME, hparam:NAME or path:PATTERN)"};
    }
  }
  if (backend) {
    id.backend = backend->value;
    place = backend->place;
  }
  requireBackendName(id.backend, place);
  if (!id.seed) {
    if (const TrackedAttribute* seed = attribute(run, seedName, true, true)) {
      try {
        id.seed =
            std::uint64_t(input::requireInteger(seed->value, "seed", {0, input::kMaxSeedValue}));
      } catch (const input::InputError&) {
        throw input::CsvError(
            seed->place + ": not a seed (an integer in [0, 2^63 - 1]): " + shownValue(seed->value));
      }
    }
  }
  return id;
}

// The first index at which any of the metrics read is NaN or an infinity, with its value.
struct Divergence {
  std::int64_t index = std::numeric_limits<std::int64_t>::max();
  const TrackedValue* value = nullptr;
  std::string metric;
};

Divergence divergenceOf(const TrackedRun& run, const std::vector<std::string>& metrics) {
  Divergence d;
  for (const std::string& metric : metrics) {
    if (metric.empty()) continue;
    const auto it = run.metrics.find(metric);
    if (it == run.metrics.end()) continue;
    for (const auto& [index, value] : it->second) {
      if (index >= d.index) break;
      if (!std::isfinite(value.value)) {
        d = {index, &value, metric};
        break;
      }
    }
  }
  return d;
}

const TrackedValue* valueAt(const TrackedRun& run, const std::string& metric, std::int64_t index) {
  if (metric.empty()) return nullptr;
  const auto it = run.metrics.find(metric);
  if (it == run.metrics.end()) return nullptr;
  const auto at = it->second.find(index);
  return at == it->second.end() ? nullptr : &at->second;
}

// The loss logged at `index`, or ln of the perplexity logged there when `perplexity` (NaN and
// infinities end the run before: divergenceOf).
double lossAt(const TrackedRun& run, const std::string& metric, std::int64_t index,
              const std::string& indexName = "", bool perplexity = false) {
  const TrackedValue* v = valueAt(run, metric, index);
  if (!v) return kNaN;
  if (perplexity) {
    if (!(v->value > 0.0)) {
      throw input::CsvError(
          v->place + ": perplexity " + number(v->value) +
          (run.finalOnly ? std::string() : " at " + indexName + " " + std::to_string(index)) +
          " of run " + shownValue(run.identity) +
          ": a perplexity must be positive (the test loss is its natural log)");
    }
    return std::log(v->value);
  }
  if (std::fabs(v->value) > kMaxLoss) {
    throw input::CsvError(
        v->place + ": a loss outside [-1e6, 1e6] is not a measured loss: " + number(v->value));
  }
  return v->value;
}

void requireDistinctSeeds(const std::vector<ImportedRun>& runs) {
  std::map<std::pair<std::string, std::uint64_t>, std::string> seen;
  for (const ImportedRun& r : runs) {
    if (!r.run.seedGiven) continue;
    auto [it, added] = seen.try_emplace({r.run.backend, r.run.seed}, r.run.message);
    if (!added) {
      throw input::CsvError("runs " + shownValue(it->second) + " and " + shownValue(r.run.message) +
                            " are both backend " + shownValue(r.run.backend) + " seed " +
                            std::to_string(r.run.seed) +
                            " (two measurements of one seed: import them apart, or give each "
                            "its own seed)");
    }
  }
}

// Seeds 0, 1, ... per backend for runs whose source names none, past the seeds given.
int numberSeeds(std::vector<ImportedRun>& runs) {
  std::map<std::string, std::set<std::uint64_t>> taken;
  for (const ImportedRun& r : runs)
    if (r.run.seedGiven) taken[r.run.backend].insert(r.run.seed);
  std::map<std::string, std::uint64_t> next;
  int numbered = 0;
  for (ImportedRun& r : runs) {
    if (r.run.seedGiven) continue;
    std::uint64_t& seed = next[r.run.backend];
    while (taken[r.run.backend].count(seed) > 0) ++seed;
    r.run.seed = seed++;
    ++numbered;
  }
  return numbered;
}

}  // namespace

const std::vector<std::string>& defaultTrackerAccuracyMetrics() {
  static const std::vector<std::string> names = withFirst(
      {"val_acc", "val_accuracy", "val/acc", "val/accuracy", "test_acc"}, defaultAccuracyTags());
  return names;
}

const std::vector<std::string>& defaultTrackerTestLossMetrics() {
  static const std::vector<std::string> names =
      withFirst({"val_loss", "test_loss", "val/loss", "test/loss"}, defaultTestLossTags());
  return names;
}

const std::vector<std::string>& defaultTrackerTrainLossMetrics() {
  static const std::vector<std::string> names =
      withFirst({"train_loss_epoch", "train_loss"}, defaultTrainLossTags());
  return names;
}

TrackerWanted trackerWanted(const TrackerImportOptions& o) {
  TrackerWanted wanted;
  const auto add = [&](const std::string& named, const std::vector<std::string>& defaults) {
    if (!named.empty())
      wanted.metrics.insert(named);
    else
      wanted.metrics.insert(defaults.begin(), defaults.end());
  };
  add(o.accuracy, defaultTrackerAccuracyMetrics());
  add(o.testLoss, defaultTrackerTestLossMetrics());
  add(o.trainLoss, defaultTrackerTrainLossMetrics());
  add(o.perplexity, defaultPerplexityTags());
  if (o.backendRule.empty()) {
    wanted.columns = {"backend", "device"};
    wanted.hparams = {"backend", "device"};
  } else if (o.backendRule.rfind("column:", 0) == 0) {
    wanted.columns.insert(o.backendRule.substr(7));
  } else if (o.backendRule.rfind("hparam:", 0) == 0) {
    wanted.hparams.insert(o.backendRule.substr(7));
  }
  if (!o.seed.empty()) {
    wanted.columns.insert(o.seed);
    wanted.hparams.insert(o.seed);
  }
  return wanted;
}

TrackerRuns importTrackedRuns(const std::string& path, TrackedRuns tracked,
                              const TrackerImportOptions& options) {
  requireOneTestLossSource(options.testLoss, options.perplexity);
  std::optional<RunBackendRule> rule;
  if (!options.backendRule.empty()) rule = RunBackendRule::parse(options.backendRule);
  TrackerRuns out;
  out.notes = std::move(tracked.notes);
  out.accuracy = chooseMetric(path, options.accuracy, defaultTrackerAccuracyMetrics(),
                              "--accuracy-tag", tracked);
  if (options.perplexity.empty()) {
    out.testLoss = chooseMetric(path, options.testLoss, defaultTrackerTestLossMetrics(),
                                "--test-loss-tag", tracked);
  }
  if (out.testLoss.empty()) {
    out.perplexity = chooseMetric(path, options.perplexity, defaultPerplexityTags(),
                                  "--perplexity-tag", tracked);
  }
  out.trainLoss = chooseMetric(path, options.trainLoss, defaultTrackerTrainLossMetrics(),
                               "--train-loss-tag", tracked);
  // The metric the test loss is read from: a loss, or a perplexity (its log).
  const bool perplexity = !out.perplexity.empty();
  const std::string& lossMetric = perplexity ? out.perplexity : out.testLoss;
  if (out.accuracy.empty() && lossMetric.empty()) {
    throw input::CsvError(path +
                          ": no run logs an accuracy, a test loss or a perplexity under a name "
                          "tried by default; name the metrics with --accuracy-tag, "
                          "--test-loss-tag or --perplexity-tag (the metrics logged: " +
                          nameList(tracked.loggedNames) + ")");
  }
  if (perplexity) out.notes.push_back(perplexityNote("metric", out.perplexity));
  const std::string& primary = out.accuracy.empty() ? lossMetric : out.accuracy;

  std::map<std::string, const TrackedRun*> identities;
  for (const TrackedRun& run : tracked.runs) {
    auto [it, added] = identities.try_emplace(run.identity, &run);
    if (!added) {
      throw input::CsvError("run " + shownValue(run.identity) + " is read twice (" +
                            it->second->folder + " and " + run.folder +
                            "); import the files apart, or tell their runs apart");
    }
  }
  std::vector<const TrackedRun*> kept;
  for (const TrackedRun& run : tracked.runs) {
    if (!run.skip.empty()) {
      out.skipped.push_back({run.identity, run.skip});
      continue;
    }
    const Identity id = identify(run, rule, options.seed);
    if (!id.skip.empty()) {
      out.skipped.push_back({run.identity, id.skip});
      continue;
    }
    if (!logs(run, primary)) {
      std::set<std::string> metrics;
      for (const auto& [name, values] : run.metrics) metrics.insert(name);
      out.skipped.push_back({run.identity, "no metric " + shownValue(primary) +
                                               " (its metrics read: " + nameList(metrics) + ")"});
      continue;
    }
    ImportedRun r;
    r.run.backend = id.backend;
    r.run.message = run.identity;
    r.run.runName = run.name;
    r.run.seedGiven = id.seed.has_value();
    r.run.seed = id.seed.value_or(0);
    r.run.wallSeconds = run.wallSeconds;
    if (run.repeated > 0) {
      out.notes.push_back(run.identity + ": " + std::to_string(run.repeated) +
                          " values logged again at an " + tracked.indexName +
                          " already logged; the last one in the file is kept");
    }
    if (run.withoutIndex > 0) {
      out.notes.push_back(run.identity + ": " + std::to_string(run.withoutIndex) +
                          " rows log a metric without an " + tracked.indexName + ": not read");
    }
    out.runs.push_back(std::move(r));
    kept.push_back(&run);
  }
  if (out.runs.empty()) {
    if (out.skipped.empty()) throw input::CsvError(path + ": no runs found");
    const SkippedRun& one = out.skipped.front();
    throw input::CsvError(path + ": no run to import: all " + std::to_string(out.skipped.size()) +
                          " runs skipped (" + one.folder + ": " + one.why +
                          (out.skipped.size() > 1 ? "; ..." : "") + ")");
  }

  // Indices as epochs: checked over all runs, shifted by one when they start at 0.
  std::int64_t first = std::numeric_limits<std::int64_t>::max();
  for (const TrackedRun* run : kept) {
    if (run->finalOnly) continue;
    const auto& values = run->metrics.at(primary);
    const auto& lowest = *values.begin();
    if (lowest.first < 0) {
      throw input::CsvError(lowest.second.place + ": " + tracked.indexName + " " +
                            std::to_string(lowest.first) + ": a negative " + tracked.indexName +
                            " cannot be an epoch");
    }
    first = std::min(first, lowest.first);
  }
  const std::int64_t shift = first == 0 ? 1 : 0;
  if (shift == 1 && tracked.indexName == "epoch") {
    out.notes.push_back("the epochs of metric " + shownValue(primary) +
                        " count from 0: stored from 1 (epoch + 1)");
  } else if (shift == 1) {
    out.notes.push_back("the steps of metric " + shownValue(primary) + " (" + tracked.indexName +
                        ") start at 0: stored as epochs from 1 (epoch = " + tracked.indexName +
                        " + 1)");
  }

  std::vector<std::string> places;  // of the accuracy cells, by key
  import_checks::AccuracyColumn accuracy(
      "metric " + shownValue(out.accuracy), options.accuracyUnit,
      [&](int key) { return places[std::size_t(key)]; },
      [](const std::string& message) { throw input::CsvError(message); });
  int lossesElsewhere = 0;
  for (std::size_t i = 0; i < kept.size(); ++i) {
    const TrackedRun& run = *kept[i];
    ImportedRun& r = out.runs[i];
    const Divergence diverged = divergenceOf(run, {out.accuracy, lossMetric, out.trainLoss});
    bool trainLossSeen = false;
    double firstSeconds = kNaN, lastSeconds = kNaN;
    for (const auto& [index, value] : run.metrics.at(primary)) {
      if (index >= diverged.index) break;
      const std::int64_t epoch = run.finalOnly ? 1 : index + shift;
      if (epoch > input::kMaxEpochs) {
        throw input::CsvError(value.place + ": " + tracked.indexName + " " + std::to_string(index) +
                              ": beyond the " + std::to_string(input::kMaxEpochs) +
                              " epochs a study may have (the " + tracked.indexName +
                              " is stored as the epoch: log the metrics once per epoch with "
                              "the epoch as the step)");
      }
      EpochRecord e{int(epoch), lossAt(run, out.trainLoss, index),
                    lossAt(run, lossMetric, index, tracked.indexName, perplexity), kNaN, 0.0};
      trainLossSeen = trainLossSeen || !std::isnan(e.trainLoss);
      if (!out.accuracy.empty()) {
        e.testAccuracy = value.value;
        accuracy.add(i, r.epochs.size(), int(places.size()), value.value);
        places.push_back(value.place);
      }
      if (std::isnan(firstSeconds)) firstSeconds = value.seconds;
      lastSeconds = value.seconds;
      r.epochs.push_back(e);
    }
    if (!out.trainLoss.empty() && logs(run, out.trainLoss) && !trainLossSeen &&
        diverged.value == nullptr)
      ++lossesElsewhere;
    const double seconds = lastSeconds - firstSeconds;
    if (std::isfinite(seconds) && seconds > 0.0) r.run.wallSeconds = seconds;
    if (diverged.value) {
      const int epoch = run.finalOnly ? 0
                        : diverged.index + shift <= input::kMaxEpochs
                            ? int(std::max<std::int64_t>(1, diverged.index + shift))
                        : r.epochs.empty() ? 1
                                           : r.epochs.back().epoch + 1;
      out.notes.push_back(divergedRunNote(
          diverged.value->place + ": " + diverged.metric + " " + number(diverged.value->value) +
              (run.finalOnly ? std::string()
                             : " at " + tracked.indexName + " " + std::to_string(diverged.index)),
          "run " + shownValue(run.identity),
          run.finalOnly ? std::nullopt : std::optional<std::size_t>(r.epochs.size())));
      r.run.divergedEpoch = epoch;
    }
  }
  if (lossesElsewhere > 0) {
    out.notes.push_back("metric " + shownValue(out.trainLoss) + " is logged at none of the " +
                        tracked.indexName + "s of " + shownValue(primary) + " in " +
                        std::to_string(lossesElsewhere) +
                        " runs (logged per batch?): their train loss is left unknown");
  }
  if (!out.accuracy.empty()) {
    const std::string note = accuracy.resolve(out.runs);
    if (!note.empty()) out.notes.push_back(note);
  }
  for (std::size_t i = 0; i < out.runs.size(); ++i) {
    ImportedRun& r = out.runs[i];
    const int divergedEpoch = r.run.divergedEpoch;
    const bool diverged =
        divergenceOf(*kept[i], {out.accuracy, lossMetric, out.trainLoss}).value != nullptr;
    finishImportedRun(r);
    if (diverged) markImportedRunDiverged(r, divergedEpoch);
    if (kept[i]->finalOnly) {
      r.run.epochsDone = 0;  // final values only
      r.epochs.clear();
    }
  }
  requireDistinctSeeds(out.runs);
  const int numbered = numberSeeds(out.runs);
  if (numbered > 0) {
    out.notes.push_back(
        std::to_string(numbered) + (numbered == 1 ? " run names" : " runs name") + " no seed" +
        (rule && rule->kind() == RunBackendRule::Kind::Path
             ? " (the rule " + rule->text() + " has no {seed})"
             : " (no {seed} in a path: rule, no '" + options.seed + "' hyperparameter or column)") +
        ": seeds are numbered 0..n-1 per backend in the order of the runs");
  }
  return out;
}

}  // namespace paritylab::study
