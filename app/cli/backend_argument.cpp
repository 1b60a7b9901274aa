#include "app/cli/backend_argument.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "app/cli/command_registry.h"
#include "core/input/input_limits.h"
#include "core/input/json_input.h"
#include "core/input/text_file.h"

namespace paritylab::cli {

backends::PrecisionPolicy loadBackendArgument(const std::string& backend) {
  if (backend.size() > 5 && backend.ends_with(".json")) {
    nlohmann::json json;
    try {
      // Refuses directories, huge files, deep nesting and duplicate keys, naming the file.
      json = input::parseJsonText(
          input::readTextFile(backend, "policy file", input::kMaxJsonFileBytes), backend);
    } catch (const input::InputError& e) {
      throw CommandError(e.what());
    }
    try {
      return backends::policyFromJson(json);
    } catch (const std::invalid_argument& e) {
      throw CommandError(backend + ": " + e.what());
    }
  }
  try {
    return backends::presetPolicy(backend);
  } catch (const std::invalid_argument& e) {
    throw CommandError(std::string(e.what()) + "; or pass a policy .json file");
  }
}

}  // namespace paritylab::cli
