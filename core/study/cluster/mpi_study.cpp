#include "core/study/cluster/mpi_study.h"

#include <mpi.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/study/cluster/run_record_wire.h"

namespace paritylab::study::mpi {
namespace {

using nlohmann::json;
using Bytes = std::vector<std::uint8_t>;

// Message tags besides the records' (RecordKind, 101..).
enum Tag : int {
  kStart = 1,    // 0 -> worker: CBOR {spec, checkpoint} or empty (no study: end)
  kRequest = 2,  // worker -> 0: one free thread asks for a run (empty)
  kAssign = 3,   // 0 -> worker: CBOR {run, backend, seed}, or empty (no more runs)
  kCancel = 4,   // 0 -> worker: stop training (empty)
  kDone = 5,     // worker -> 0: every thread has stopped, every record was sent (empty)
  kBye = 6,      // 0 -> worker: the last message rank 0 sends it (empty)
};

// How long a rank with nothing to do sleeps between two polls: short against a training step,
// long enough to leave the core to the training threads.
constexpr auto kPollInterval = std::chrono::milliseconds(2);

void check(int code, const char* what) {
  if (code != MPI_SUCCESS) throw std::runtime_error(std::string("MPI: ") + what + " failed");
}

void send(int to, int tag, const Bytes& body) {
  check(MPI_Send(body.data(), int(body.size()), MPI_BYTE, to, tag, MPI_COMM_WORLD), "MPI_Send");
}

struct Message {
  int source = 0, tag = 0;
  Bytes body;
};

// The next message from `source` (MPI_ANY_SOURCE: anyone) with any tag, if one has arrived.
std::optional<Message> poll(int source) {
  int arrived = 0;
  MPI_Status status;
  check(MPI_Iprobe(source, MPI_ANY_TAG, MPI_COMM_WORLD, &arrived, &status), "MPI_Iprobe");
  if (!arrived) return std::nullopt;
  int count = 0;
  check(MPI_Get_count(&status, MPI_BYTE, &count), "MPI_Get_count");
  Message m{status.MPI_SOURCE, status.MPI_TAG, Bytes(std::size_t(count))};
  check(MPI_Recv(m.body.data(), count, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE),
        "MPI_Recv");
  return m;
}

// Waits (polling, without spinning) for the next message from `source`.
Message await(int source) {
  for (;;) {
    if (std::optional<Message> m = poll(source)) return std::move(*m);
    std::this_thread::sleep_for(kPollInterval);
  }
}

Bytes readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot read the backbone checkpoint");
  return Bytes(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

MpiSession::MpiSession(int* argc, char*** argv) {
  int provided = 0;
  check(MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  if (provided < MPI_THREAD_FUNNELED) {
    MPI_Finalize();
    throw std::runtime_error(
        "MPI: this MPI library does not support threads (MPI_THREAD_FUNNELED)");
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm node;  // the ranks sharing this node's memory (and cores)
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &ranksOnThisNode_);
  MPI_Comm_free(&node);
}

MpiSession::~MpiSession() {
  MPI_Finalize();
}

int MpiSession::threadsPerRank(int studyThreads) const {
  if (studyThreads > 0) return studyThreads;
  return std::max(1, int(std::thread::hardware_concurrency()) / std::max(1, ranksOnThisNode_));
}

void MpiSession::abort(int code) const {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

MpiWorkers::~MpiWorkers() {
  try {
    if (!started_) {
      for (int worker = 1; worker < session_.size(); ++worker) send(worker, kStart, {});
    } else if (activeWorkers_ > 0) {  // the runner stopped on an error before finish()
      sendCancelOnce();
      finish();
    }
  } catch (const std::exception&) {
  }
}

void MpiWorkers::start(const StudySpec& spec, const std::string& backboneCheckpoint) {
  json start = {{"spec", studySpecToJson(spec)}};
  if (!backboneCheckpoint.empty()) start["checkpoint"] = json::binary(readFile(backboneCheckpoint));
  const Bytes body = json::to_cbor(start);
  for (int worker = 1; worker < session_.size(); ++worker) send(worker, kStart, body);
  started_ = true;
}

void MpiWorkers::sendCancelOnce() {
  if (cancelSent_) return;
  for (int worker = 1; worker < session_.size(); ++worker)
    if (active_[std::size_t(worker)]) send(worker, kCancel, {});
  cancelSent_ = true;
}

void MpiWorkers::stopped(int worker) {
  send(worker, kBye, {});
  active_[std::size_t(worker)] = false;
  --activeWorkers_;
}

void MpiWorkers::serve(RunScheduler& scheduler, StudyCommitter& committer,
                       const std::atomic<bool>& cancel,
                       const std::function<void(std::exception_ptr)>& reportStoreError) {
  int running = 0;  // runs handed to workers in this round whose final record has not arrived
  const auto failed = [&](std::exception_ptr error) {
    storeFailed_ = true;
    reportStoreError(std::move(error));  // cancels: the workers are told below
  };
  // A waiting worker thread gets the round's next run; false when the round has none left.
  const auto handOut = [&](int worker) {
    std::optional<RunJob> job;
    try {
      if (!storeFailed_) job = scheduler.next(cancel);
      if (job) committer.runStarted(*job);
    } catch (const StoreError&) {
      failed(std::current_exception());
      job.reset();
    }
    if (!job) return false;
    ++handedOut_[std::size_t(worker)];
    ++running;
    send(worker, kAssign,
         json::to_cbor({{"run", job->runId},
                        {"backend", job->planned.backendIndex},
                        {"seed", job->planned.seed}}));
    return true;
  };
  const auto roundOver = [&] {
    return (cancel || storeFailed_ || scheduler.handedOutAll()) && running == 0;
  };
  while (!waiting_.empty() && handOut(waiting_.front())) waiting_.pop_front();
  while (activeWorkers_ > 0 && !roundOver()) {
    if (cancel) sendCancelOnce();
    std::optional<Message> m = poll(MPI_ANY_SOURCE);
    if (!m) {
      std::this_thread::sleep_for(kPollInterval);
      continue;
    }
    if (m->tag == kRequest) {
      if (!waiting_.empty() || !handOut(m->source)) waiting_.push_back(m->source);
    } else if (isRecordKind(m->tag)) {
      if (RecordKind(m->tag) == RecordKind::Final) --running;
      if (storeFailed_) continue;  // nothing more can be recorded
      try {
        replayRecord({RecordKind(m->tag), std::move(m->body)}, committer);
      } catch (const StoreError&) {
        failed(std::current_exception());
      } catch (const std::exception& e) {  // a worker of another build: stop, say why
        failed(std::make_exception_ptr(
            StoreError("MPI rank " + std::to_string(m->source) + ": " + e.what())));
      }
    } else if (m->tag == kDone) {
      stopped(m->source);
    }
  }
  if (cancel) sendCancelOnce();
}

void MpiWorkers::finish() {
  for (int worker : waiting_) send(worker, kAssign, {});
  waiting_.clear();
  while (activeWorkers_ > 0) {
    std::optional<Message> m = poll(MPI_ANY_SOURCE);
    if (!m) {
      std::this_thread::sleep_for(kPollInterval);
      continue;
    }
    if (m->tag == kRequest) {
      send(m->source, kAssign, {});  // no more runs
    } else if (m->tag == kDone) {
      stopped(m->source);
    }
    // Records arrive here only when the runner stopped on an error with runs in flight: they
    // are not committed, and those runs stay unfinished in the database for a resume to redo.
  }
}

namespace {

// A worker's threads and its main thread (the only one calling MPI) meet here.
class WorkerMailbox {
 public:
  explicit WorkerMailbox(int threads) : running_(threads) {}

  // Worker threads.
  void post(WireRecord record) {
    std::lock_guard lock(mutex_);
    outbox_.push_back(std::move(record));
  }
  std::optional<RunJob> nextJob() {  // blocks until rank 0 answers
    std::unique_lock lock(mutex_);
    ++unrequested_;
    answered_.wait(lock, [this] { return !answers_.empty(); });
    std::optional<RunJob> job = answers_.front();
    answers_.pop_front();
    return job;
  }
  void threadEnded() {
    std::lock_guard lock(mutex_);
    --running_;
  }

  // Main thread: what to send now, and whether every thread ended with everything sent.
  struct Outgoing {
    std::deque<WireRecord> records;
    int requests = 0;
    bool finished = false;
  };
  Outgoing takeOutgoing() {
    std::lock_guard lock(mutex_);
    Outgoing out{std::move(outbox_), unrequested_, false};
    outbox_.clear();
    unrequested_ = 0;
    out.finished = running_ == 0 && out.records.empty();
    return out;
  }
  void answer(std::optional<RunJob> job) {
    {
      std::lock_guard lock(mutex_);
      answers_.push_back(job);
    }
    answered_.notify_one();
  }

 private:
  std::mutex mutex_;
  std::condition_variable answered_;
  std::deque<WireRecord> outbox_;
  std::deque<std::optional<RunJob>> answers_;
  int unrequested_ = 0;  // threads waiting for a run that rank 0 was not asked for yet
  int running_;
};

// The backbone checkpoint rank 0 sent, in a file of this worker's own (removed at the end).
class LocalCheckpoint {
 public:
  explicit LocalCheckpoint(const json& start) {
    if (!start.contains("checkpoint")) return;
    path_ = (std::filesystem::temp_directory_path() /
             ("paritylab-backbone-" + std::to_string(::getpid()) + ".ckpt"))
                .string();
    const auto& bytes = start.at("checkpoint").get_binary();
    std::ofstream out(path_, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    if (!out.flush()) throw std::runtime_error(path_ + ": cannot write the backbone checkpoint");
  }
  ~LocalCheckpoint() {
    if (!path_.empty()) std::filesystem::remove(path_);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace

bool runMpiWorker(const MpiSession& session, std::atomic<bool>& cancel,
                  const TrainFunction& trainFn) {
  const Message startMessage = await(0);
  if (startMessage.tag != kStart || startMessage.body.empty()) return false;
  const json start = json::from_cbor(startMessage.body);
  const StudySpec spec = parseStudySpec(start.at("spec").dump(), "<study from MPI rank 0>");
  const data::DataSplit data = data::loadDataset(spec.dataset);
  const LocalCheckpoint checkpoint(start);
  const TrainFunction train = trainFn ? trainFn : TrainFunction(&nn::train);
  const RunContext context{spec, data, train, cancel, checkpoint.path(), {}, 0.25};

  const int threads = session.threadsPerRank(spec.threads);
  WorkerMailbox mailbox(threads);
  WireRecorder recorder([&mailbox](WireRecord r) { mailbox.post(std::move(r)); });
  std::vector<std::thread> pool;
  pool.reserve(std::size_t(threads));
  for (int i = 0; i < threads; ++i) {
    pool.emplace_back([&] {
      while (!cancel) {
        const std::optional<RunJob> job = mailbox.nextJob();
        if (!job) break;
        trainRun(context, *job, recorder);  // cancelled meanwhile: recorded as cancelled
      }
      mailbox.threadEnded();
    });
  }

  for (;;) {
    WorkerMailbox::Outgoing out = mailbox.takeOutgoing();
    for (const WireRecord& r : out.records) send(0, int(r.kind), r.body);
    for (int i = 0; i < out.requests; ++i) send(0, kRequest, {});
    if (out.finished) break;
    bool received = false;
    while (std::optional<Message> m = poll(0)) {
      received = true;
      if (m->tag == kCancel) cancel = true;
      if (m->tag != kAssign) continue;
      if (m->body.empty()) {
        mailbox.answer(std::nullopt);
        continue;
      }
      const json a = json::from_cbor(m->body);
      mailbox.answer(RunJob{{a.at("backend").get<std::size_t>(), a.at("seed").get<std::uint64_t>()},
                            a.at("run").get<std::int64_t>()});
    }
    if (out.records.empty() && out.requests == 0 && !received)
      std::this_thread::sleep_for(kPollInterval);
  }
  for (std::thread& t : pool) t.join();
  send(0, kDone, {});
  while (await(0).tag != kBye) {
  }  // a cancel sent before rank 0 saw kDone
  return true;
}

}  // namespace paritylab::study::mpi
