#include "core/input/csv.h"

#include <charconv>
#include <cmath>
#include <string_view>

namespace paritylab::input {

bool CsvReader::next(CsvRow& row) {
  row.fields.clear();
  row.line = line_;
  int c = in_.get();
  std::string field;
  if (atStart_) {  // a UTF-8 byte order mark (spreadsheets write one) is not part of the header
    atStart_ = false;
    if (c == 0xEF && in_.peek() == 0xBB) {
      in_.get();
      if (in_.peek() == 0xBF) {
        in_.get();
        c = in_.get();
      } else {
        field = "\xEF\xBB";
        c = in_.get();
      }
    }
  }
  if (c == EOF && field.empty()) return false;
  int col = 1;
  bool quoted = false, afterQuote = false, fieldStart = true;
  int quoteLine = line_, quoteCol = 1;
  const auto checkSize = [&] {
    if (field.size() > kMaxCsvFieldBytes)
      throw CsvError(file_ + ":" + std::to_string(row.line) + ": field " +
                     std::to_string(row.fields.size() + 1) + " is longer than " +
                     std::to_string(kMaxCsvFieldBytes) + " bytes (not a results file?)");
  };
  for (;; c = in_.get(), ++col) {
    if (quoted) {
      if (c == EOF)
        throw CsvError(file_ + ":" + std::to_string(quoteLine) + ":" + std::to_string(quoteCol) +
                       ": unterminated quoted field");
      if (c == '"') {
        if (in_.peek() == '"') {
          field += '"';
          in_.get();
          ++col;
        } else {
          quoted = false;
          afterQuote = true;
        }
      } else {
        if (c == '\n') ++line_, col = 0;
        field += char(c);
        checkSize();
      }
      continue;
    }
    if (c == EOF || c == '\n' || c == '\r') {
      if (c == '\r' && in_.peek() == '\n') in_.get();
      if (c != EOF) ++line_;
      row.fields.push_back(std::move(field));
      return true;
    }
    if (c == ',') {
      if (row.fields.size() + 1 >= kMaxCsvFields)
        throw CsvError(file_ + ":" + std::to_string(row.line) + ": more than " +
                       std::to_string(kMaxCsvFields) +
                       " fields in one record (not a results file?)");
      row.fields.push_back(std::move(field));
      field.clear();
      afterQuote = false;
      fieldStart = true;
      continue;
    }
    if (afterQuote)
      throw CsvError(file_ + ":" + std::to_string(line_) + ":" + std::to_string(col) +
                     ": unexpected character after a closing quote");
    if (c == '"' && fieldStart) {
      quoted = true;
      quoteLine = line_;
      quoteCol = col;
      fieldStart = false;
      continue;
    }
    if (c == '"')
      throw CsvError(file_ + ":" + std::to_string(line_) + ":" + std::to_string(col) +
                     ": quote inside an unquoted field");
    fieldStart = false;
    field += char(c);
    checkSize();
  }
}

std::string csvQuote(const std::string& f) {
  if (f.find_first_of(",\"\r\n") == std::string::npos) return f;
  std::string out = "\"";
  for (char c : f) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

std::string csvNeutralize(const std::string& f) {
  if (f.empty() || std::string_view("=+-@\t\r").find(f.front()) == std::string_view::npos) return f;
  double number = 0;
  const auto parsed = std::from_chars(f.data(), f.data() + f.size(), number);
  if (parsed.ec == std::errc() && parsed.ptr == f.data() + f.size()) return f;  // "-0.25", "-inf"
  return "'" + f;
}

void CsvWriter::writeRow(const std::vector<std::string>& fields) {
  for (std::size_t i = 0; i < fields.size(); ++i)
    out_ << (i ? "," : "") << csvQuote(csvNeutralize(fields[i]));
  out_ << "\r\n";
}

std::string csvNumber(double v) {
  if (std::isnan(v)) return "";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

}  // namespace paritylab::input
