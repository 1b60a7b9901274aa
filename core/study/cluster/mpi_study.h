#pragma once
// The MPI transport of the study runner (built with PARITYLAB_MPI only).
// `mpirun -np N paritylab-cli run STUDY.json --db results.db`: rank 0 owns the plan (RunScheduler)
// and the database (StudyCommitter) and trains runs with its own thread pool like the
// single-process runner; ranks 1..N-1 are workers with their own thread pools. A worker thread
// that is free asks rank 0 for the next run (costliest first, as the scheduler orders them), trains
// it with the same code (trainRun) and sends every record to rank 0 (run_record_wire.h), which
// commits it as the single-process runner does. All MPI calls are made by each rank's main thread
// (MPI_THREAD_FUNNELED); waiting ranks poll every few milliseconds instead of spinning in a
// blocking call, so they leave the cores to training.

#include <atomic>
#include <deque>
#include <string>
#include <vector>

#include "core/study/run/run_training.h"
#include "core/study/run/study_runner.h"

namespace paritylab::study::mpi {

// MPI for this object's lifetime: MPI_Init_thread (FUNNELED) .. MPI_Finalize. One per process.
class MpiSession {
 public:
  MpiSession(int* argc, char*** argv);  // throws std::runtime_error when MPI cannot start
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }
  // Threads for one rank when the study asks for one per core (threads 0): this node's cores
  // shared among the ranks on this node, at least 1.
  int threadsPerRank(int studyThreads) const;
  // Ends the whole job (every rank) with `code`, for a rank that cannot go on.
  [[noreturn]] void abort(int code) const;

 private:
  int rank_ = 0, size_ = 1, ranksOnThisNode_ = 1;
};

// Rank 0's side: serves the workers of ranks 1..size-1 from the runner's scheduler, round by
// round. A worker thread that asks for a run when the round has none left waits for the next
// round (its request is answered then) or for finish() (answered with "no more runs").
class MpiWorkers final : public RemoteWorkers {
 public:
  explicit MpiWorkers(const MpiSession& session)
      : session_(session),
        handedOut_(std::size_t(session.size()), 0),
        active_(std::size_t(session.size()), true),
        activeWorkers_(session.size() - 1) {}
  // When start() was never called (the study failed before its first run), tells every worker
  // that there is nothing to do; when finish() was not (the runner stopped on an error), cancels
  // them; either way they end.
  ~MpiWorkers() override;
  void start(const StudySpec& spec, const std::string& backboneCheckpoint) override;
  void serve(RunScheduler& scheduler, StudyCommitter& committer, const std::atomic<bool>& cancel,
             const std::function<void(std::exception_ptr)>& reportStoreError) override;
  void finish() override;
  // How many runs each rank was handed ([rank]; rank 0's own threads are not counted).
  const std::vector<int>& runsHandedOut() const { return handedOut_; }

 private:
  void sendCancelOnce();
  void stopped(int worker);  // a worker said every thread has stopped (kDone)

  const MpiSession& session_;
  bool started_ = false;
  std::vector<int> handedOut_;
  std::vector<bool> active_;  // [rank]: still running (has not said kDone)
  int activeWorkers_;         // ranks 1..size-1 still running
  std::deque<int> waiting_;   // ranks of worker threads waiting for a run, one entry each
  bool cancelSent_ = false;
  bool storeFailed_ = false;  // nothing more is recorded or handed out
};

// A worker rank (1..size-1): waits for the study from rank 0, loads its dataset, trains the runs
// rank 0 hands out with the study's threads (MpiSession::threadsPerRank) and sends every record to
// rank 0, until rank 0 has no more runs or `cancel` is set (by a signal here, or by rank 0).
// Returns false when rank 0 had no study to share (it failed before the first run). train:
// nn::train when empty.
bool runMpiWorker(const MpiSession& session, std::atomic<bool>& cancel,
                  const TrainFunction& train = {});

}  // namespace paritylab::study::mpi
