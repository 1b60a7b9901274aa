#pragma once
// Every paritylab-cli command lives in its own file and registers itself here at static
// initialisation, so adding a command touches no shared file.

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace paritylab::cli {

// Adds the command's subcommand (options + callback) to the root app.
using CommandSetup = std::function<void(CLI::App& root)>;

struct CommandEntry {
  std::string name;
  int order;  // position in `--help`
  CommandSetup setup;
};

std::vector<CommandEntry>& commandRegistry();

struct CommandRegistration {
  CommandRegistration(std::string name, int order, CommandSetup setup);
};

// Thrown by a command for bad input or a failed operation: main prints
// "paritylab-cli: error: <what>" to stderr and exits with `exitCode`.
class CommandError : public std::runtime_error {
 public:
  explicit CommandError(const std::string& what, int exitCode = 1)
      : std::runtime_error(what), exitCode_(exitCode) {}
  int exitCode() const { return exitCode_; }

 private:
  int exitCode_;
};

}  // namespace paritylab::cli
