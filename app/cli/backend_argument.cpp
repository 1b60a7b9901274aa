#include "app/cli/backend_argument.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "app/cli/command_registry.h"

namespace paritylab::cli {

backends::PrecisionPolicy loadBackendArgument(const std::string& backend) {
  if (backend.size() > 5 && backend.ends_with(".json")) {
    std::ifstream in(backend);
    if (!in) throw CommandError(backend + ": cannot open policy file");
    try {
      return backends::policyFromJson(nlohmann::json::parse(in));
    } catch (const nlohmann::json::exception& e) {
      throw CommandError(backend + ": malformed JSON: " + e.what());
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
