#include "core/study/files/prediction_files.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>

#include "core/input/csv.h"
#include "core/input/input_limits.h"
#include "core/input/npy_file.h"
#include "core/input/number_input.h"
#include "core/study/files/import_checks.h"
#include "core/study/store/store_error.h"

namespace paritylab::study {
namespace {

// More examples than any test set a study reads (the datasets' own limit).
constexpr std::size_t kMaxExamples = std::size_t(input::kMaxDatasetImages);

// A cell that must be an integer in [low, high] (an index, a class): refused naming `place`.
std::int64_t wholeNumber(const std::string& text, const std::string& place, std::int64_t low,
                         std::int64_t high) {
  return input::requireInteger(input::trimmed(text), place, {low, high});
}

bool isNpy(const std::string& path) {
  return std::filesystem::path(path).extension() == ".npy";
}

// A CSV of `index` and the named columns: rows by index (every index 0..n-1 once). Memory is
// bounded by the rows the file holds, whatever index a row claims.
struct IndexedCsv {
  std::vector<std::vector<std::string>> byIndex;  // [n][columns asked]
  std::vector<std::vector<std::string>> places;   // where each cell was read
  std::vector<bool> present;                      // [columns asked]: the header has it
};

IndexedCsv readIndexedCsv(const std::string& path, const std::vector<std::string>& columns,
                          std::size_t required) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input::CsvError(path + ": cannot be opened");
  input::CsvReader reader(in, path);
  input::CsvRow row;
  if (!reader.next(row)) throw input::CsvError(path + ": empty (expected a header)");
  std::vector<int> at(columns.size() + 1, -1);
  for (std::size_t c = 0; c < row.fields.size(); ++c) {
    if (row.fields[c] == "index") at[0] = int(c);
    for (std::size_t k = 0; k < columns.size(); ++k)
      if (row.fields[c] == columns[k]) at[k + 1] = int(c);
  }
  std::string expected = "index";
  for (std::size_t k = 0; k < columns.size(); ++k)
    expected += (k < required ? "," : ",[") + columns[k] + (k < required ? "" : "]");
  for (std::size_t k = 0; k <= required; ++k)
    if (at[k] < 0)
      throw input::CsvError(path + ":1: no column '" + (k == 0 ? "index" : columns[k - 1]) +
                            "' (expected the header " + expected + ")");
  struct Row {
    int line;
    std::vector<std::string> cells, places;
  };
  std::map<std::int64_t, Row> rows;
  const int widest = *std::max_element(at.begin(), at.end());
  while (reader.next(row)) {
    if (row.fields.size() == 1 && row.fields[0].empty()) continue;  // a blank line
    if (int(row.fields.size()) <= widest)
      throw input::CsvError(path + ":" + std::to_string(row.line) + ": " +
                            std::to_string(row.fields.size()) + " fields, fewer than the header's");
    const std::int64_t index = wholeNumber(row.fields[std::size_t(at[0])],
                                           import_checks::where(path, row.line, at[0], "index"), 0,
                                           std::int64_t(kMaxExamples) - 1);
    Row r{row.line, {}, {}};
    for (std::size_t k = 0; k < columns.size(); ++k) {
      const int c = at[k + 1];
      r.cells.push_back(c >= 0 ? row.fields[std::size_t(c)] : "");
      r.places.push_back(c >= 0 ? import_checks::where(path, row.line, c, columns[k]) : "");
    }
    const auto [it, added] = rows.try_emplace(index, std::move(r));
    if (!added)
      throw input::CsvError(path + ":" + std::to_string(row.line) + ": index " +
                            std::to_string(index) + " given twice (also at line " +
                            std::to_string(it->second.line) + ")");
  }
  if (rows.empty()) throw input::CsvError(path + ": no examples (only a header)");
  IndexedCsv out;
  for (std::size_t k = 0; k < columns.size(); ++k) out.present.push_back(at[k + 1] >= 0);
  std::int64_t expectedIndex = 0;
  for (auto& [index, r] : rows) {
    if (index != expectedIndex)
      throw input::CsvError(path + ": index " + std::to_string(expectedIndex) +
                            " is missing (every index 0.." + std::to_string(rows.rbegin()->first) +
                            " once)");
    ++expectedIndex;
    out.byIndex.push_back(std::move(r.cells));
    out.places.push_back(std::move(r.places));
  }
  return out;
}

}  // namespace

ImportedTestSet readLabelsFile(const std::string& path) {
  ImportedTestSet set;
  std::int64_t highest = 0;
  if (isNpy(path)) {
    for (const std::int64_t v : input::readNpyIntegers(path, kMaxExamples)) {
      if (v < 0 || v >= input::kMaxClasses)
        throw input::InputError(path + ": label " + std::to_string(v) + " of example " +
                                std::to_string(set.labels.size()) + " is not a class in [0, " +
                                std::to_string(input::kMaxClasses) + ")");
      set.labels.push_back(std::int32_t(v));
      highest = std::max(highest, v);
    }
    if (set.labels.empty()) throw input::InputError(path + ": no examples");
  } else {
    const IndexedCsv csv = readIndexedCsv(path, {"label", "class_name"}, 1);
    std::vector<std::string> names;
    for (std::size_t i = 0; i < csv.byIndex.size(); ++i) {
      const std::int64_t v =
          wholeNumber(csv.byIndex[i][0], csv.places[i][0], 0, input::kMaxClasses - 1);
      set.labels.push_back(std::int32_t(v));
      highest = std::max(highest, v);
      if (!csv.present[1]) continue;
      if (names.size() <= std::size_t(v)) names.resize(std::size_t(v) + 1);
      const std::string& name = csv.byIndex[i][1];
      if (!names[std::size_t(v)].empty() && names[std::size_t(v)] != name)
        throw input::CsvError(csv.places[i][1] + ": class " + std::to_string(v) + " is named '" +
                              name.substr(0, 64) + "' here and '" + names[std::size_t(v)] +
                              "' before");
      names[std::size_t(v)] = name;
    }
    set.classNames = names;
  }
  set.classNames.resize(std::size_t(highest) + 1);
  for (std::size_t c = 0; c < set.classNames.size(); ++c)
    if (set.classNames[c].empty()) set.classNames[c] = std::to_string(c);
  return set;
}

nn::TestPredictions readPredictionsFile(const std::string& path, const ImportedTestSet& testSet) {
  const std::size_t n = testSet.labels.size();
  const auto classes = std::int64_t(testSet.classNames.size());
  nn::TestPredictions p;
  const auto checkCount = [&](std::size_t count) {
    if (count != n)
      throw input::InputError(path + ": " + std::to_string(count) + " examples, the labels have " +
                              std::to_string(n));
  };
  if (isNpy(path)) {
    const std::vector<std::int64_t> values = input::readNpyIntegers(path, kMaxExamples);
    checkCount(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (values[i] < 0 || values[i] >= classes)
        throw input::InputError(path + ": the prediction " + std::to_string(values[i]) +
                                " of example " + std::to_string(i) + " is not a class in [0, " +
                                std::to_string(classes) + ")");
      p.predicted.push_back(std::int32_t(values[i]));
    }
    return p;
  }
  const IndexedCsv csv = readIndexedCsv(path, {"predicted", "true_class_probability"}, 1);
  checkCount(csv.byIndex.size());
  for (std::size_t i = 0; i < csv.byIndex.size(); ++i) {
    p.predicted.push_back(
        std::int32_t(wholeNumber(csv.byIndex[i][0], csv.places[i][0], 0, classes - 1)));
    if (!csv.present[1]) continue;
    const std::optional<double> parsed = input::parseDecimal(input::trimmed(csv.byIndex[i][1]));
    const double probability = parsed.value_or(std::numeric_limits<double>::quiet_NaN());
    if (!(probability >= 0.0 && probability <= 1.0))
      throw input::CsvError(csv.places[i][1] + ": " + csv.byIndex[i][1].substr(0, 32) +
                            " is not a probability in [0, 1]");
    p.trueClassProbability.push_back(float(probability));
  }
  return p;
}

std::string predictionsPathOf(const std::string& pattern, const RunRecord& run) {
  std::string path = pattern;
  for (const auto& [key, value] :
       {std::pair<std::string, std::string>{"{backend}", run.backend},
        std::pair<std::string, std::string>{"{seed}", std::to_string(run.seed)}}) {
    const std::size_t at = path.find(key);
    if (at == std::string::npos) continue;
    if (path.find(key, at + 1) != std::string::npos)
      throw input::InputError("--predictions '" + pattern + "': " + key + " appears twice");
    path.replace(at, key.size(), value);
  }
  return path;
}

RunsPredictions readRunsPredictions(const std::string& pattern, const std::string& labelsPath,
                                    const std::vector<ImportedRun>& runs) {
  if (pattern.find("{backend}") == std::string::npos || pattern.find("{seed}") == std::string::npos)
    throw input::InputError("--predictions '" + pattern +
                            "': name each run's file by its {backend} and {seed} (e.g. "
                            "'preds/{backend}/seed{seed}.csv')");
  RunsPredictions out;
  out.testSet = readLabelsFile(labelsPath);
  std::size_t found = 0, missing = 0;
  for (const ImportedRun& r : runs) {
    const std::string path = predictionsPathOf(pattern, r.run);
    std::optional<nn::TestPredictions> p;
    if (r.run.status == RunState::Diverged) {
      if (std::filesystem::exists(path))
        out.notes.push_back(path + ": not attached (run " + r.run.message +
                            " diverged: it has no final model)");
    } else if (std::filesystem::exists(path)) {
      p = readPredictionsFile(path, out.testSet);
      ++found;
      std::size_t correct = 0;
      for (std::size_t i = 0; i < p->predicted.size(); ++i)
        correct += p->predicted[i] == out.testSet.labels[i] ? 1 : 0;
      const double accuracy = double(correct) / double(p->predicted.size());
      const double logged = r.run.finalAccuracy;
      if (!std::isnan(logged) && std::abs(accuracy - logged) > 0.5 / double(p->predicted.size()))
        out.notes.push_back(path + ": its predictions are " + std::to_string(100.0 * accuracy) +
                            "% correct, the run's log says " + std::to_string(100.0 * logged) +
                            "% (another model or test set, or a rounded log?)");
    } else {
      ++missing;
    }
    out.perRun.push_back(std::move(p));
  }
  if (found == 0)
    throw input::InputError(
        "--predictions '" + pattern + "': no file for any of the " + std::to_string(runs.size()) +
        " runs (e.g. " + (runs.empty() ? pattern : predictionsPathOf(pattern, runs[0].run)) + ")");
  if (missing > 0)
    out.notes.push_back(std::to_string(missing) +
                        " run(s) without a predictions file: imported "
                        "without predictions (their final accuracies count in the tests)");
  return out;
}

void requireSameTestSet(const ResultsStore& store, const ImportedTestSet& testSet) {
  const std::optional<ResultsStore::TestSet> held = store.loadTestSet();
  if (held && held->labels != testSet.labels)
    throw StoreError(store.path() + " holds another test set (" +
                     std::to_string(held->labels.size()) +
                     " examples, other labels) than the labels file's (" +
                     std::to_string(testSet.labels.size()) +
                     " examples): its runs' predictions are of other examples");
}

void storeRunsPredictions(ResultsStore& store, const RunsPredictions& predictions,
                          const std::vector<ImportedRun>& runs) {
  store.saveTestSet(predictions.testSet.labels, predictions.testSet.classNames);
  // A run imported before (importRuns left its id 0) gets the predictions it does not have yet:
  // the same run is the same backend and source identity, as importRuns matches it.
  std::map<std::pair<std::string, std::string>, std::int64_t> stored;
  for (const RunRecord& r : store.loadRuns())
    if (r.source == "imported") stored[{r.backend, r.message}] = r.id;
  const std::map<std::int64_t, nn::TestPredictions> held = store.loadPredictions();
  for (std::size_t i = 0; i < runs.size() && i < predictions.perRun.size(); ++i) {
    if (!predictions.perRun[i]) continue;
    std::int64_t id = runs[i].run.id;
    if (id == 0) {
      const auto it = stored.find({runs[i].run.backend, runs[i].run.message});
      if (it == stored.end() || held.count(it->second) > 0) continue;
      id = it->second;
    }
    store.addPredictions(id, *predictions.perRun[i]);
  }
}

}  // namespace paritylab::study
