#include "app/cli/matrix_csv.h"

#include "app/cli/cli_number_parsing.h"
#include "app/cli/command_registry.h"
#include "core/input/input_limits.h"
#include "core/input/number_input.h"
#include "core/input/text_file.h"

namespace paritylab::cli {
namespace {

bool blank(std::string_view line) {
  return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

}  // namespace

Matrix parseMatrixCsv(std::string_view text, const std::string& path) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  Matrix m;
  std::size_t lineNo = 0;
  while (!text.empty()) {
    ++lineNo;
    const std::size_t eol = text.find('\n');
    const std::string_view line = text.substr(0, eol);
    text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
    if (blank(line)) continue;
    const std::string where = path + ": row " + std::to_string(lineNo);
    int col = 0;
    for (std::size_t start = 0;;) {
      const std::size_t comma = line.find(',', start);
      const std::string_view cell = line.substr(start, comma - start);
      ++col;
      const auto value = parseFp32Text(cell);
      if (!value)
        throw CommandError(where + ", column " + std::to_string(col) + ": '" +
                           input::excerpt(cell) + "' is not a number");
      m.values.push_back(*value);
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
    if (m.rows == 0) m.cols = col;
    if (col != m.cols)
      throw CommandError(where + " has " + std::to_string(col) + " values, expected " +
                         std::to_string(m.cols) + " like the first row");
    ++m.rows;
  }
  if (m.rows == 0) throw CommandError(path + ": no rows");
  return m;
}

Matrix readMatrixCsv(const std::string& path) {
  try {
    return parseMatrixCsv(input::readTextFile(path, "matrix CSV", input::kMaxMatmulCsvBytes), path);
  } catch (const input::InputError& e) {
    throw CommandError(e.what());
  }
}

}  // namespace paritylab::cli
