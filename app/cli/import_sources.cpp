#include "app/cli/import_sources.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace paritylab::cli {
namespace {

std::string number(double value) {
  if (std::isnan(value)) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.4f", value);
  return text;
}

}  // namespace

void printSkipped(std::ostream& out, const ImportInput& input) {
  const std::vector<study::SkippedRun>& skipped = input.skipped;
  if (skipped.empty()) return;
  const bool folders = input.format == ImportFormat::TensorBoard;
  out << "Skipped " << skipped.size() << (folders ? " run folder" : " run")
      << (skipped.size() == 1 ? "" : "s") << ":\n";
  for (const study::SkippedRun& s : skipped) out << "  " << s.folder << ": " << s.why << "\n";
}

void printDryRun(std::ostream& out, const std::string& path, const ImportInput& input) {
  const bool tensorboard = input.format == ImportFormat::TensorBoard;
  out << "Dry run: nothing is written. " << path << " read as "
      << study::formatDescription(input.format) << "\n";
  if (!input.tags.empty()) out << "Tags read: " << input.tags << "\n";
  if (!input.metrics.empty()) out << "Metrics read: " << input.metrics << "\n";
  const bool accuracy = std::any_of(input.runs.begin(), input.runs.end(),
                                    [](const auto& r) { return !std::isnan(r.run.finalAccuracy); });
  std::vector<std::vector<std::string>> rows = {
      {"backend", "seed", tensorboard ? "steps" : "epochs",
       accuracy ? "final accuracy" : "final test loss", "run"}};
  for (const study::ImportedRun& r : input.runs) {
    const bool diverged = r.run.status == study::RunState::Diverged;
    rows.push_back({r.run.backend, std::to_string(r.run.seed) + (r.run.seedGiven ? "" : "*"),
                    std::to_string(r.epochs.size()),
                    number(accuracy ? r.run.finalAccuracy : r.run.finalTestLoss),
                    r.run.message + (diverged ? " (diverged)" : "")});
  }
  out << input.runs.size() << (input.runs.size() == 1 ? " run" : " runs")
      << " would be imported (* a seed numbered by ParityLab, the source names none):\n";
  std::vector<std::size_t> widths(rows[0].size(), 0);
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  for (const auto& row : rows) {
    out << "  ";
    for (std::size_t c = 0; c < row.size(); ++c) {
      out << row[c];
      if (c + 1 < row.size()) out << std::string(widths[c] - row[c].size() + 1, ' ');
    }
    out << "\n";
  }
  printSkipped(out, input);
  for (const std::string& note : input.notes) out << "Note: " << note << "\n";
  for (const std::string& note : study::identicalRunNotes(input.runs))
    out << "Note: " << note << "\n";
}

}  // namespace paritylab::cli
