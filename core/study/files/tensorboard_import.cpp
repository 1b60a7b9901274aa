#include "core/study/files/tensorboard_import.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "core/input/input_limits.h"
#include "core/input/number_input.h"
#include "core/study/files/import_checks.h"
#include "core/study/files/tensorboard_run_rule.h"
#include "core/study/files/tensorboard_run_scalars.h"
#include "core/study/files/tensorboard_runs.h"

namespace paritylab::study {
namespace {

using import_checks::shownValue;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr std::size_t kMaxNameLength = 200;  // as a CSV's backend names
constexpr double kMaxLoss = 1e6;             // as a CSV's losses
constexpr std::size_t kListedTags = 12;      // tags named in a message

std::string tagList(const std::set<std::string>& tags) {
  return import_checks::shownList(tags, kListedTags, "tags");
}

std::set<std::string> tagsOf(const RunScalars& run) {
  std::set<std::string> tags;
  for (const auto& [tag, steps] : run.tags) tags.insert(tag);
  return tags;
}

// The tag named by `option` (it must be logged by some run), else the first default some run logs.
std::string chooseTag(const std::string& path, const std::string& named,
                      const std::vector<std::string>& defaults, const std::string& option,
                      const std::set<std::string>& logged) {
  if (!named.empty()) {
    if (logged.count(named) == 0) {
      throw EventFileError(path + ": no run logs the tag " + shownValue(named) + " (" + option +
                           "); the scalar tags logged: " + tagList(logged));
    }
    return named;
  }
  for (const std::string& tag : defaults)
    if (logged.count(tag) > 0) return tag;
  return "";
}

std::string fileOf(const RunScalars& run, const LoggedScalar& value) {
  return run.folder.files[value.file];
}

[[noreturn]] void refuseValue(const RunScalars& run, const std::string& tag,
                              const LoggedScalar& value, const std::string& why) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", value.point.value);
  throw EventFileError(fileOf(run, value) + ": tag " + shownValue(tag) + " step " +
                       std::to_string(value.point.step) + ": " + why + ": " + text);
}

// The name a folder gives a backend: shown in tables and terminals, so bounded and printable.
void requireBackendName(const std::string& folder, const std::string& name,
                        const std::string& from) {
  std::string why;
  if (name.empty()) why = "is empty";
  if (name.size() > kMaxNameLength)
    why = "is longer than " + std::to_string(kMaxNameLength) + " characters";
  for (const char c : name)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) why = "holds a control character";
  if (!why.empty()) {
    throw EventFileError(folder + ": the backend name " + shownValue(name) + " (" + from + ") " +
                         why);
  }
}

struct Cell {  // one accuracy value, checked once the whole set is known
  std::size_t run, epoch;
  const RunScalars* scalars;
  LoggedScalar value;
};

// Accuracies as fractions: declared, or inferred from all of them at once, by the CSV's rule.
void resolveAccuracies(std::vector<ImportedRun>& runs, const std::vector<Cell>& cells,
                       const std::string& tag, AccuracyUnit unit, ImportNotes& notes) {
  import_checks::AccuracyColumn column(
      "tag " + shownValue(tag), unit,
      [&](int key) {
        const Cell& c = cells[std::size_t(key)];
        return fileOf(*c.scalars, c.value) + ": tag " + shownValue(tag) + " step " +
               std::to_string(c.value.point.step);
      },
      [](const std::string& message) { throw EventFileError(message); });
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const Cell& c = cells[i];  // finite: a run ends before a NaN or an infinity
    runs[c.run].epochs[c.epoch].testAccuracy = c.value.point.value;
    column.add(c.run, c.epoch, int(i), c.value.point.value);
  }
  const std::string note = column.resolve(runs);
  if (!note.empty()) notes.push_back(note);
}

// The loss logged at `step`, or ln of the perplexity logged there when `perplexity`.
double lossAt(const RunScalars& run, const std::string& tag, std::int64_t step,
              bool perplexity = false) {
  if (tag.empty()) return kNaN;
  const auto steps = run.tags.find(tag);
  if (steps == run.tags.end()) return kNaN;
  const auto at = steps->second.find(step);
  if (at == steps->second.end()) return kNaN;
  const double v = at->second.point.value;
  if (perplexity) {  // NaN and infinities end the run before (divergenceOf)
    if (!(v > 0.0)) {
      const std::string folder = run.folder.relative == "." ? run.folder.name : run.folder.relative;
      refuseValue(run, tag, at->second,
                  "run " + shownValue(folder) +
                      ": a perplexity must be positive (the test loss is its natural log)");
    }
    return std::log(v);
  }
  if (std::fabs(v) > kMaxLoss)  // NaN and infinities end the run before (divergenceOf)
    refuseValue(run, tag, at->second, "a loss must be a finite number within [-1e6, 1e6]");
  return v;
}

// The first step at which a tag read logs NaN or an infinity: the run diverged there.
struct Divergence {
  std::int64_t step = std::numeric_limits<std::int64_t>::max();
  const LoggedScalar* value = nullptr;
  std::string tag;
};

Divergence divergenceOf(const RunScalars& run, const std::vector<std::string>& tags) {
  Divergence d;
  for (const std::string& tag : tags) {
    const auto steps = tag.empty() ? run.tags.end() : run.tags.find(tag);
    if (steps == run.tags.end()) continue;
    for (const auto& [step, value] : steps->second) {
      if (step >= d.step) break;
      if (!std::isfinite(value.point.value)) {
        d = {step, &value, tag};
        break;
      }
    }
  }
  return d;
}

// Seeds 0..n-1 per backend, in the order of the run folders, for runs whose path names none.
void numberSeeds(std::vector<ImportedRun>& runs) {
  std::map<std::string, std::uint64_t> next;
  for (ImportedRun& r : runs)
    if (!r.run.seedGiven) r.run.seed = next[r.run.backend]++;
}

void requireDistinctSeeds(const std::vector<ImportedRun>& runs) {
  std::map<std::pair<std::string, std::uint64_t>, std::string> seen;
  for (const ImportedRun& r : runs) {
    auto [it, added] = seen.try_emplace({r.run.backend, r.run.seed}, r.run.message);
    if (!added) {
      throw EventFileError("run folders " + shownValue(it->second) + " and " +
                           shownValue(r.run.message) + " are both backend " +
                           shownValue(r.run.backend) + " seed " + std::to_string(r.run.seed) +
                           " by the --backend-from rule");
    }
  }
}

}  // namespace

const std::vector<std::string>& defaultAccuracyTags() {
  static const std::vector<std::string> tags = {"accuracy",       "val/accuracy",  "eval/accuracy",
                                                "test/accuracy",  "accuracy_top1", "val_accuracy",
                                                "test_accuracy",  "Accuracy/test", "Accuracy/val",
                                                "epoch_accuracy", "val/acc",       "acc"};
  return tags;
}

const std::vector<std::string>& defaultTestLossTags() {
  static const std::vector<std::string> tags = {"test_loss", "test/loss", "val/loss",
                                                "eval/loss", "val_loss",  "validation/loss",
                                                "Loss/test", "Loss/val"};
  return tags;
}

const std::vector<std::string>& defaultTrainLossTags() {
  static const std::vector<std::string> tags = {"train_loss",    "train/loss", "Loss/train",
                                                "training/loss", "epoch_loss", "loss"};
  return tags;
}

const std::vector<std::string>& defaultPerplexityTags() {
  static const std::vector<std::string> tags = {
      "val_perplexity",  "val/perplexity",  "eval/perplexity",
      "test_perplexity", "test/perplexity", "validation/perplexity",
      "perplexity",      "val_ppl",         "val/ppl",
      "eval/ppl",        "test_ppl",        "ppl"};
  return tags;
}

void requireOneTestLossSource(const std::string& testLoss, const std::string& perplexity) {
  if (testLoss.empty() || perplexity.empty()) return;
  throw input::InputError("--test-loss-tag " + shownValue(testLoss) + " and --perplexity-tag " +
                          shownValue(perplexity) +
                          " both name the test loss (a perplexity is read as the test loss "
                          "ln(perplexity)); give one of them");
}

std::string perplexityNote(const std::string& kind, const std::string& tag) {
  return "no test loss read: the test loss of each epoch is ln of the perplexity " + kind + " " +
         shownValue(tag) + " (nats)";
}

TensorBoardRuns readTensorBoardRuns(const std::string& path,
                                    const TensorBoardImportOptions& options) {
  requireOneTestLossSource(options.testLossTag, options.perplexityTag);
  std::optional<RunPathRule> rule;
  if (!options.backendRule.empty()) rule = RunPathRule::parse(options.backendRule);
  TensorBoardRuns out;
  std::vector<RunScalars> scalars;
  std::set<std::string> logged;
  for (const EventRunFolder& folder : findEventRuns(path)) {
    scalars.push_back(readRunScalars(folder, out.notes));
    for (const auto& [tag, steps] : scalars.back().tags) logged.insert(tag);
  }
  out.accuracyTag =
      chooseTag(path, options.accuracyTag, defaultAccuracyTags(), "--accuracy-tag", logged);
  if (options.perplexityTag.empty()) {
    out.testLossTag =
        chooseTag(path, options.testLossTag, defaultTestLossTags(), "--test-loss-tag", logged);
  }
  if (out.testLossTag.empty()) {
    out.perplexityTag =
        chooseTag(path, options.perplexityTag, defaultPerplexityTags(), "--perplexity-tag", logged);
  }
  out.trainLossTag =
      chooseTag(path, options.trainLossTag, defaultTrainLossTags(), "--train-loss-tag", logged);
  // The tag the test loss is read from: a loss, or a perplexity (its log).
  const bool perplexity = !out.perplexityTag.empty();
  const std::string& lossTag = perplexity ? out.perplexityTag : out.testLossTag;
  if (out.accuracyTag.empty() && lossTag.empty()) {
    throw EventFileError(path +
                         ": no run logs an accuracy, a test loss or a perplexity under a tag "
                         "tried by default; name the tags with --accuracy-tag, --test-loss-tag "
                         "or --perplexity-tag (the scalar tags logged: " +
                         tagList(logged) + ")");
  }
  if (perplexity) out.notes.push_back(perplexityNote("tag", out.perplexityTag));
  const std::string& primary = out.accuracyTag.empty() ? lossTag : out.accuracyTag;

  // Which runs are read, with their backend and seed.
  std::vector<const RunScalars*> kept;
  for (const RunScalars& run : scalars) {
    const std::string& relative = run.folder.relative;
    const std::string identity = relative == "." ? run.folder.name : relative;
    ImportedRun r;
    r.run.message = identity;
    r.run.runName = run.folder.name;
    r.run.seedGiven = false;
    if (rule) {
      const auto match = rule->match(identity);
      if (!match) {
        out.skipped.push_back({identity, "does not match " + rule->text()});
        continue;
      }
      requireBackendName(identity, match->backend, rule->text());
      r.run.backend = match->backend;
      if (match->seed) {
        r.run.seed = *match->seed;
        r.run.seedGiven = true;
      }
    } else {
      requireBackendName(identity, run.folder.parentName, "its parent folder");
      r.run.backend = run.folder.parentName;
    }
    if (run.tags.count(primary) == 0) {
      out.skipped.push_back({identity, "no tag " + shownValue(primary) +
                                           " (its scalar tags: " + tagList(tagsOf(run)) + ")"});
      continue;
    }
    if (run.repeatedSteps > 0) {
      out.notes.push_back(identity + ": " + std::to_string(run.repeatedSteps) +
                          " values logged again at a step already logged (a restarted job?); "
                          "the one with the latest wall time is kept");
    }
    out.runs.push_back(std::move(r));
    kept.push_back(&run);
  }

  if (out.runs.empty()) {
    const SkippedRun& one = out.skipped.front();
    throw EventFileError(path + ": no run to import: all " + std::to_string(out.skipped.size()) +
                         " run folders skipped (" + one.folder + ": " + one.why +
                         (out.skipped.size() > 1 ? "; ..." : "") + ")");
  }

  // Steps as epochs: checked over all runs, shifted by one when they start at 0.
  std::int64_t first = std::numeric_limits<std::int64_t>::max();
  for (std::size_t i = 0; i < kept.size(); ++i) {
    const auto& steps = kept[i]->tags.at(primary);
    const LoggedScalar& lowest = steps.begin()->second;
    if (lowest.point.step < 0) {
      throw EventFileError(fileOf(*kept[i], lowest) + ": tag " + shownValue(primary) + " step " +
                           std::to_string(lowest.point.step) +
                           ": a negative step cannot be an epoch");
    }
    first = std::min(first, lowest.point.step);
  }
  const std::int64_t shift = first == 0 ? 1 : 0;
  if (shift == 1) {
    out.notes.push_back("steps of tag " + shownValue(primary) +
                        " start at 0: stored as epochs from 1 (epoch = step + 1)");
  }
  std::vector<Cell> accuracies;
  int lossesAtOtherSteps = 0;
  for (std::size_t i = 0; i < kept.size(); ++i) {
    const RunScalars& run = *kept[i];
    ImportedRun& r = out.runs[i];
    bool trainLossSeen = false;
    const Divergence diverged = divergenceOf(run, {out.accuracyTag, lossTag, out.trainLossTag});
    for (const auto& [step, value] : run.tags.at(primary)) {
      if (step >= diverged.step) break;
      if (step + shift > input::kMaxEpochs) {
        throw EventFileError(fileOf(run, value) + ": tag " + shownValue(primary) + " step " +
                             std::to_string(step) + ": beyond the " +
                             std::to_string(input::kMaxEpochs) +
                             " epochs a study may have (the step is stored as the epoch: log "
                             "the metrics once per epoch with the epoch as the step)");
      }
      EpochRecord e{int(step + shift), lossAt(run, out.trainLossTag, step),
                    lossAt(run, lossTag, step, perplexity), kNaN, 0.0};
      trainLossSeen = trainLossSeen || !std::isnan(e.trainLoss);
      if (!out.accuracyTag.empty()) accuracies.push_back({i, r.epochs.size(), &run, value});
      r.epochs.push_back(e);
    }
    if (!out.trainLossTag.empty() && run.tags.count(out.trainLossTag) > 0 && !trainLossSeen &&
        !diverged.value)
      ++lossesAtOtherSteps;
    const auto& steps = run.tags.at(primary);
    const double seconds =
        steps.rbegin()->second.point.wallTime - steps.begin()->second.point.wallTime;
    r.run.wallSeconds = std::isfinite(seconds) && seconds > 0.0 ? seconds : 0.0;
    if (diverged.value) {
      char text[40];
      std::snprintf(text, sizeof text, "%.17g", diverged.value->point.value);
      out.notes.push_back(divergedRunNote(fileOf(run, *diverged.value) + ": tag " +
                                              shownValue(diverged.tag) + " step " +
                                              std::to_string(diverged.step) + ": " + text,
                                          "run " + shownValue(r.run.message), r.epochs.size()));
      r.run.divergedEpoch = diverged.step + shift <= input::kMaxEpochs
                                ? int(std::max<std::int64_t>(1, diverged.step + shift))
                                : (r.epochs.empty() ? 1 : r.epochs.back().epoch + 1);
    }
  }
  if (lossesAtOtherSteps > 0) {
    out.notes.push_back("tag " + shownValue(out.trainLossTag) +
                        " is logged at none of the steps of " + shownValue(primary) + " in " +
                        std::to_string(lossesAtOtherSteps) +
                        " runs (logged per batch?): their train loss is left unknown");
  }
  if (!out.accuracyTag.empty())
    resolveAccuracies(out.runs, accuracies, out.accuracyTag, options.accuracyUnit, out.notes);
  for (ImportedRun& r : out.runs) {
    const int divergedEpoch = r.run.divergedEpoch;
    finishImportedRun(r);
    if (divergedEpoch > 0) markImportedRunDiverged(r, divergedEpoch);
  }
  if (rule && rule->hasSeed()) requireDistinctSeeds(out.runs);
  numberSeeds(out.runs);
  if (!rule && !out.runs.empty()) {
    out.notes.push_back(
        "no --backend-from rule: each run folder's parent folder names its "
        "backend, and seeds are numbered 0..n-1 per backend in the order of the "
        "run folders' paths");
  } else if (rule && !rule->hasSeed() && !out.runs.empty()) {
    out.notes.push_back("the rule " + rule->text() +
                        " names no {seed}: seeds are numbered 0..n-1 per backend in the order "
                        "of the run folders' paths");
  }
  return out;
}

}  // namespace paritylab::study
