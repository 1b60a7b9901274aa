#include "core/study/files/results_import.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <string_view>

#include "core/input/csv.h"
#include "core/input/input_limits.h"
#include "core/input/number_input.h"
#include "core/input/text_file.h"
#include "core/study/analysis/identical_runs.h"
#include "core/study/files/import_checks.h"

namespace paritylab::study {
namespace {

using import_checks::AccuracyColumn;
using import_checks::deviceOf;
using import_checks::EpochLines;
using import_checks::shownValue;
using import_checks::where;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr std::size_t kMaxNameLength = 200;  // backend and run names
constexpr double kMaxLoss = 1e6;             // a loss beyond this is not a measured loss

// Column position of each header name; the error names the file and the missing column.
struct Header {
  std::vector<std::string> names;
  std::string file;
  int index(const std::string& name, bool required = true) const {
    auto it = std::find(names.begin(), names.end(), name);
    if (it != names.end()) return int(it - names.begin());
    if (!required) return -1;
    std::string list;
    for (std::size_t i = 0; i < names.size() && i < 20; ++i)
      list += (list.empty() ? "" : ", ") + shownValue(names[i]);
    if (names.size() > 20) list += ", ... (" + std::to_string(names.size()) + " columns)";
    throw input::CsvError(
        file + ":1: no column '" + name + "' (columns: " + list +
        "). ParityLab reads one row per run and epoch (columns run, backend, epoch, "
        "accuracy; optional seed, train/test loss) or one row per run (backend, "
        "final_accuracy, optional seed; --epoch-col \"\"); name other columns with "
        "--run-col, --backend-col, --epoch-col, --seed-col, --accuracy-col");
  }
};

// 1-based column (characters) of field i in a parsed row is not kept; report the field number.
[[noreturn]] void badField(const std::string& file, const input::CsvRow& row, int col,
                           const std::string& column, const std::string& what) {
  throw input::CsvError(where(file, row.line, col, column) + ": " + what + ": " +
                        shownValue(row.fields[std::size_t(col)]));
}

void requireField(const std::string& file, const input::CsvRow& row, int col,
                  const std::string& name) {
  if (col >= int(row.fields.size())) {
    throw input::CsvError(file + ":" + std::to_string(row.line) + ": only " +
                          std::to_string(row.fields.size()) + " fields, '" + name + "' is column " +
                          std::to_string(col + 1));
  }
}

// A finite decimal number; "" is unknown (NaN) when allowEmpty. nan/inf (unless `nonFinite`) and
// out-of-range values are refused with the row and column (they were once stored as NULL without
// a word).
double numberField(const std::string& file, const input::CsvRow& row, int col,
                   const std::string& name, bool allowEmpty = true, bool nonFinite = false) {
  if (col < 0) return kNaN;
  requireField(file, row, col, name);
  const std::string& s = row.fields[std::size_t(col)];
  if (s.empty() && allowEmpty) return kNaN;
  double v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec == std::errc::result_out_of_range) badField(file, row, col, name, "number out of range");
  if (r.ec != std::errc() || r.ptr != s.data() + s.size())
    badField(file, row, col, name, "not a number");
  if (!std::isfinite(v) && !nonFinite) badField(file, row, col, name, "not a finite number");
  return v;
}

// Where a run's metrics first are NaN or an infinity: the run diverged there (docs/import.md).
struct Divergence {
  int epoch = std::numeric_limits<int>::max();  // 0 for a run of final values
  std::string place, value;                     // "FILE:LINE: column N (NAME)", "NAME nan"
  bool seen() const { return !place.empty(); }
};

// A metric's cell (a loss or the accuracy): a number, "" unknown (NaN), or NaN or an infinity as
// written (a diverged run), which is kept in `diverged` as the row's first such cell.
double metricField(const std::string& file, const input::CsvRow& row, int col,
                   const std::string& name, Divergence& diverged) {
  const double v = numberField(file, row, col, name, true, true);
  if (col >= 0 && !row.fields[std::size_t(col)].empty() && !std::isfinite(v) && !diverged.seen()) {
    diverged = {0, where(file, row.line, col, name),
                name + (std::isnan(v) ? " nan"
                        : v > 0       ? " inf"
                                      : " -inf")};
  }
  return v;
}

double lossField(const std::string& file, const input::CsvRow& row, int col,
                 const std::string& name, Divergence& diverged) {
  const double v = metricField(file, row, col, name, diverged);
  if (std::isfinite(v) && std::fabs(v) > kMaxLoss)
    badField(file, row, col, name, "a loss outside [-1e6, 1e6] is not a measured loss");
  return v;
}

// Keeps a row's divergence at `epoch` as its run's when it is the run's earliest.
void keepDivergence(std::vector<Divergence>& runs, std::size_t run, Divergence row, int epoch) {
  if (!row.seen()) return;
  if (run >= runs.size()) runs.resize(run + 1);
  if (epoch < runs[run].epoch) {
    row.epoch = epoch;
    runs[run] = std::move(row);
  }
}

// A run whose metrics become NaN or an infinity is stored as diverged with its epochs before that
// epoch (none for a run of final values), noted with the cell and the value. The runs are
// finished (finishImportedRun) here; `finalOnly` runs keep no epochs.
void finishRuns(std::vector<ImportedRun>& runs, const std::vector<Divergence>& diverged,
                bool finalOnly, ImportNotes* notes) {
  for (std::size_t i = 0; i < runs.size(); ++i) {
    ImportedRun& r = runs[i];
    const Divergence* d = i < diverged.size() && diverged[i].seen() ? &diverged[i] : nullptr;
    if (d) {
      std::erase_if(r.epochs, [&](const EpochRecord& e) { return e.epoch >= d->epoch; });
    }
    finishImportedRun(r);
    if (finalOnly) {
      r.run.epochsDone = 0;  // a final value only
      r.epochs.clear();
    }
    if (!d) continue;
    markImportedRunDiverged(r, d->epoch);
    if (!notes) continue;
    notes->push_back(divergedRunNote(
        d->place + ": " + d->value +
            (finalOnly ? std::string() : " at epoch " + std::to_string(d->epoch)),
        "run " + shownValue(r.run.message) + " (backend " + shownValue(r.run.backend) + ")",
        finalOnly ? std::nullopt : std::optional<std::size_t>(r.epochs.size())));
  }
}

std::string textField(const std::string& file, const input::CsvRow& row, int col,
                      const std::string& name) {
  if (col >= int(row.fields.size()))
    throw input::CsvError(file + ":" + std::to_string(row.line) + ": missing field '" + name + "'");
  return row.fields[std::size_t(col)];
}

// A name shown in tables, charts and terminals: no NUL, newline, escape or other control
// character (an ANSI escape in a backend name would reach the terminal).
void requirePrintableName(const std::string& file, const input::CsvRow& row, int col,
                          const std::string& name, const std::string& text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f) {
      char code[8];
      std::snprintf(code, sizeof code, "0x%02X", c);
      badField(file, row, col, name,
               "control character " + std::string(code) + " at position " + std::to_string(i + 1) +
                   " (a name must be printable)");
    }
  }
}

std::string nameField(const std::string& file, const input::CsvRow& row, int col,
                      const std::string& name) {
  std::string text = textField(file, row, col, name);
  if (text.empty()) badField(file, row, col, name, "empty " + name);
  if (text.size() > kMaxNameLength)
    badField(file, row, col, name, "longer than " + std::to_string(kMaxNameLength) + " characters");
  requirePrintableName(file, row, col, name, text);
  return text;
}

int epochField(const std::string& file, const input::CsvRow& row, int col,
               const std::string& name) {
  const double epoch = numberField(file, row, col, name, false);
  if (epoch < 1 || epoch > 1e6 || epoch != std::floor(epoch))
    badField(file, row, col, name, "not an epoch number in [1, 1000000]");
  return int(epoch);
}

std::uint64_t seedField(const std::string& file, const input::CsvRow& row, int col,
                        const std::string& name) {
  requireField(file, row, col, name);
  // The one number parser: 1e300 or 18446744073709551615 never wrap. Seeds are
  // stored as SQLite's signed 64-bit integers: at most kMaxSeedValue = 2^63 - 1.
  try {
    return std::uint64_t(
        input::requireInteger(row.fields[std::size_t(col)], "seed", {0, input::kMaxSeedValue}));
  } catch (const input::InputError&) {
    badField(file, row, col, name, "not a seed (an integer in [0, 2^63 - 1])");
  }
}

std::ifstream openCsv(const std::string& path) {
  if (std::filesystem::is_directory(path))
    throw input::CsvError(path + ": is a directory, not a CSV");
  try {
    input::requireRegularFile(path, "CSV");
  } catch (const input::InputError& e) {
    throw input::CsvError(e.what());
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input::CsvError(path + ": cannot open");
  return in;
}

// "run, backend, epoch" and "r1, xla, 1": fields as written with spaces after the commas.
void trimFields(input::CsvRow& row) {
  for (std::string& field : row.fields) {
    const auto first = field.find_first_not_of(" \t");
    const auto last = field.find_last_not_of(" \t");
    field = first == std::string::npos ? std::string() : field.substr(first, last - first + 1);
  }
}

Header readHeader(input::CsvReader& reader, const std::string& path) {
  input::CsvRow row;
  if (!reader.next(row)) throw input::CsvError(path + ": empty file (no header line)");
  trimFields(row);
  return {row.fields, path};
}

// Per backend, seeds 0..n-1 in order of first appearance, for runs whose source gives none.
void assignSeeds(std::vector<ImportedRun>& runs) {
  std::map<std::string, std::uint64_t> next;
  for (auto& r : runs)
    if (!r.run.seedGiven) r.run.seed = next[r.run.backend]++;
}

}  // namespace

std::vector<ImportedRun> readTorchprimeCsv(const std::string& path, ImportNotes* notes,
                                           AccuracyUnit unit) {
  std::ifstream in = openCsv(path);
  input::CsvReader reader(in, path);
  Header h = readHeader(reader, path);
  int cRun = h.index("run_name"), cDate = h.index("datetime"), cHyper = h.index("hyperparameters");
  int cEpoch = h.index("epoch"), cTrain = h.index("train_loss"), cTest = h.index("test_loss");
  int cAcc = h.index("accuracy_top1");
  std::vector<ImportedRun> runs;
  std::map<std::string, std::size_t> byKey;
  AccuracyColumn accuracy(path, "accuracy_top1", cAcc, unit);
  EpochLines epochLines;
  std::vector<Divergence> diverged;  // per run
  input::CsvRow row;
  while (reader.next(row)) {
    trimFields(row);
    if (row.fields.size() == 1 && row.fields[0].empty()) continue;  // blank line
    const std::string name = nameField(path, row, cRun, "run_name");
    const std::string key = name + "@" + textField(path, row, cDate, "datetime");
    requireField(path, row, cHyper, "hyperparameters");
    const std::string device = deviceOf(row.fields[std::size_t(cHyper)]);
    if (device.empty()) badField(path, row, cHyper, "hyperparameters", "no 'device' entry");
    if (device.size() > kMaxNameLength)
      badField(path, row, cHyper, "hyperparameters",
               "device name longer than " + std::to_string(kMaxNameLength) + " characters");
    requirePrintableName(path, row, cHyper, "hyperparameters", device);
    auto [it, added] = byKey.try_emplace(key, runs.size());
    if (added) {
      runs.emplace_back();
      runs.back().run.backend = device;
      runs.back().run.message = key;
      runs.back().run.runName = name;
      runs.back().run.seedGiven = false;  // torchprime files name runs, they give no seed
    } else if (runs[it->second].run.backend != device) {
      badField(path, row, cHyper, "hyperparameters", "device differs from earlier rows of " + key);
    }
    const int epoch = epochField(path, row, cEpoch, "epoch");
    epochLines.add(path, it->second, key, epoch, row.line);
    ImportedRun& run = runs[it->second];
    Divergence cells;
    run.epochs.push_back({epoch, lossField(path, row, cTrain, "train_loss", cells),
                          lossField(path, row, cTest, "test_loss", cells),
                          metricField(path, row, cAcc, "accuracy_top1", cells), kNaN});
    keepDivergence(diverged, it->second, std::move(cells), epoch);
    if (std::isfinite(run.epochs.back().testAccuracy))
      accuracy.add(it->second, run.epochs.size() - 1, row.line, run.epochs.back().testAccuracy);
  }
  const std::string note = accuracy.resolve(runs);
  if (notes && !note.empty()) notes->push_back(note);
  finishRuns(runs, diverged, false, notes);
  assignSeeds(runs);
  return runs;
}

std::vector<ImportedRun> readGenericCsv(const std::string& path, const CsvImportOptions& o,
                                        ImportNotes* notes) {
  std::ifstream in = openCsv(path);
  input::CsvReader reader(in, path);
  Header h = readHeader(reader, path);
  bool wide = o.epochColumn.empty() || h.index(o.epochColumn, false) < 0;
  int cBackend = h.index(o.backendColumn);
  int cAcc =
      h.index(wide && h.index(o.accuracyColumn, false) < 0 ? "final_accuracy" : o.accuracyColumn);
  int cTrain = o.trainLossColumn.empty() ? -1 : h.index(o.trainLossColumn);
  int cTest = o.testLossColumn.empty() ? -1 : h.index(o.testLossColumn);
  int cSeed = h.index(o.seedColumn, false);
  int cRun = wide ? -1 : h.index(o.runColumn);
  int cEpoch = wide ? -1 : h.index(o.epochColumn);
  const std::string accName = h.names[std::size_t(cAcc)];
  std::vector<ImportedRun> runs;
  std::map<std::string, std::size_t> byKey;  // backend + run identity -> index
  std::map<std::string, int> keyLine;        // wide: where an identity first appeared
  AccuracyColumn accuracy(path, accName, cAcc, o.accuracyUnit);
  EpochLines epochLines;
  std::vector<Divergence> diverged;  // per run
  input::CsvRow row;
  while (reader.next(row)) {
    trimFields(row);
    if (row.fields.size() == 1 && row.fields[0].empty()) continue;
    std::string backend = nameField(path, row, cBackend, o.backendColumn);
    Divergence cells;
    EpochRecord e{1, lossField(path, row, cTrain, o.trainLossColumn, cells),
                  lossField(path, row, cTest, o.testLossColumn, cells),
                  metricField(path, row, cAcc, accName, cells), kNaN};
    const bool accuracyRead = std::isfinite(e.testAccuracy);
    // An empty seed cell: the source gives no seed for this run (a report of imported runs).
    const bool hasSeed = cSeed >= 0 && !textField(path, row, cSeed, o.seedColumn).empty();
    const std::uint64_t seed = hasSeed ? seedField(path, row, cSeed, o.seedColumn) : 0;
    if (wide) {
      ImportedRun r;
      r.run.backend = backend;
      r.run.seedGiven = hasSeed;
      r.run.seed = seed;
      // The run's identity in the file: its seed when given, else its row.
      r.run.message = hasSeed ? "seed " + std::to_string(seed) : "row " + std::to_string(row.line);
      auto [first, added] = keyLine.try_emplace(backend + "\n" + r.run.message, row.line);
      if (!added) {
        throw input::CsvError(path + ":" + std::to_string(row.line) + ": backend " +
                              shownValue(backend) + " " + r.run.message + " twice (first at line " +
                              std::to_string(first->second) + ")");
      }
      r.epochs.push_back(e);
      runs.push_back(std::move(r));
      keepDivergence(diverged, runs.size() - 1, std::move(cells), 0);
      if (accuracyRead) accuracy.add(runs.size() - 1, 0, row.line, e.testAccuracy);
      continue;
    }
    e.epoch = epochField(path, row, cEpoch, o.epochColumn);
    const std::string name = nameField(path, row, cRun, o.runColumn);
    auto [it, added] = byKey.try_emplace(backend + "\n" + name, runs.size());
    if (added) {
      runs.emplace_back();
      runs.back().run.backend = backend;
      runs.back().run.message = name;
      runs.back().run.runName = name;
      runs.back().run.seedGiven = hasSeed;
      runs.back().run.seed = seed;
    } else if (hasSeed && runs[it->second].run.seed != seed) {
      badField(path, row, cSeed, o.seedColumn,
               "seed differs from earlier rows of run " + shownValue(name));
    }
    epochLines.add(path, it->second, name, e.epoch, row.line);
    runs[it->second].epochs.push_back(e);
    keepDivergence(diverged, it->second, std::move(cells), e.epoch);
    if (accuracyRead)
      accuracy.add(it->second, runs[it->second].epochs.size() - 1, row.line, e.testAccuracy);
  }
  const std::string note = accuracy.resolve(runs);
  if (notes && !note.empty()) notes->push_back(note);
  finishRuns(runs, diverged, wide, notes);
  assignSeeds(runs);
  return runs;
}

std::vector<ImportedRun> readResultsCsv(const std::string& path, const CsvImportOptions& options,
                                        ImportNotes* notes) {
  std::ifstream in = openCsv(path);
  input::CsvReader reader(in, path);
  Header h = readHeader(reader, path);
  if (h.index("hyperparameters", false) >= 0 && h.index("accuracy_top1", false) >= 0)
    return readTorchprimeCsv(path, notes, options.accuracyUnit);
  return readGenericCsv(path, options, notes);
}

void finishImportedRun(ImportedRun& r) {
  std::sort(r.epochs.begin(), r.epochs.end(), [](auto& a, auto& b) { return a.epoch < b.epoch; });
  r.run.status = RunState::Completed;
  r.run.source = "imported";
  r.run.epochsDone = r.epochs.empty() ? 0 : r.epochs.back().epoch;
  if (!r.epochs.empty()) {
    r.run.finalTrainLoss = r.epochs.back().trainLoss;
    r.run.finalTestLoss = r.epochs.back().testLoss;
    r.run.finalAccuracy = r.epochs.back().testAccuracy;
  }
}

void markImportedRunDiverged(ImportedRun& r, int epoch) {
  r.run.status = RunState::Diverged;
  r.run.divergedEpoch = epoch;
  if (r.epochs.empty()) {
    const double unknown = std::numeric_limits<double>::quiet_NaN();
    r.run.finalTrainLoss = r.run.finalTestLoss = r.run.finalAccuracy = unknown;
  }
}

std::string divergedRunNote(const std::string& where, const std::string& what,
                            std::optional<std::size_t> kept) {
  return where + ": " + what + " diverged; imported as diverged" +
         (!kept ? std::string(" (a run of final values: none kept)")
                : " with its " + std::to_string(*kept) + (*kept == 1 ? " epoch" : " epochs") +
                      " before it");
}

std::vector<std::string> identicalRunNotes(const std::vector<ImportedRun>& runs) {
  std::vector<RunCurve> curves;
  curves.reserve(runs.size());
  for (const ImportedRun& r : runs)
    curves.push_back({r.run.backend, r.run.runName, r.epochs, r.run.finalAccuracy});
  return describeIdenticalRuns(findIdenticalRuns(curves), curves);
}

namespace {

// What an import records as its origin: the absolute path, without a trailing '/' (a folder of
// TensorBoard logs named "logs/" is the same origin as "logs").
std::string originOf(const std::string& path) {
  std::string origin = std::filesystem::absolute(path).string();
  while (origin.size() > 1 && origin.back() == '/') origin.pop_back();
  return origin;
}

// A database holds one study: refuses (unless `addToStudy`) to import into an emulated study or
// into the import of another file; extends an imported study's backends and seeds by the new
// runs' so that the stored spec lists every run's backend.
void joinStoredStudy(ResultsStore& store, const std::string& originPath,
                     const std::vector<ImportedRun>& runs, bool addToStudy) {
  StudySpec stored = store.loadStudySpec();
  int emulated = 0;
  for (const RunRecord& r : store.loadRuns())
    if (r.source == "emulated") ++emulated;
  const std::string origin = originOf(originPath);
  if (!addToStudy && (stored.origin.empty() || emulated > 0)) {
    throw StoreError(store.path() + ": holds the emulated study '" + stored.name + "' (" +
                     std::to_string(emulated) +
                     " emulated runs); results measured elsewhere would be mixed into its "
                     "statistics. Import " +
                     originPath +
                     " into a database of its own, or pass --add-to-study to add them to it");
  }
  if (!addToStudy && stored.origin != origin) {
    throw StoreError(store.path() + ": holds results imported from " + stored.origin +
                     ", not from " + originPath +
                     "; import it into a database of its own, or pass --add-to-study to add "
                     "its runs to this study");
  }
  if (stored.origin.empty()) return;  // an emulated study keeps its own spec
  bool changed = false;
  for (const ImportedRun& r : runs) {
    const bool listed = std::any_of(stored.backends.begin(), stored.backends.end(),
                                    [&](const BackendEntry& e) { return e.name == r.run.backend; });
    if (!listed) {
      BackendEntry e;
      e.name = r.run.backend;
      e.policy = backends::presetPolicy("cpu-fp32");
      e.policyJson = "cpu-fp32";
      stored.backends.push_back(e);
      changed = true;
    }
    if (std::find(stored.seeds.begin(), stored.seeds.end(), r.run.seed) == stored.seeds.end()) {
      if (stored.seeds.size() >= std::size_t(input::kMaxSeeds))
        throw input::CsvError(originPath + ": more than the " + std::to_string(input::kMaxSeeds) +
                              " different seeds a study may have, with those of " + store.path());
      stored.seeds.push_back(r.run.seed);
      changed = true;
    }
  }
  if (changed) store.saveStudySpec(studySpecToJson(stored).dump());
}

}  // namespace

ImportSummary importRuns(ResultsStore& store, const std::string& originPath,
                         std::vector<ImportedRun>& runs, bool addToStudy) {
  if (runs.empty()) throw input::CsvError(originPath + ": no runs found");
  if (store.hasStudy()) joinStoredStudy(store, originPath, runs, addToStudy);
  if (!store.hasStudy()) {
    StudySpec spec;
    spec.origin = originOf(originPath);
    spec.name = std::filesystem::path(spec.origin).stem().string();
    std::vector<std::string> seen;
    for (auto& r : runs)
      if (std::find(seen.begin(), seen.end(), r.run.backend) == seen.end())
        seen.push_back(r.run.backend);
    // Imported backends are named by the source ("xla", "cuda"): record them as custom names of
    // the fp32 preset so the spec stays valid; the runs' source column says they were measured.
    for (auto& name : seen) {
      BackendEntry e;
      e.name = name;
      e.policy = backends::presetPolicy("cpu-fp32");
      e.policyJson = "cpu-fp32";
      spec.backends.push_back(e);
    }
    // The seeds the runs have (not 0..max: a seed of 10^12 must not list 10^12 seeds).
    std::set<std::uint64_t> seeds;
    for (auto& r : runs) seeds.insert(r.run.seed);
    if (seeds.size() > std::size_t(input::kMaxSeeds))
      throw input::CsvError(originPath + ": " + std::to_string(seeds.size()) +
                            " different seeds, more than the " + std::to_string(input::kMaxSeeds) +
                            " a study may have");
    spec.seeds.assign(seeds.begin(), seeds.end());
    int epochs = 0;
    for (auto& r : runs) epochs = std::max(epochs, r.run.epochsDone);
    spec.train.epochs = std::max(1, epochs);
    store.saveStudySpecIfNone(studySpecToJson(spec).dump());
  }
  std::vector<RunRecord> records;
  std::vector<std::vector<EpochRecord>> epochs;
  for (auto& r : runs) {
    records.push_back(r.run);
    epochs.push_back(r.epochs);
  }
  ImportSummary summary;
  summary.added = store.addRunsWithEpochs(records, epochs);
  summary.present = int(runs.size()) - summary.added;
  for (std::size_t i = 0; i < runs.size(); ++i) runs[i].run.id = records[i].id;
  return summary;
}

}  // namespace paritylab::study
