#include "app/cli/playground_arguments.h"

#include <CLI/CLI.hpp>
#include <iostream>

#include "app/cli/backend_argument.h"
#include "app/cli/command_registry.h"
#include "core/input/atomic_file.h"

namespace paritylab::cli {

CLI::App& playgroundGroup(CLI::App& root) {
  return *root.get_subcommand("playground");
}

std::vector<backends::PrecisionPolicy> playgroundBackends(const std::vector<std::string>& names) {
  if (names.empty()) return backends::presetPolicies();
  std::vector<backends::PrecisionPolicy> policies;
  for (const auto& n : names) policies.push_back(loadBackendArgument(n));
  return policies;
}

void writeTextFile(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::cout << text;
    return;
  }
  try {
    input::writeFileAtomically(path, text);
  } catch (const input::FileWriteError& e) {
    throw CommandError(e.what());
  }
}

}  // namespace paritylab::cli
