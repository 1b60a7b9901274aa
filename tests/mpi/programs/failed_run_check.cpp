// Faults under MPI: run on 3 MPI ranks, a study whose seed-1 runs throw wherever
// they train. Every one of them is recorded as failed with its message, every other run completes
// with its epochs, and the study goes on to the end. The workers train most runs: rank 0's own
// runs are slowed down, so the failures come from the workers too (checked). Exit code 0 = passed.

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>

#include "core/study/cluster/mpi_study.h"

namespace {

using namespace paritylab;
using namespace paritylab::study;

const char* kSpec = R"({"version": 1, "name": "failing",
  "dataset": {"source": "synthetic", "train_size": 20, "test_size": 10},
  "model": "mlp", "epochs": 2, "batch_size": 10,
  "chaos_floor": false, "backends": ["cpu-fp32", "gpu-tf32", "tpu-bf16"], "seeds": 3, "threads": 1})";

// Two epochs of made-up metrics (nothing here tests training), slowed by `epochSeconds`; seed 1
// throws, naming the rank.
TrainFunction fakeTrain(int rank, double epochSeconds) {
  return [=](const nn::TrainConfig& c, const backends::PrecisionPolicy&, const data::DataSplit&,
             const nn::TrainCallbacks& cb) {
    if (c.seed == 1)
      throw std::runtime_error("injected failure on MPI rank " + std::to_string(rank));
    nn::TrainResult r;
    for (int e = 1; e <= c.epochs; ++e) {
      std::this_thread::sleep_for(std::chrono::duration<double>(epochSeconds));
      nn::EpochMetrics m{e, 1.0 / e, 1.0 / e, 0.5 + 0.01 * double(c.seed), epochSeconds};
      if (cb.onEpoch) cb.onEpoch(m);
      r.epochs.push_back(m);
    }
    return r;
  };
}

int failures = 0;
void check(bool ok, const std::string& what) {
  if (ok) return;
  std::fprintf(stderr, "FAILED: %s\n", what.c_str());
  ++failures;
}

int rankZero(const mpi::MpiSession& session) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("paritylab-mpi-failed-run-" + std::to_string(::getpid()) + ".db"))
                               .string();
  std::filesystem::remove(path);
  RunnerSummary summary;
  {
    auto store = ResultsStore::open(path, true);
    mpi::MpiWorkers workers(session);
    StudyRunner runner(parseStudySpec(kSpec), *store, {}, fakeTrain(0, 0.5));
    summary = runner.run(false, &workers);
    int fromWorkers = 0;
    for (const RunRecord& r : store->loadRuns()) {
      const std::string run = r.backend + " seed " + std::to_string(r.seed);
      if (r.seed == 1) {
        check(r.status == RunState::Failed, run + " is not failed");
        check(r.message.rfind("injected failure on MPI rank ", 0) == 0, run + ": " + r.message);
        fromWorkers += r.message != "injected failure on MPI rank 0";
      } else {
        check(r.status == RunState::Completed, run + " is not completed");
        check(store->loadEpochs(r.id).size() == 2, run + " has not 2 epochs");
      }
    }
    check(fromWorkers > 0, "no failed run came from a worker rank");
    std::printf("runs handed to rank 1: %d, rank 2: %d; failures from workers: %d\n",
                workers.runsHandedOut()[1], workers.runsHandedOut()[2], fromWorkers);
  }
  check(summary.failed == 3, "failed " + std::to_string(summary.failed) + ", expected 3");
  check(summary.completed == 6, "completed " + std::to_string(summary.completed) + ", expected 6");
  check(!summary.wasCancelled, "the study was cancelled");
  std::filesystem::remove(path);
  std::filesystem::remove(path + "-wal");
  std::filesystem::remove(path + "-shm");
  std::printf("%s\n", failures == 0 ? "PASSED" : "FAILED");
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  mpi::MpiSession session(&argc, &argv);
  if (session.size() < 2) {
    std::fprintf(stderr, "run on at least 2 MPI ranks (mpirun -np 3)\n");
    return 1;
  }
  if (session.rank() == 0) return rankZero(session);
  std::atomic<bool> cancel{false};
  mpi::runMpiWorker(session, cancel, fakeTrain(session.rank(), 0.02));
  return 0;
}
