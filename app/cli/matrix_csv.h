#pragma once
// `matmul`'s input: a matrix as CSV of numbers, one row per line.

#include <string>
#include <string_view>
#include <vector>

namespace paritylab::cli {

struct Matrix {
  int rows = 0, cols = 0;
  std::vector<float> values;  // [rows, cols], row-major
};

// Parses `text` (the file's content; `path` names it in messages): comma-separated cells read by
// the one number parser (decimals like 1e-50 or -inf, or fp32 bits like 0x3f800000, as `round`
// reads its lines); blank lines skipped; a leading UTF-8 BOM ignored. Every row must have the
// first row's number of cells. Throws CommandError naming the file, row and column.
Matrix parseMatrixCsv(std::string_view text, const std::string& path);

// Reads and parses the file (at most kMaxMatmulCsvBytes; a directory or missing file is named).
Matrix readMatrixCsv(const std::string& path);

}  // namespace paritylab::cli
