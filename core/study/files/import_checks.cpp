#include "core/study/files/import_checks.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/input/csv.h"
#include "core/input/number_input.h"

namespace paritylab::study::import_checks {

// A value quoted in a message, cut to a readable length.
std::string shownValue(std::string_view value) {
  constexpr std::size_t kShown = 60;
  const std::string shown = "'" + input::excerpt(value, kShown) + "'";
  if (value.size() <= kShown) return shown;
  return shown + " (" + std::to_string(value.size()) + " characters)";
}

std::string shownList(const std::set<std::string>& names, std::size_t listed, const char* noun) {
  std::string list;
  std::size_t shown = 0;
  for (const std::string& name : names) {
    if (shown++ == listed) {
      list += ", ... (" + std::to_string(names.size()) + " " + noun + ")";
      break;
    }
    list += (list.empty() ? "" : ", ") + shownValue(name);
  }
  return list.empty() ? "none" : list;
}

std::string where(const std::string& file, int line, int col, const std::string& column) {
  return file + ":" + std::to_string(line) + ": column " + std::to_string(col + 1) + " (" + column +
         ")";
}

// The value of the 'device' entry of a torchprime hyperparameters cell, a Python dict literal such
// as {'device': 'xla', 'lr': 0.01}; "" when there is none. A single linear scan (a
// backtracking regex overflowed the stack on a long cell).
std::string deviceOf(std::string_view text) {
  constexpr std::string_view kKey = "device";
  const auto isSpace = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  for (std::size_t at = text.find(kKey); at != std::string_view::npos;
       at = text.find(kKey, at + 1)) {
    const std::size_t end = at + kKey.size();
    if (at == 0 || end >= text.size()) continue;
    const char quote = text[at - 1];
    if ((quote != '\'' && quote != '"') || text[end] != quote) continue;
    std::size_t i = end + 1;
    while (i < text.size() && isSpace(text[i])) ++i;
    if (i >= text.size() || text[i] != ':') continue;
    ++i;
    while (i < text.size() && isSpace(text[i])) ++i;
    if (i >= text.size() || (text[i] != '\'' && text[i] != '"')) continue;
    const std::size_t valueStart = i + 1;
    const std::size_t valueEnd = text.find_first_of("'\"", valueStart);
    if (valueEnd == std::string_view::npos || valueEnd == valueStart) continue;
    return std::string(text.substr(valueStart, valueEnd - valueStart));
  }
  return {};
}

AccuracyColumn::AccuracyColumn(const std::string& file, const std::string& name, int col,
                               AccuracyUnit unit)
    : AccuracyColumn(
          "column '" + name + "'", unit,
          [file, name, col](int line) { return where(file, line, col, name); },
          [](const std::string& message) { throw input::CsvError(message); }) {}

std::string AccuracyColumn::resolve(std::vector<ImportedRun>& runs) const {
  const auto outside = [&](const Cell& c, const std::string& why) {
    refuse_(place_(c.key) + ": accuracy " + input::csvNumber(c.value) + " " + why);
    throw std::logic_error("AccuracyColumn: refuse returned");  // it throws the source's error
  };
  if (unit_ != AccuracyUnit::Inferred) {
    const bool percent = unit_ == AccuracyUnit::Percent;
    for (const Cell& c : cells_) {
      if (c.value < 0.0 || c.value > (percent ? 100.0 : 1.0))
        outside(c, percent ? "outside [0, 100] (the unit was declared percent)"
                           : "outside [0, 1] (the unit was declared fraction)");
      if (percent) runs[c.run].epochs[c.epoch].testAccuracy = c.value / 100.0;
    }
    return "";
  }
  if (cells_.empty()) return "";
  const std::string count =
      std::to_string(cells_.size()) + (cells_.size() == 1 ? " value, " : " values, all ");
  const bool allPercent = std::all_of(cells_.begin(), cells_.end(), [](const Cell& c) {
    return c.value > 1.0 && c.value <= 100.0;
  });
  if (allPercent) {
    for (const Cell& c : cells_) runs[c.run].epochs[c.epoch].testAccuracy = c.value / 100.0;
    return what_ + " read as percent (" + count +
           "within (1, 100]; --accuracy-unit fraction if they are fractions)";
  }
  for (const Cell& c : cells_)  // neither a fraction nor a percent
    if (c.value < 0.0 || c.value > 100.0) outside(c, "outside [0, 1]");
  for (const Cell& c : cells_)  // percents among fractions
    if (c.value > 1.0)
      outside(c,
              "outside [0, 1] (a " + what_.substr(0, what_.find(' ')) +
                  " read as percent needs every value within (1, 100]; this "
                  "one mixes fractions and percents, or is in percent with a value of 1% or less: "
                  "declare it: import --accuracy-unit percent)");
  return what_ + " read as fractions (" + count +
         "within [0, 1]; if they are percents, import with --accuracy-unit percent)";
}

void EpochLines::add(const std::string& file, std::size_t run, const std::string& runName,
                     int epoch, int line) {
  if (run >= lines_.size()) lines_.resize(run + 1);
  auto [it, added] = lines_[run].try_emplace(epoch, line);
  if (!added) {
    throw input::CsvError(file + ":" + std::to_string(line) + ": run " + shownValue(runName) +
                          " has epoch " + std::to_string(epoch) + " twice (first at line " +
                          std::to_string(it->second) + ")");
  }
}

}  // namespace paritylab::study::import_checks
