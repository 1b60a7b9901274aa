#include "core/study/import_checks.h"

#include <algorithm>
#include <cmath>

#include "core/study/csv.h"

namespace paritylab::study::import_checks {

// A value quoted in a message, cut to a readable length.
std::string shownValue(std::string_view value) {
  constexpr std::size_t kShown = 60;
  std::string shown = "'";
  for (const char c : value.substr(0, kShown))  // control characters (an ANSI escape) as '?'
    shown += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
  if (value.size() <= kShown) return shown + "'";
  shown += "...' (";
  shown += std::to_string(value.size());
  return shown + " characters)";
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

std::string AccuracyColumn::resolve(std::vector<ImportedRun>& runs) const {
  const auto fraction = [](double v) { return v >= 0.0 && v <= 1.0; };
  const auto percent = [](double v) { return v > 1.0 && v <= 100.0; };
  const bool anyAboveOne =
      std::any_of(cells_.begin(), cells_.end(), [](const Cell& c) { return c.value > 1.0; });
  const bool allPercent =
      !cells_.empty() &&
      std::all_of(cells_.begin(), cells_.end(), [&](const Cell& c) { return percent(c.value); });
  if (anyAboveOne && allPercent) {
    for (const Cell& c : cells_) runs[c.run].epochs[c.epoch].testAccuracy = c.value / 100.0;
    return "column '" + name_ + "' read as percent (all " + std::to_string(cells_.size()) +
           " values within (1, 100])";
  }
  for (const Cell& c : cells_) {  // neither a fraction nor a percent
    if (c.value < 0.0 || c.value > 100.0) {
      throw CsvError(where(file_, c.line, col_, name_) + ": accuracy " + csvNumber(c.value) +
                     " outside [0, 1]");
    }
  }
  for (const Cell& c : cells_) {  // percents among fractions
    if (!fraction(c.value)) {
      throw CsvError(where(file_, c.line, col_, name_) + ": accuracy " + csvNumber(c.value) +
                     " outside [0, 1] (a percent column needs every value within (1, 100]; "
                     "this one mixes fractions and percents)");
    }
  }
  return "";
}

void EpochLines::add(const std::string& file, std::size_t run, const std::string& runName,
                     int epoch, int line) {
  if (run >= lines_.size()) lines_.resize(run + 1);
  auto [it, added] = lines_[run].try_emplace(epoch, line);
  if (!added) {
    throw CsvError(file + ":" + std::to_string(line) + ": run " + shownValue(runName) +
                   " has epoch " + std::to_string(epoch) + " twice (first at line " +
                   std::to_string(it->second) + ")");
  }
}

}  // namespace paritylab::study::import_checks
