#include "core/study/store/process_owner.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <string>

namespace paritylab::study {

bool ownerIsGone(const std::string& owner, bool otherHostsGone) {
  if (owner.empty()) return true;  // version-1 rows, or a claim that never recorded its owner
  const auto colon = owner.rfind(':');
  if (colon == std::string::npos) return true;
  const std::string self = processOwnerId();
  if (owner.compare(0, colon + 1, self, 0, self.rfind(':') + 1) != 0) return otherHostsGone;
  long pid = 0;
  for (std::size_t i = colon + 1; i < owner.size(); ++i) {
    if (owner[i] < '0' || owner[i] > '9' || pid > 1'000'000'000) return true;
    pid = pid * 10 + (owner[i] - '0');
  }
  if (pid <= 0) return true;
  if (pid == long(::getpid())) return true;  // this process: its earlier study has ended
  return ::kill(pid_t(pid), 0) != 0 && errno == ESRCH;
}

std::string processOwnerId() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return std::string(host) + ":" + std::to_string(::getpid());
}

}  // namespace paritylab::study
