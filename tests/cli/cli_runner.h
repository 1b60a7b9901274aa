#pragma once
// Runs the built paritylab-cli (PARITYLAB_CLI, set by CMake) with arguments and optional stdin,
// capturing stdout, stderr and the exit code; files the tests write go to a fresh temp folder.

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace paritylab::cli::testing {

struct CliResult {
  int exitCode = -1;
  std::string out, err;
};

// A folder of its own under the system temp directory, removed at the end of the test.
class TempFolder {
 public:
  explicit TempFolder(const std::string& name)
      : path_(std::filesystem::temp_directory_path() /
              ("paritylab-cli-test-" + std::to_string(::getpid()) + "-" + name)) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempFolder() { std::filesystem::remove_all(path_); }
  // Writes `text` to NAME in the folder and returns its path.
  std::string write(const std::string& name, const std::string& text) const {
    const auto file = path_ / name;
    std::ofstream(file) << text;
    return file.string();
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

inline std::string shellQuoted(const std::string& arg) {
  std::string quoted = "'";
  for (char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

inline std::string readAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// environment: extra variables for the command, each "NAME=value".
inline CliResult runCli(const std::vector<std::string>& args, const std::string& stdinText = {},
                        const std::vector<std::string>& environment = {}) {
  const TempFolder io("io");
  std::string command;
  if (!environment.empty()) {
    command = "env";
    for (const auto& variable : environment) command += " " + shellQuoted(variable);
    command += " ";
  }
  command += shellQuoted(PARITYLAB_CLI);
  for (const auto& arg : args) command += " " + shellQuoted(arg);
  command += " < " + shellQuoted(io.write("stdin", stdinText));
  command += " 2> " + shellQuoted(io.file("stderr"));
  CliResult result;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return result;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
    result.out.append(buffer, n);
  const int status = ::pclose(pipe);
  result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.err = readAll(io.file("stderr"));
  return result;
}

// `run` of a tiny study into `db`: an mlp on synthetic data (64 training, 32 test images), one
// epoch in batches of 16, `backends` (comma-separated) x `seeds`, no chaos floor; `more`
// arguments appended.
inline CliResult runTinyStudy(const std::string& db, const std::string& backends, int seeds,
                              const std::vector<std::string>& more = {}) {
  std::vector<std::string> args = {"run",
                                   "--db",
                                   db,
                                   "--dataset",
                                   "synthetic",
                                   "--train-size",
                                   "64",
                                   "--test-size",
                                   "32",
                                   "--model",
                                   "mlp",
                                   "--backends",
                                   backends,
                                   "--seeds",
                                   std::to_string(seeds),
                                   "--epochs",
                                   "1",
                                   "--batch",
                                   "16",
                                   "--no-chaos-floor"};
  args.insert(args.end(), more.begin(), more.end());
  return runCli(args);
}

// The line of `text` that starts with `prefix` after leading spaces ("" when none).
inline std::string lineStartingWith(const std::string& text, const std::string& prefix) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const auto first = line.find_first_not_of(' ');
    if (first != std::string::npos && line.compare(first, prefix.size(), prefix) == 0) return line;
  }
  return {};
}

}  // namespace paritylab::cli::testing
