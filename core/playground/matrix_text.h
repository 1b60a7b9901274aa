#pragma once
// Small matrices as text: CSV files (`paritylab-cli matmul`) and matrices typed or pasted into the
// playground, including numpy/jax literals such as [[0.3744, 0.1656], [0.4707, 0.1663]].

#include <string>
#include <string_view>
#include <vector>

namespace paritylab::playground {

struct Matrix {
  int rows = 0, cols = 0;
  std::vector<float> values;     // [rows, cols], row-major, fp32 (decimals rounded to nearest)
  std::vector<double> decimals;  // the same numbers rounded to fp64 (for fp64 references)
  float at(int r, int c) const { return values[std::size_t(r) * cols + c]; }
};

// Rows end at a newline, ';' or ']'; values are separated by commas and/or spaces; '[' is ignored
// and blank rows are skipped. Throws std::invalid_argument starting with `source` and naming the
// row, column and text that is wrong ("A.csv: row 2, column 3: 'x' is not a number"), an empty
// value (",,", a trailing comma), rows of different lengths, or no rows at all.
Matrix parseMatrix(std::string_view text, const std::string& source);
// Reads and parses a file; throws std::invalid_argument naming the file when it cannot be read.
Matrix readMatrixFile(const std::string& path);

// What reading the decimals as fp32 changed that a reader should be told, "" when nothing: a value
// beyond fp32's range read as inf, a nonzero one below its smallest subnormal read as 0, e.g.
// "A.csv: 1 value(s) beyond fp32's range read as inf (first at row 2, column 1: 1e+39): not
// exactly an fp32, as a device would see them". `source` names the file or field.
std::string valuesNotFp32Note(const Matrix& m, const std::string& source);

// The matrix as text parseMatrix reads back: rows on lines, shortest round-trip decimals.
std::string formatMatrix(const Matrix& m);

}  // namespace paritylab::playground
