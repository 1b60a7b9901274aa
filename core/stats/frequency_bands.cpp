#include "core/stats/frequency_bands.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

namespace paritylab::stats {
namespace {

void requireLabel(std::int32_t label, std::size_t position, std::size_t symbols,
                  const char* where) {
  if (label < 0 || std::size_t(label) >= symbols) {
    throw std::invalid_argument(std::string(where) + ": label " + std::to_string(label) +
                                " at position " + std::to_string(position) + " is outside [0, " +
                                std::to_string(symbols) + ")");
  }
}

}  // namespace

FrequencyBands frequencyBands(std::span<const std::int32_t> labels, std::size_t num_symbols) {
  if (labels.empty()) throw std::invalid_argument("frequencyBands: no labels");
  std::vector<std::size_t> count(num_symbols, 0);
  for (std::size_t i = 0; i < labels.size(); ++i) {
    requireLabel(labels[i], i, num_symbols, "frequencyBands");
    ++count[std::size_t(labels[i])];
  }
  std::vector<int> order(num_symbols);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int x, int y) { return count[std::size_t(x)] > count[std::size_t(y)]; });

  static const char* const kNames[] = {"frequent", "medium", "rare"};
  std::vector<int> band(num_symbols, -1);
  std::vector<std::vector<int>> symbols(3);
  std::vector<std::size_t> positions(3, 0);
  const std::size_t total = labels.size();
  std::size_t before = 0;  // targets of the more frequent symbols
  for (int s : order) {
    const std::size_t n = count[std::size_t(s)];
    if (n == 0) break;
    // The band in which the symbol's first target falls: before / total in [0, 1/3), ...
    const int b = 3 * before < total ? 0 : 3 * before < 2 * total ? 1 : 2;
    band[std::size_t(s)] = b;
    symbols[std::size_t(b)].push_back(s);
    positions[std::size_t(b)] += n;
    before += n;
  }
  FrequencyBands out;
  std::vector<int> renumber(3, -1);
  for (int b = 0; b < 3; ++b) {
    if (symbols[std::size_t(b)].empty()) continue;
    renumber[std::size_t(b)] = int(out.names.size());
    out.names.emplace_back(kNames[b]);
    out.symbols.push_back(std::move(symbols[std::size_t(b)]));
    out.positions.push_back(positions[std::size_t(b)]);
  }
  for (int& b : band)
    if (b >= 0) b = renumber[std::size_t(b)];
  out.bandOfSymbol = std::move(band);
  return out;
}

std::vector<double> perBandAccuracy(std::span<const std::int32_t> labels,
                                    std::span<const std::int32_t> predicted,
                                    const FrequencyBands& bands) {
  if (labels.empty() || labels.size() != predicted.size()) {
    throw std::invalid_argument("perBandAccuracy: " + std::to_string(labels.size()) +
                                " labels and " + std::to_string(predicted.size()) +
                                " predictions (the same non-zero number needed)");
  }
  std::vector<double> correct(bands.names.size(), 0.0), seen(bands.names.size(), 0.0);
  for (std::size_t i = 0; i < labels.size(); ++i) {
    requireLabel(labels[i], i, bands.bandOfSymbol.size(), "perBandAccuracy");
    const int b = bands.bandOfSymbol[std::size_t(labels[i])];
    if (b < 0) {
      throw std::invalid_argument("perBandAccuracy: label " + std::to_string(labels[i]) +
                                  " at position " + std::to_string(i) +
                                  " is in no band (not a target when the bands were made)");
    }
    seen[std::size_t(b)] += 1.0;
    if (predicted[i] == labels[i]) correct[std::size_t(b)] += 1.0;
  }
  std::vector<double> accuracy(bands.names.size());
  for (std::size_t b = 0; b < accuracy.size(); ++b)
    accuracy[b] = seen[b] > 0 ? correct[b] / seen[b] : std::numeric_limits<double>::quiet_NaN();
  return accuracy;
}

}  // namespace paritylab::stats
