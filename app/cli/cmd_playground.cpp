// paritylab-cli playground: the precision playground's experiments headless (the app's
// Playground tab runs the same code): `playground regression`, `playground reduction` and
// `playground product`, each in its own file, added to this group.
#include <CLI/CLI.hpp>

#include "app/cli/command_registry.h"

namespace paritylab::cli {
namespace playground_command {

void setup(CLI::App& root) {
  auto* group = root.add_subcommand(
      "playground",
      "Why backends differ, in seconds: the regression example, error against reduction length "
      "and order, any product under every backend (emulated)");
  group->require_subcommand(1);
}

const CommandRegistration reg{"playground", 45, setup};

}  // namespace playground_command
}  // namespace paritylab::cli
