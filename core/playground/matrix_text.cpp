#include "core/playground/matrix_text.h"

#include <charconv>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace paritylab::playground {
namespace {

bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

// Splits the text into rows of cells; a cell is the text between separators (may be empty).
std::vector<std::vector<std::string>> splitCells(std::string_view text) {
  std::vector<std::vector<std::string>> rows(1);
  std::string cell;
  bool cellOpen = false;     // text or an explicit separator since the last cell was closed
  bool afterRowEnd = false;  // just closed a row with ']': a following ',' separates rows
  auto closeCell = [&] {
    rows.back().push_back(cell);
    cell.clear();
    cellOpen = false;
  };
  auto closeRow = [&] {
    if (cellOpen || !cell.empty()) closeCell();
    rows.emplace_back();
  };
  for (char c : text) {
    if (c == '[' || isSpace(c)) {
      if (isSpace(c) && !cell.empty()) closeCell();
      continue;
    }
    if (c == ']' || c == ';' || c == '\n') {
      closeRow();
      afterRowEnd = c == ']';
      continue;
    }
    if (c == ',') {
      if (afterRowEnd && cell.empty() && rows.back().empty()) {
        afterRowEnd = false;
        continue;
      }
      if (!cell.empty() || cellOpen || rows.back().empty()) closeCell();
      cellOpen = true;  // a value must follow
      continue;
    }
    afterRowEnd = false;
    cell += c;
    cellOpen = true;
  }
  if (cellOpen || !cell.empty()) closeCell();
  return rows;
}

}  // namespace

Matrix parseMatrix(std::string_view text, const std::string& source) {
  Matrix m;
  int rowNo = 0;
  for (const auto& cells : splitCells(text)) {
    if (cells.empty()) continue;
    ++rowNo;
    int col = 0;
    for (const std::string& t : cells) {
      ++col;
      const std::string where =
          source + ": row " + std::to_string(rowNo) + ", column " + std::to_string(col);
      if (t.empty()) throw std::invalid_argument(where + ": empty value (two commas in a row?)");
      float v = 0.0f;
      double d = 0.0;
      const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
      const auto [endD, ecD] = std::from_chars(t.data(), t.data() + t.size(), d);
      if (ec == std::errc::result_out_of_range || ecD == std::errc::result_out_of_range)
        throw std::invalid_argument(
            std::string(where).append(": '").append(t).append("' is out of range"));
      if (ec != std::errc() || end != t.data() + t.size() || endD != end)
        throw std::invalid_argument(
            std::string(where).append(": '").append(t).append("' is not a number"));
      m.values.push_back(v);
      m.decimals.push_back(d);
    }
    if (m.rows == 0) m.cols = col;
    if (col != m.cols) {
      throw std::invalid_argument(source + ": row " + std::to_string(rowNo) + " has " +
                                  std::to_string(col) + " values, expected " +
                                  std::to_string(m.cols) + " like the first row");
    }
    ++m.rows;
  }
  if (m.rows == 0) throw std::invalid_argument(source + ": no rows");
  return m;
}

Matrix readMatrixFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(path + ": cannot open file");
  std::stringstream text;
  text << in.rdbuf();
  return parseMatrix(text.str(), path);
}

std::string formatMatrix(const Matrix& m) {
  std::string out;
  char buf[64];
  for (int r = 0; r < m.rows; ++r) {
    for (int c = 0; c < m.cols; ++c) {
      out.append(buf, std::to_chars(buf, buf + sizeof buf, m.at(r, c)).ptr);
      out += c + 1 < m.cols ? ", " : "\n";
    }
  }
  return out;
}

}  // namespace paritylab::playground
