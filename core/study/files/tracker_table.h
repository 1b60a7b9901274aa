#pragma once
// One tracker CSV read row by row through the project's RFC 4180 reader (core/input/csv.h): its
// header (names trimmed of spaces), its cells, numbers as the trackers write them, and each
// cell named in messages as "FILE:LINE: column N (NAME)". Internal to the tracker importers.
//
// A number cell is a decimal; "nan", "inf", "-inf" and "infinity" (any case, as Python writes a
// float) are read as NaN and infinities: a diverged run is a result, its reader decides. An empty
// cell is a value not logged. Anything else is refused as input::CsvError naming the cell.
// Memory stays bounded whatever the file says: a field is at most input::kMaxCsvFieldBytes, a
// row at most input::kMaxCsvFields fields (the reader refuses more), and a row is read at a time.

#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/input/csv.h"

namespace paritylab::study {

class TrackerTable {
 public:
  // Opens `path` (a regular file) and reads its header; `shown` names the file in messages.
  // Throws input::CsvError: not a file, cannot be opened, empty (no header line).
  TrackerTable(const std::string& path, std::string shown);
  TrackerTable(const TrackerTable&) = delete;
  TrackerTable& operator=(const TrackerTable&) = delete;

  const std::vector<std::string>& header() const { return header_; }
  const std::string& file() const { return shown_; }
  int column(const std::string& name) const;  // its index, -1 when the header has none
  // The index of a column the format needs; refused naming the file, the column, `what` the
  // format needs ("a W&B run table export has Name and State") and the columns it has.
  int require(const std::string& name, const std::string& what) const;

  // Moves to the next row that is not blank; false at the end of the file.
  bool next();
  int line() const { return row_.line; }
  // The cell of column `col` in the current row, trimmed; "" when the row is shorter or col < 0.
  const std::string& cell(int col) const;
  // The cell as a number: nullopt when empty; NaN or an infinity as written; else refused.
  std::optional<double> number(int col) const;
  // A number that must be whole (a logged step or epoch): refused as "not a whole `what`".
  std::int64_t wholeNumber(int col, double value, const std::string& what) const;
  // "FILE:LINE: column N (NAME)" of the current row.
  std::string where(int col) const;
  [[noreturn]] void refuse(int col, const std::string& why) const;

 private:
  std::string shown_;
  std::ifstream in_;
  input::CsvReader reader_;
  std::vector<std::string> header_;
  input::CsvRow row_;
};

// The header of a CSV file (trimmed names), for telling its format. Throws input::CsvError.
std::vector<std::string> csvHeaderOf(const std::string& path);

struct TrackedRun;  // tracked_runs.h

// The current row's values of `metricColumns` (metric, column) logged into `run` at the row's
// index (column cIndex, a whole `indexName`), with the seconds of column cSeconds when it has
// any (-1: none). A row that logs a value but has no index is counted in run.withoutIndex.
void logRowMetrics(const TrackerTable& table,
                   const std::vector<std::pair<std::string, int>>& metricColumns, int cIndex,
                   const std::string& indexName, int cSeconds, TrackedRun& run);

}  // namespace paritylab::study
