#pragma once
// Checks of imported values that need more than one cell (internal to the importers): the
// accuracy values read whole (fractions or percent), epochs given twice, the torchprime
// 'device' entry, and how values are quoted in messages.

#include <cmath>
#include <cstddef>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/study/files/results_import.h"

namespace paritylab::study::import_checks {

// A value quoted in a message, cut to a readable length.
std::string shownValue(std::string_view value);
// Names quoted in a message, the first `listed` of them ("'val/acc', 'loss', ... (40 tags)", the
// count named by `noun`); "none" when there are none.
std::string shownList(const std::set<std::string>& names, std::size_t listed, const char* noun);
// "FILE:LINE: column N (NAME)"
std::string where(const std::string& file, int line, int col, const std::string& column);
// The value of the 'device' entry of a torchprime hyperparameters cell, a Python dict literal such
// as {'device': 'xla', 'lr': 0.01}; "" when there is none. A single linear scan (a
// backtracking regex overflowed the stack on a long cell).
std::string deviceOf(std::string_view text);

// The accuracy values of an import, collected whole before they are interpreted: in the declared
// unit, or inferred (percent when every value lies in (1, 100], else fractions in [0, 1], with a
// note either way); a value outside the unit is refused naming its cell. One rule for every
// source: a CSV's column, a TensorBoard tag.
class AccuracyColumn {
 public:
  // Names a cell by the key it was added with ("FILE:LINE: column N (NAME)").
  using Place = std::function<std::string(int key)>;
  // Throws the source's error with the message given.
  using Refuse = std::function<void(const std::string& message)>;

  // A CSV column: a cell's key is its line; refused as input::CsvError.
  AccuracyColumn(const std::string& file, const std::string& name, int col, AccuracyUnit unit);
  // Any source: `what` names the values in the note ("tag 'val/acc'").
  AccuracyColumn(std::string what, AccuracyUnit unit, Place place, Refuse refuse)
      : what_(std::move(what)), unit_(unit), place_(std::move(place)), refuse_(std::move(refuse)) {}
  void add(std::size_t run, std::size_t epoch, int key, double value) {
    if (!std::isnan(value)) cells_.push_back({run, epoch, key, value});
  }
  // Checks every value, converts percents to fractions; returns a note for the summary when the
  // unit was inferred ("" when declared, or when there are no values).
  std::string resolve(std::vector<ImportedRun>& runs) const;

 private:
  struct Cell {
    std::size_t run, epoch;
    int key;
    double value;
  };
  std::string what_;
  AccuracyUnit unit_;
  Place place_;
  Refuse refuse_;
  std::vector<Cell> cells_;
};

// Epoch numbers seen per run, to refuse a duplicate with both lines named.
class EpochLines {
 public:
  void add(const std::string& file, std::size_t run, const std::string& runName, int epoch,
           int line);

 private:
  std::vector<std::map<int, int>> lines_;
};

}  // namespace paritylab::study::import_checks
