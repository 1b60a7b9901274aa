#pragma once
// `paritylab-cli run`'s arguments and the study it trains, shared by the single-process command
// (cmd_run.cpp) and its MPI transport (mpi_run.cpp, built with PARITYLAB_MPI only).

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "app/cli/training_flags.h"
#include "core/study/run/study_runner.h"

namespace paritylab::cli {

struct RunArgs : TrainingFlags {
  std::string study, db, backends, shard;
  bool resume = false, xray = false, mpi = false, reclaim = false, noChaosFloor = false;
  bool estimate = false;  // print the study's size and time, train nothing
  std::optional<int> seeds, epochs, threads, xrayEvery;
  std::optional<std::int64_t> steps;
};

// How the runs are carried out besides this process's thread pool.
struct RunTransport {
  study::RemoteWorkers* remote = nullptr;  // the other MPI ranks, or null
  // This process's worker threads for the spec's `threads` value (empty: the spec's).
  std::function<int(int specThreads)> threadsFor;
  std::string description;  // added to the first line, e.g. ", 3 MPI ranks"
};

// Trains the study `a` describes into its database, printing progress and the summary; throws
// CommandError for bad input, a failed database, or a cancelled study (exit code 130).
void runStudy(const RunArgs& a, const RunTransport& transport = {});

// Prints the study's size and its training time estimated from a few timed steps of each backend
// and batch size; trains and writes nothing.
void printStudyEstimate(const RunArgs& a);

// `run` on MPI ranks (mpi_run.cpp): rank 0 runs the study, the others train its runs.
void runStudyOnMpi(const RunArgs& a);

}  // namespace paritylab::cli
