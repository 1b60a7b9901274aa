// paritylab-cli: everything ParityLab does, headless. Commands register themselves
// (command_registry.h); this file only assembles them and maps errors to exit codes.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <exception>
#include <iostream>
#include <new>
#include <stdexcept>
#include <string>

#include "app/cli/command_registry.h"
#include "core/nn/blas_setup.h"

namespace paritylab::cli {

std::vector<CommandEntry>& commandRegistry() {
  static std::vector<CommandEntry> entries;
  return entries;
}

CommandRegistration::CommandRegistration(std::string name, int order, CommandSetup setup) {
  commandRegistry().push_back({std::move(name), order, std::move(setup)});
}

namespace {

// An error as the terminal shows it: control characters (an ANSI escape or raw bytes from a data
// file) as '?', lines kept, and at most kMaxMessage characters.
std::string printableMessage(const std::string& what) {
  constexpr std::size_t kMaxMessage = 2000;
  std::string out;
  for (std::size_t i = 0; i < what.size() && i < kMaxMessage; ++i) {
    const auto c = static_cast<unsigned char>(what[i]);
    out += (c == '\n' || (c >= 0x20 && c != 0x7f)) ? what[i] : '?';
  }
  if (what.size() > kMaxMessage)
    out += "... (" + std::to_string(what.size()) + " characters in all)";
  return out;
}

// An allocation that failed where no reader checked a size first: the command and the inputs it was
// given, instead of the bare "std::bad_alloc".
std::string sizeFailure(int argc, char** argv, const std::string& what) {
  std::string inputs;
  for (int i = 2; i < argc; ++i)
    if (argv[i][0] != '-') inputs += std::string(inputs.empty() ? "" : " ") + argv[i];
  return std::string(argv[1]) + ": " + what + (inputs.empty() ? "" : " with " + inputs) +
         "; a damaged or hostile file may declare sizes it does not hold";
}

}  // namespace

}  // namespace paritylab::cli

int main(int argc, char** argv) {
  using namespace paritylab::cli;
  // Before any thread exists: it may set OPENBLAS_CORETYPE (setenv is not thread-safe).
  paritylab::nn::configureBlas();
  CLI::App app{
      "ParityLab " PARITYLAB_VERSION
      ": does the precision difference between TPUs, GPUs and CPUs change the model you get?\n"
      "Backends are emulated on this CPU (rounding as the hardware does); nothing runs on a TPU or "
      "GPU.",
      "paritylab-cli"};
  app.require_subcommand(1);
  app.set_version_flag("--version", PARITYLAB_VERSION);

  auto& entries = commandRegistry();
  std::sort(entries.begin(), entries.end(),
            [](const CommandEntry& a, const CommandEntry& b) { return a.order < b.order; });
  for (const auto& entry : entries) entry.setup(app);

  // CLI11 would answer "A subcommand is required" for `paritylab-cli frobnicate`: name it.
  if (argc > 1 && argv[1][0] != '-') {
    const std::string command = argv[1];
    std::string known;
    bool found = false;
    for (const auto& entry : entries) {
      found = found || entry.name == command;
      known += (known.empty() ? "" : ", ") + entry.name;
    }
    if (!found) {
      std::cerr << "paritylab-cli: error: unknown command '" << command << "' (commands: " << known
                << "; paritylab-cli --help)\n";
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const CommandError& e) {
    std::cerr << "paritylab-cli: error: " << printableMessage(e.what()) << "\n";
    return e.exitCode();
  } catch (const std::bad_alloc&) {
    std::cerr << "paritylab-cli: error: "
              << printableMessage(sizeFailure(argc, argv, "out of memory")) << "\n";
    return 1;
  } catch (const std::length_error&) {
    std::cerr << "paritylab-cli: error: "
              << printableMessage(sizeFailure(argc, argv, "a size beyond what memory can hold"))
              << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "paritylab-cli: error: " << printableMessage(e.what()) << "\n";
    return 1;
  }
  return 0;
}
