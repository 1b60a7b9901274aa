// `run` on MPI ranks (built with PARITYLAB_MPI only): rank 0 runs the study as the single-process
// command does, with the other ranks as its remote workers (core/study/cluster/mpi_study.h); the
// other ranks train the runs rank 0 hands them and print nothing unless they fail.

#include <atomic>
#include <csignal>
#include <cstdio>
#include <exception>
#include <optional>

#include "app/cli/command_registry.h"
#include "app/cli/run_study.h"
#include "core/study/cluster/mpi_study.h"

namespace paritylab::cli {
namespace {

std::atomic<bool> g_workerCancel{false};

extern "C" void onWorkerCancelSignal(int) {
  g_workerCancel = true;
}

}  // namespace

void runStudyOnMpi(const RunArgs& a) {
  std::optional<study::mpi::MpiSession> session;
  try {
    session.emplace(nullptr, nullptr);
  } catch (const std::exception& e) {
    throw CommandError(e.what());
  }
  if (session->rank() == 0) {
    study::mpi::MpiWorkers workers(*session);
    const int ranks = session->size();
    RunTransport transport;
    transport.remote = &workers;
    transport.threadsFor = [&](int specThreads) { return session->threadsPerRank(specThreads); };
    transport.description = ", " + std::to_string(ranks) + " MPI rank" + (ranks > 1 ? "s" : "");
    runStudy(a, transport);  // the workers end before MPI does (declared after the session)
    std::string perRank;
    for (int rank = 1; rank < ranks; ++rank)
      perRank += (rank > 1 ? ", rank " : "rank ") + std::to_string(rank) + ": " +
                 std::to_string(workers.runsHandedOut()[std::size_t(rank)]);
    if (ranks > 1)
      std::printf("Runs trained by the MPI workers: %s (rank 0 trained the others).\n",
                  perRank.c_str());
    return;
  }
  std::signal(SIGINT, onWorkerCancelSignal);
  std::signal(SIGTERM, onWorkerCancelSignal);
  try {
    study::mpi::runMpiWorker(*session, g_workerCancel);
  } catch (const std::exception& e) {
    // Rank 0 waits for this worker: a worker that cannot go on ends the whole job, saying why.
    std::fprintf(stderr, "paritylab-cli: error: MPI rank %d: %s\n", session->rank(), e.what());
    std::fflush(stderr);
    session->abort(1);
  }
  if (g_workerCancel) throw CommandError("cancelled", 130);
}

}  // namespace paritylab::cli
