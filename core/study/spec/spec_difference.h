#pragma once
// Where two study specs differ, in words: what merge and resume name when they refuse a database.

#include <string>

namespace paritylab::study {

// The first place two studies' JSON differ, e.g. "epochs (2 against 3)" or "backends[1]", ""
// when equal. "threads" is not compared (it does not change results).
std::string firstSpecDifference(const std::string& specJsonA, const std::string& specJsonB);

}  // namespace paritylab::study
