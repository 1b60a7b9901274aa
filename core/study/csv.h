#pragma once
// RFC 4180 CSV: a reader that reports line/column of errors and a writer that quotes properly.

#include <istream>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace paritylab::study {

class CsvError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct CsvRow {
  std::vector<std::string> fields;
  int line = 0;  // 1-based line where the record starts
};

// Reads records; quoted fields may contain commas, CRLF/LF and doubled quotes.
class CsvReader {
 public:
  CsvReader(std::istream& in, std::string fileName) : in_(in), file_(std::move(fileName)) {}
  bool next(CsvRow& row);  // false at end of input; throws CsvError "file:line:col: ..."
  const std::string& fileName() const { return file_; }

 private:
  std::istream& in_;
  std::string file_;
  int line_ = 1;
};

// Quotes a field when it contains a comma, quote, CR or LF (quotes doubled).
std::string csvQuote(const std::string& field);

class CsvWriter {
 public:
  explicit CsvWriter(std::ostream& out) : out_(out) {}
  void writeRow(const std::vector<std::string>& fields);  // ends with CRLF (RFC 4180)

 private:
  std::ostream& out_;
};

// Shortest round-trip decimal text of a double ("" for NaN).
std::string csvNumber(double v);

}  // namespace paritylab::study
