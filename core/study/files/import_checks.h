#pragma once
// Checks of imported values that need more than one cell (internal to results_import.cpp): the
// accuracy column read whole (fractions or percent), epochs given twice, the torchprime
// 'device' entry, and how values are quoted in messages.

#include <cmath>
#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/study/files/results_import.h"

namespace paritylab::study::import_checks {

// A value quoted in a message, cut to a readable length.
std::string shownValue(std::string_view value);
// "FILE:LINE: column N (NAME)"
std::string where(const std::string& file, int line, int col, const std::string& column);
// The value of the 'device' entry of a torchprime hyperparameters cell, a Python dict literal such
// as {'device': 'xla', 'lr': 0.01}; "" when there is none. A single linear scan (a
// backtracking regex overflowed the stack on a long cell).
std::string deviceOf(std::string_view text);

// The accuracy column, collected whole before it is interpreted: in the declared unit, or inferred
// (percent when every value lies in (1, 100], else fractions in [0, 1], with a note either way);
// a value outside the unit is refused with its row.
class AccuracyColumn {
 public:
  AccuracyColumn(std::string file, std::string name, int col, AccuracyUnit unit)
      : file_(std::move(file)), name_(std::move(name)), col_(col), unit_(unit) {}
  void add(std::size_t run, std::size_t epoch, int line, double value) {
    if (!std::isnan(value)) cells_.push_back({run, epoch, line, value});
  }
  // Checks every value, converts a percent column to fractions; returns a note for the summary
  // when the unit was inferred ("" when declared, or when the column is empty).
  std::string resolve(std::vector<ImportedRun>& runs) const;

 private:
  struct Cell {
    std::size_t run, epoch;
    int line;
    double value;
  };
  std::string file_, name_;
  int col_;
  AccuracyUnit unit_;
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
