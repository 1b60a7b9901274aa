#include "core/playground/matrix_text.h"

#include <charconv>
#include <cmath>
#include <stdexcept>

#include "core/input/csv.h"
#include "core/input/input_limits.h"
#include "core/input/number_input.h"
#include "core/input/text_file.h"

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
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // a UTF-8 BOM
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
      // The one number parser (`round` reads its lines with it): 1e-50 is fp32 zero, 1e39 inf.
      const std::optional<float> v = input::parseDecimalFp32(t);
      const std::optional<double> d = input::parseDecimal(t);
      if (!v || !d)
        throw std::invalid_argument(
            std::string(where).append(": '").append(input::excerpt(t)).append("' is not a number"));
      m.values.push_back(*v);
      m.decimals.push_back(*d);
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
  try {  // bounded (kMaxMatmulCsvBytes); a directory or a missing file is named
    return parseMatrix(input::readTextFile(path, "matrix CSV", input::kMaxMatmulCsvBytes), path);
  } catch (const input::InputError& e) {
    throw std::invalid_argument(e.what());
  }
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

std::string valuesNotFp32Note(const Matrix& m, const std::string& source) {
  int overflow = 0, underflow = 0;
  std::string first;
  for (int r = 0; r < m.rows; ++r)
    for (int c = 0; c < m.cols; ++c) {
      const double decimal = m.decimals[std::size_t(r) * m.cols + c];
      const float value = m.at(r, c);
      const bool over = std::isfinite(decimal) && std::isinf(value);
      const bool under = decimal != 0.0 && value == 0.0f;
      if (!over && !under) continue;
      (over ? overflow : underflow) += 1;
      if (first.empty())
        first = "row " + std::to_string(r + 1) + ", column " + std::to_string(c + 1) + ": " +
                input::csvNumber(decimal);
    }
  if (overflow + underflow == 0) return "";
  std::string what;
  if (overflow > 0) what = std::to_string(overflow) + " value(s) beyond fp32's range read as inf";
  if (underflow > 0)
    what += (what.empty() ? "" : ", ") + std::to_string(underflow) +
            " nonzero value(s) below its smallest subnormal read as 0";
  return source + ": " + what + " (first at " + first +
         "): not exactly an fp32, as a device would see them";
}

}  // namespace paritylab::playground
