#include "core/study/csv.h"

#include <charconv>
#include <cmath>

namespace paritylab::study {

bool CsvReader::next(CsvRow& row) {
  row.fields.clear();
  row.line = line_;
  int c = in_.get();
  if (c == EOF) return false;
  std::string field;
  int col = 1;
  bool quoted = false, afterQuote = false, fieldStart = true;
  int quoteLine = line_, quoteCol = 1;
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

void CsvWriter::writeRow(const std::vector<std::string>& fields) {
  for (std::size_t i = 0; i < fields.size(); ++i) out_ << (i ? "," : "") << csvQuote(fields[i]);
  out_ << "\r\n";
}

std::string csvNumber(double v) {
  if (std::isnan(v)) return "";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

}  // namespace paritylab::study
