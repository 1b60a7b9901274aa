#pragma once
// RFC 4180 CSV: a reader that reports line/column of errors and a writer that quotes properly.

#include <istream>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/input/error.h"

namespace paritylab::input {

class CsvError : public ErrorOf<std::runtime_error> {
 public:
  using ErrorOf::ErrorOf;
};

struct CsvRow {
  std::vector<std::string> fields;
  int line = 0;  // 1-based line where the record starts
};

// Limits a results CSV never meets; a larger cell or record is refused with file:line.
inline constexpr std::size_t kMaxCsvFieldBytes = 64 * 1024;
inline constexpr std::size_t kMaxCsvFields = 4096;

// Reads records; quoted fields may contain commas, CRLF/LF and doubled quotes. A UTF-8 byte order
// mark at the start is skipped. Throws CsvError beyond kMaxCsvFieldBytes / kMaxCsvFields.
class CsvReader {
 public:
  CsvReader(std::istream& in, std::string fileName) : in_(in), file_(std::move(fileName)) {}
  bool next(CsvRow& row);  // false at end of input; throws CsvError "file:line:col: ..."
  const std::string& fileName() const { return file_; }

 private:
  std::istream& in_;
  std::string file_;
  int line_ = 1;
  bool atStart_ = true;
};

// Quotes a field when it contains a comma, quote, CR or LF (quotes doubled).
std::string csvQuote(const std::string& field);

// CSV formula injection (OWASP): a text cell starting with = + - @ TAB or CR would run as a formula
// in a spreadsheet ("=HYPERLINK(...)", "=cmd|' /C calc'!A0"), so it gets a leading single quote.
// Cells that are whole numbers ("-0.25", "-1e-05", "-inf") are returned unchanged.
std::string csvNeutralize(const std::string& field);

// Every CSV the project writes goes through this writer: fields are neutralized, then quoted.
class CsvWriter {
 public:
  explicit CsvWriter(std::ostream& out) : out_(out) {}
  void writeRow(const std::vector<std::string>& fields);  // ends with CRLF (RFC 4180)

 private:
  std::ostream& out_;
};

// Shortest round-trip decimal text of a double ("" for NaN).
std::string csvNumber(double v);

}  // namespace paritylab::input
