// Token-frequency bands: a language model's "per class" table. A vocabulary of 65 characters (or
// thousands of tokens) is too many classes to test one by one, and what users ask is whether a
// precision hurts the rare tokens more than the frequent ones. The symbols are ranked by how often
// they are the target at the compared positions (most frequent first, ties by id) and cut into
// bands of about equal numbers of POSITIONS: "frequent" = the few symbols that make up the first
// third of the targets, "medium" the next third, "rare" the rest (usually most of the vocabulary).
// Equal shares of positions give each band's accuracy about the same statistical weight.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace paritylab::stats {

struct FrequencyBands {
  std::vector<std::string> names;         // [bands] "frequent", "medium", "rare"
  std::vector<int> bandOfSymbol;          // [symbols] band index, -1: never a target
  std::vector<std::vector<int>> symbols;  // [bands] symbol ids, most frequent first
  std::vector<std::size_t> positions;     // [bands] targets that fall in the band
};

// Bands of the symbols 0 .. num_symbols - 1 by their counts in `labels` (every label in
// [0, num_symbols), std::invalid_argument naming the position otherwise; at least one label).
// A symbol whose first target falls within the first third of all targets (counting the more
// frequent symbols' targets first) is frequent, within the second third medium, else rare. A band
// can stay empty (symbols holding two thirds of the targets between them leave no medium one; one
// or two symbols leave no rare one): empty bands are dropped, so 1 to 3 bands come back.
FrequencyBands frequencyBands(std::span<const std::int32_t> labels, std::size_t num_symbols);

// Accuracy of one run per band: correct / targets in the band. labels and predicted as for
// perClassAccuracy (the same non-zero length, labels within bands.bandOfSymbol).
std::vector<double> perBandAccuracy(std::span<const std::int32_t> labels,
                                    std::span<const std::int32_t> predicted,
                                    const FrequencyBands& bands);

}  // namespace paritylab::stats
