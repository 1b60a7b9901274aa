#pragma once
// What the spec parser says of a study text read as `file`: the SpecError's message, or
// "accepted" when it parses. Shared by the spec tests that check refusals word for word.

#include <string>

#include "core/study/spec/study_spec.h"

namespace paritylab::study::testing {

inline std::string specMessage(const std::string& text, const std::string& file) {
  try {
    parseStudySpec(text, file);
  } catch (const SpecError& e) {
    return e.what();
  }
  return "accepted";
}

}  // namespace paritylab::study::testing
