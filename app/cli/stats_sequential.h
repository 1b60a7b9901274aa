#pragma once
// `paritylab-cli stats DB --sequential`: a sequential study's looks, boundaries and where it
// stopped (core/study/analysis/sequential_analysis.h), as a table and words, or as JSON.

#include <string>

namespace paritylab::cli {

// Throws CommandError naming the database or a study without a sequential design.
void printSequentialStats(const std::string& db, bool json);

}  // namespace paritylab::cli
