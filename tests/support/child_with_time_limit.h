#pragma once
// Runs a check in a forked child process under a time limit, so that code which would read a pipe
// or a device forever fails its test instead of stopping the suite.

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>

namespace paritylab::testing {

enum class ChildOutcome { Passed, Failed, TimedOut };

// `check` runs in the child; its true/false is the child's exit status. The parent waits at most
// `seconds`, then kills the child.
inline ChildOutcome runInChild(const std::function<bool()>& check, int seconds = 10) {
  const pid_t child = ::fork();
  if (child < 0) return ChildOutcome::Failed;
  if (child == 0) ::_exit(check() ? 0 : 1);
  int status = -1;
  for (int waited = 0; waited < seconds * 10 && ::waitpid(child, &status, WNOHANG) == 0; ++waited)
    ::usleep(100'000);
  if (::waitpid(child, &status, WNOHANG) == 0) {
    ::kill(child, SIGKILL);
    ::waitpid(child, &status, 0);
    return ChildOutcome::TimedOut;
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? ChildOutcome::Passed
                                                       : ChildOutcome::Failed;
}

}  // namespace paritylab::testing
