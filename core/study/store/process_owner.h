#pragma once
// Who owns a claimed run: a process named "host:pid" (runs.claimed_by), and whether it is gone.

#include <string>

namespace paritylab::study {

// This process's identity as a run owner: "host:pid".
std::string processOwnerId();
// An owner "host:pid" is gone when it is empty or malformed, this very process (its earlier study
// has ended), or on this host with no such process alive. An owner on another host is gone only
// when otherHostsGone says so (run --resume --reclaim: nobody can check another host's processes).
bool ownerIsGone(const std::string& owner, bool otherHostsGone = false);

}  // namespace paritylab::study
