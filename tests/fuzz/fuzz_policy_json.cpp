// Fuzz target: a precision policy JSON file, parsed as `--backend FILE.json` parses it. Accepted
// policies must survive a round trip through policyToJson.
#include "core/backends/precision_policy.h"
#include "core/input/json_input.h"
#include "fuzz_target.h"

namespace paritylab::fuzz {
std::vector<std::string> generatedInputs() {
  // 100k levels of nesting in a policy once overflowed the stack in value.dump().
  return {R"({"linear": )" + std::string(100'000, '[') + std::string(100'000, ']') + "}",
          R"({"preset": "tpu-bf16", "fp8": )" + std::string(100'000, '{') + "}"};
}
}  // namespace paritylab::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace paritylab;
  backends::PrecisionPolicy policy;
  try {
    policy = backends::policyFromJson(input::parseJsonText(fuzz::asText(data, size), "fuzz.json"));
  } catch (const std::invalid_argument&) {  // InputError and the policy's own errors
    return 0;
  }
  const auto json = backends::policyToJson(policy);
  if (backends::policyToJson(backends::policyFromJson(json)) != json) __builtin_trap();
  return 0;
}
