#include "core/study/files/report_csv.h"

#include <cmath>
#include <filesystem>

#include "core/input/atomic_file.h"
#include "core/input/csv.h"

namespace paritylab::study {

std::string pathBesideRunsCsv(const std::string& runsCsvPath, const std::string& suffix) {
  const std::filesystem::path p(runsCsvPath);
  return (p.parent_path() / (p.stem().string() + suffix + p.extension().string())).string();
}

std::string csvCell(double v) {
  return std::isfinite(v) ? input::csvNumber(v) : (std::isinf(v) ? (v > 0 ? "inf" : "-inf") : "");
}

void writeCsvRows(const std::string& path, const std::vector<std::vector<std::string>>& rows) {
  input::writeFileAtomically(path, [&](std::ostream& out) {
    input::CsvWriter csv(out);
    for (const auto& row : rows) csv.writeRow(row);
  });
}

}  // namespace paritylab::study
