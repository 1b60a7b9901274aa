#include "core/study/results_import.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <regex>
#include <set>

#include "core/input/input_limits.h"
#include "core/input/number_input.h"
#include "core/study/csv.h"

namespace paritylab::study {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Column position of each header name; the error names the file and the missing column.
struct Header {
  std::vector<std::string> names;
  std::string file;
  int index(const std::string& name, bool required = true) const {
    auto it = std::find(names.begin(), names.end(), name);
    if (it != names.end()) return int(it - names.begin());
    if (!required) return -1;
    std::string list;
    for (auto& n : names) list += (list.empty() ? "" : ", ") + n;
    throw CsvError(file + ":1: no column '" + name + "' (columns: " + list + ")");
  }
};

// 1-based column (characters) of field i in a parsed row is not kept; report the field number.
[[noreturn]] void badField(const std::string& file, const CsvRow& row, int col,
                           const std::string& column, const std::string& what) {
  throw CsvError(file + ":" + std::to_string(row.line) + ": column " + std::to_string(col + 1) +
                 " (" + column + "): " + what + ": '" + row.fields[col] + "'");
}

double numberField(const std::string& file, const CsvRow& row, int col, const std::string& name,
                   bool allowEmpty = true) {
  if (col < 0) return kNaN;
  if (col >= int(row.fields.size()))
    throw CsvError(file + ":" + std::to_string(row.line) + ": only " +
                   std::to_string(row.fields.size()) + " fields, '" + name + "' is column " +
                   std::to_string(col + 1));
  const std::string& s = row.fields[col];
  if (s.empty() && allowEmpty) return kNaN;
  double v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size())
    badField(file, row, col, name, "not a number");
  return v;
}

std::string textField(const std::string& file, const CsvRow& row, int col,
                      const std::string& name) {
  if (col >= int(row.fields.size()))
    throw CsvError(file + ":" + std::to_string(row.line) + ": missing field '" + name + "'");
  return row.fields[col];
}

std::ifstream openCsv(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CsvError(path + ": cannot open");
  return in;
}

Header readHeader(CsvReader& reader, const std::string& path) {
  CsvRow row;
  if (!reader.next(row)) throw CsvError(path + ": empty file (no header line)");
  return {row.fields, path};
}

void finishRun(ImportedRun& r) {
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

// Per backend, seeds 0..n-1 in order of first appearance.
void assignSeeds(std::vector<ImportedRun>& runs) {
  std::map<std::string, std::uint64_t> next;
  for (auto& r : runs) r.run.seed = next[r.run.backend]++;
}

}  // namespace

std::vector<ImportedRun> readTorchprimeCsv(const std::string& path) {
  std::ifstream in = openCsv(path);
  CsvReader reader(in, path);
  Header h = readHeader(reader, path);
  int cRun = h.index("run_name"), cDate = h.index("datetime"), cHyper = h.index("hyperparameters");
  int cEpoch = h.index("epoch"), cTrain = h.index("train_loss"), cTest = h.index("test_loss");
  int cAcc = h.index("accuracy_top1");
  static const std::regex device(R"(['"]device['"]\s*:\s*['"]([^'"]+)['"])");
  std::vector<ImportedRun> runs;
  std::map<std::string, std::size_t> byKey;
  CsvRow row;
  while (reader.next(row)) {
    if (row.fields.size() == 1 && row.fields[0].empty()) continue;  // blank line
    std::string key =
        textField(path, row, cRun, "run_name") + "@" + textField(path, row, cDate, "datetime");
    std::string hyper = textField(path, row, cHyper, "hyperparameters");
    std::smatch m;
    if (!std::regex_search(hyper, m, device))
      badField(path, row, cHyper, "hyperparameters", "no 'device' entry");
    auto [it, added] = byKey.try_emplace(key, runs.size());
    if (added) {
      runs.emplace_back();
      runs.back().run.backend = m[1];
      runs.back().run.message = key;
    } else if (runs[it->second].run.backend != m[1]) {
      badField(path, row, cHyper, "hyperparameters", "device differs from earlier rows of " + key);
    }
    double epoch = numberField(path, row, cEpoch, "epoch", false);
    if (epoch < 1 || epoch != std::floor(epoch))
      badField(path, row, cEpoch, "epoch", "not an epoch number >= 1");
    runs[it->second].epochs.push_back({int(epoch), numberField(path, row, cTrain, "train_loss"),
                                       numberField(path, row, cTest, "test_loss"),
                                       numberField(path, row, cAcc, "accuracy_top1"), kNaN});
  }
  for (auto& r : runs) finishRun(r);
  assignSeeds(runs);
  return runs;
}

std::vector<ImportedRun> readGenericCsv(const std::string& path, const CsvImportOptions& o) {
  std::ifstream in = openCsv(path);
  CsvReader reader(in, path);
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
  std::vector<ImportedRun> runs;
  std::map<std::string, std::size_t> byKey;
  CsvRow row;
  while (reader.next(row)) {
    if (row.fields.size() == 1 && row.fields[0].empty()) continue;
    std::string backend = textField(path, row, cBackend, o.backendColumn);
    if (backend.empty()) badField(path, row, cBackend, o.backendColumn, "empty backend");
    double acc = numberField(path, row, cAcc, h.names[cAcc]);
    if (acc > 1.0 && acc <= 100.0) acc /= 100.0;  // percentages
    EpochRecord e{1, numberField(path, row, cTrain, o.trainLossColumn),
                  numberField(path, row, cTest, o.testLossColumn), acc, kNaN};
    if (wide) {
      ImportedRun r;
      r.run.backend = backend;
      r.epochs.push_back(e);
      finishRun(r);
      r.run.epochsDone = 0;  // a final value only
      r.run.message = "row " + std::to_string(row.line);
      if (cSeed >= 0) {
        textField(path, row, cSeed, o.seedColumn);  // present
        try {  // issue 12.6: 1e300 or 18446744073709551615 must not wrap (one number parser)
          r.run.seed = std::uint64_t(input::requireInteger(row.fields[std::size_t(cSeed)], "seed",
                                                           {0, input::kMaxSeedValue}));
        } catch (const input::InputError&) {
          badField(path, row, cSeed, o.seedColumn,
                   "not a seed (" + input::describe(input::IntegerLimits{0, input::kMaxSeedValue}) +
                       ")");
        }
      }
      r.epochs.clear();
      runs.push_back(std::move(r));
      continue;
    }
    double epoch = numberField(path, row, cEpoch, o.epochColumn, false);
    if (epoch < 1 || epoch != std::floor(epoch))
      badField(path, row, cEpoch, o.epochColumn, "not an epoch number >= 1");
    e.epoch = int(epoch);
    std::string key = textField(path, row, cRun, o.runColumn);
    auto [it, added] = byKey.try_emplace(key, runs.size());
    if (added) {
      runs.emplace_back();
      runs.back().run.backend = backend;
      runs.back().run.message = key;
    }
    runs[it->second].epochs.push_back(e);
  }
  if (!wide) {
    for (auto& r : runs) finishRun(r);
    assignSeeds(runs);
  } else if (cSeed < 0) {
    assignSeeds(runs);
  }
  return runs;
}

std::vector<ImportedRun> readResultsCsv(const std::string& path, const CsvImportOptions& options) {
  std::ifstream in = openCsv(path);
  CsvReader reader(in, path);
  Header h = readHeader(reader, path);
  if (h.index("hyperparameters", false) >= 0 && h.index("accuracy_top1", false) >= 0)
    return readTorchprimeCsv(path);
  return readGenericCsv(path, options);
}

void importRuns(ResultsStore& store, const std::string& originPath,
                std::vector<ImportedRun>& runs) {
  if (runs.empty()) throw CsvError(originPath + ": no runs found");
  if (!store.hasStudy()) {
    StudySpec spec;
    spec.name = std::filesystem::path(originPath).stem().string();
    spec.origin = std::filesystem::absolute(originPath).string();
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
      throw CsvError(originPath + ": " + std::to_string(seeds.size()) +
                     " different seeds, more than the " + std::to_string(input::kMaxSeeds) +
                     " a study may have");
    spec.seeds.assign(seeds.begin(), seeds.end());
    int epochs = 0;
    for (auto& r : runs) epochs = std::max(epochs, r.run.epochsDone);
    spec.train.epochs = std::max(1, epochs);
    store.saveStudySpec(studySpecToJson(spec).dump());
  }
  std::vector<RunRecord> records;
  std::vector<std::vector<EpochRecord>> epochs;
  for (auto& r : runs) {
    records.push_back(r.run);
    epochs.push_back(r.epochs);
  }
  store.addRunsWithEpochs(records, epochs);
  for (std::size_t i = 0; i < runs.size(); ++i) runs[i].run.id = records[i].id;
}

}  // namespace paritylab::study
