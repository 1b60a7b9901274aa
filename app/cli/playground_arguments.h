#pragma once
// Arguments shared by the `playground` subcommands.

#include <string>
#include <vector>

#include "core/backends/precision_policy.h"

namespace CLI {
class App;
}

namespace paritylab::cli {

// The `playground` group added by cmd_playground.cpp (registered before its subcommands).
CLI::App& playgroundGroup(CLI::App& root);

// Every preset when `names` is empty, else each name (a preset or a policy .json file).
std::vector<backends::PrecisionPolicy> playgroundBackends(const std::vector<std::string>& names);

// Writes `text` to `path` ("-" = stdout); throws CommandError naming the file.
void writeTextFile(const std::string& path, const std::string& text);

}  // namespace paritylab::cli
