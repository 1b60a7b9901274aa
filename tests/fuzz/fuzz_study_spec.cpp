// Fuzz target: the study spec (JSON). Accepted specs must survive a round trip through
// studySpecToJson; refused ones must be a SpecError.
#include "core/study/spec/study_spec.h"
#include "fuzz_target.h"

namespace paritylab::fuzz {
std::vector<std::string> generatedInputs() {
  // 500k levels of nesting once overflowed the stack while the message was built.
  return {
      R"({"name": "x", "backends": )" + std::string(500'000, '[') + std::string(500'000, ']') + "}",
      R"({"name": "x", "backends": ["cpu-fp32"], "dataset": )" + std::string(100'000, '{') +
          std::string(100'000, '}') + "}"};
}
}  // namespace paritylab::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace paritylab::study;
  const std::string text(paritylab::fuzz::asText(data, size));
  StudySpec spec;
  try {
    spec = parseStudySpec(text, "fuzz.json");
  } catch (const SpecError&) {
    return 0;
  }
  const auto json = studySpecToJson(spec);
  const StudySpec again = parseStudySpec(json.dump(), "round trip");  // must not throw
  if (studySpecToJson(again) != json) __builtin_trap();
  return 0;
}
