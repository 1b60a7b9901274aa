#include "core/study/files/tracker_table.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>

#include "core/input/number_input.h"
#include "core/input/text_file.h"
#include "core/study/files/import_checks.h"
#include "core/study/files/tracked_runs.h"

namespace paritylab::study {
namespace {

void trim(std::string& field) {
  const auto first = field.find_first_not_of(" \t");
  const auto last = field.find_last_not_of(" \t");
  field = first == std::string::npos ? std::string() : field.substr(first, last - first + 1);
}

bool blank(const input::CsvRow& row) {
  return row.fields.size() == 1 && row.fields[0].empty();
}

std::ifstream openFile(const std::string& path, const std::string& shown) {
  if (std::filesystem::is_directory(path))
    throw input::CsvError(shown + ": is a directory, not a CSV");
  try {
    input::requireRegularFile(path, "CSV");
  } catch (const input::InputError& e) {
    throw input::CsvError(e.what());
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input::CsvError(shown + ": cannot open");
  return in;
}

}  // namespace

TrackerTable::TrackerTable(const std::string& path, std::string shown)
    : shown_(std::move(shown)), in_(openFile(path, shown_)), reader_(in_, shown_) {
  input::CsvRow row;
  if (!reader_.next(row)) throw input::CsvError(shown_ + ": empty file (no header line)");
  for (std::string& name : row.fields) trim(name);
  header_ = std::move(row.fields);
}

int TrackerTable::column(const std::string& name) const {
  const auto it = std::find(header_.begin(), header_.end(), name);
  return it == header_.end() ? -1 : int(it - header_.begin());
}

int TrackerTable::require(const std::string& name, const std::string& what) const {
  const int col = column(name);
  if (col >= 0) return col;
  std::string list;
  for (std::size_t i = 0; i < header_.size() && i < 20; ++i)
    list += (list.empty() ? "" : ", ") + import_checks::shownValue(header_[i]);
  if (header_.size() > 20) list += ", ... (" + std::to_string(header_.size()) + " columns)";
  throw input::CsvError(shown_ + ":1: no column '" + name + "' (" + what +
                        "; its columns: " + list + ")");
}

bool TrackerTable::next() {
  while (reader_.next(row_)) {
    if (blank(row_)) continue;
    for (std::string& field : row_.fields) trim(field);
    return true;
  }
  return false;
}

const std::string& TrackerTable::cell(int col) const {
  static const std::string kEmpty;
  if (col < 0 || std::size_t(col) >= row_.fields.size()) return kEmpty;
  return row_.fields[std::size_t(col)];
}

std::optional<double> TrackerTable::number(int col) const {
  const std::string& s = cell(col);
  if (s.empty()) return std::nullopt;
  // from_chars reads nan, inf and infinity in any case; a leading '+' it does not.
  const char* begin = s.data() + (s.size() > 1 && s[0] == '+' ? 1 : 0);
  double v = 0;
  const auto r = std::from_chars(begin, s.data() + s.size(), v);
  if (r.ec == std::errc::result_out_of_range) refuse(col, "number out of range");
  if (r.ec != std::errc() || r.ptr != s.data() + s.size()) refuse(col, "not a number");
  return v;
}

std::string TrackerTable::where(int col) const {
  const std::string name =
      col >= 0 && std::size_t(col) < header_.size() ? header_[std::size_t(col)] : "";
  return import_checks::where(shown_, row_.line, col, name);
}

void TrackerTable::refuse(int col, const std::string& why) const {
  throw input::CsvError(where(col) + ": " + why + ": " + import_checks::shownValue(cell(col)));
}

std::vector<std::string> csvHeaderOf(const std::string& path) {
  return TrackerTable(path, path).header();
}

std::int64_t TrackerTable::wholeNumber(int col, double value, const std::string& what) const {
  if (!std::isfinite(value) || value != std::floor(value) || std::fabs(value) > 9e15)
    refuse(col, "not a whole " + what);
  return std::int64_t(value);
}

void logRowMetrics(const TrackerTable& table,
                   const std::vector<std::pair<std::string, int>>& metricColumns, int cIndex,
                   const std::string& indexName, int cSeconds, TrackedRun& run) {
  const auto index = table.number(cIndex);
  bool logged = false;
  for (const auto& [metric, col] : metricColumns) {
    const auto v = table.number(col);
    if (!v) continue;
    logged = true;
    if (!index) break;
    const std::int64_t at = table.wholeNumber(cIndex, *index, indexName);
    TrackedValue value{*v, table.where(col)};
    if (const auto s = table.number(cSeconds); s && std::isfinite(*s)) value.seconds = *s;
    run.log(metric, at, std::move(value));
  }
  if (logged && !index) ++run.withoutIndex;
}

}  // namespace paritylab::study
