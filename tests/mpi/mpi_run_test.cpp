// MPI runs through the built paritylab-cli under mpirun, as a user runs it:
// a study on 3 MPI ranks stores runs, epochs, steps and X-ray samples bit-identical to the single
// process run (wall times aside); killing the whole job after the first run is stored loses at
// most the runs in flight and `--resume` (under mpirun or not) completes the study without
// duplicates; SIGTERM (a batch system's time limit) ends the job with the database consistent;
// a sequential study stops at the same look with the same runs as in one process.

#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>
#include <vector>

#include "core/study/store/results_store.h"

namespace paritylab::study {
namespace {

namespace fs = std::filesystem;

class TempFolder {
 public:
  explicit TempFolder(const std::string& name)
      : path_(fs::temp_directory_path() /
              ("paritylab-mpi-test-" + std::to_string(::getpid()) + "-" + name)) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempFolder() { fs::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(file(name)) << text;
    return file(name);
  }

 private:
  fs::path path_;
};

// Starts `command` (run by /bin/sh, output to `log`) and returns its pid.
pid_t start(const std::string& command, const std::string& log) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    const std::string line = "exec " + command + " > '" + log + "' 2>&1";
    ::execl("/bin/sh", "sh", "-c", line.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return pid;
}

int waitExit(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int run(const std::string& command, const std::string& log) {
  return waitExit(start(command, log));
}

std::string readAll(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), {}};
}

std::string cli(const std::string& args) {
  return std::string("'") + PARITYLAB_CLI + "' run " + args;
}
std::string onThreeRanks(const std::string& args) {
  return std::string(PARITYLAB_MPIRUN) + " -np 3 " + cli(args);
}

// Runs stored with the given status.
int countRuns(const std::string& db, RunState state) {
  int n = 0;
  try {
    for (const RunRecord& r : ResultsStore::openReadOnly(db)->loadRuns()) n += r.status == state;
  } catch (const StoreError&) {  // not created yet
  }
  return n;
}

// Waits until `db` holds a completed run (true), or `pid` ended first (false).
bool awaitFirstCompletedRun(const std::string& db, pid_t pid) {
  for (int i = 0; i < 6000; ++i) {
    if (countRuns(db, RunState::Completed) > 0) return true;
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// The processes whose parent is `parent` (mpirun's ranks), from /proc.
std::vector<pid_t> childrenOf(pid_t parent) {
  std::vector<pid_t> children;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    std::getline(stat, line);
    const auto close = line.rfind(')');  // pid (comm) state ppid ...
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 1));
    std::string state;
    long ppid = 0;
    if (rest >> state >> ppid && ppid == parent) children.push_back(pid_t(std::stol(name)));
  }
  return children;
}

// Waits until the processes that claimed the running runs of `db` ("host:pid") have ended.
void awaitOwnerGone(const std::string& db) {
  std::vector<long> pids;
  sqlite3* handle = nullptr;
  if (sqlite3_open_v2(db.c_str(), &handle, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* s = nullptr;
    sqlite3_prepare_v2(handle, "SELECT claimed_by FROM runs WHERE status = 'running'", -1, &s,
                       nullptr);
    while (s && sqlite3_step(s) == SQLITE_ROW) {
      const std::string owner = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
      pids.push_back(std::stol(owner.substr(owner.rfind(':') + 1)));
    }
    sqlite3_finalize(s);
  }
  sqlite3_close(handle);
  for (long pid : pids)
    for (int i = 0; i < 500 && ::kill(pid_t(pid), 0) == 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

bool sameBits(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// Every run (by backend and seed) with its epochs, steps and X-ray samples equal, bit for bit,
// wall times aside; each run stored once.
void expectSameResults(const std::string& expectedDb, const std::string& actualDb) {
  auto expected = ResultsStore::openReadOnly(expectedDb);
  auto actual = ResultsStore::openReadOnly(actualDb);
  std::map<std::pair<std::string, std::uint64_t>, RunRecord> actualRuns;
  for (const RunRecord& r : actual->loadRuns())
    EXPECT_TRUE(actualRuns.insert({{r.backend, r.seed}, r}).second)
        << r.backend << " seed " << r.seed << " stored twice";
  const auto expectedRuns = expected->loadRuns();
  ASSERT_EQ(actualRuns.size(), expectedRuns.size());
  const auto expectedEpochs = expected->loadAllEpochs(), actualEpochs = actual->loadAllEpochs();
  const auto expectedSteps = expected->loadAllSteps(), actualSteps = actual->loadAllSteps();
  for (const RunRecord& e : expectedRuns) {
    const std::string run = e.backend + " seed " + std::to_string(e.seed);
    ASSERT_TRUE(actualRuns.count({e.backend, e.seed})) << run << " missing";
    const RunRecord& a = actualRuns.at({e.backend, e.seed});
    EXPECT_EQ(a.status, e.status) << run;
    EXPECT_EQ(a.epochsDone, e.epochsDone) << run;
    EXPECT_TRUE(sameBits(a.finalTrainLoss, e.finalTrainLoss)) << run;
    EXPECT_TRUE(sameBits(a.finalTestLoss, e.finalTestLoss)) << run;
    EXPECT_TRUE(sameBits(a.finalAccuracy, e.finalAccuracy)) << run;
    EXPECT_EQ(a.divergedEpoch, e.divergedEpoch) << run;
    EXPECT_EQ(a.message, e.message) << run;
    EXPECT_EQ(a.policyJson, e.policyJson) << run;
    const auto& ee = expectedEpochs.at(e.id);
    const auto& ae = actualEpochs.at(a.id);
    ASSERT_EQ(ae.size(), ee.size()) << run;
    for (std::size_t i = 0; i < ee.size(); ++i) {
      EXPECT_EQ(ae[i].epoch, ee[i].epoch) << run;
      EXPECT_TRUE(sameBits(ae[i].trainLoss, ee[i].trainLoss)) << run << " epoch " << ee[i].epoch;
      EXPECT_TRUE(sameBits(ae[i].testLoss, ee[i].testLoss)) << run << " epoch " << ee[i].epoch;
      EXPECT_TRUE(sameBits(ae[i].testAccuracy, ee[i].testAccuracy)) << run;
      EXPECT_EQ(ae[i].skippedSteps, ee[i].skippedSteps) << run;
    }
    const auto& es = expectedSteps.at(e.id);
    const auto& as = actualSteps.at(a.id);
    ASSERT_EQ(as.size(), es.size()) << run;
    for (std::size_t i = 0; i < es.size(); ++i) {
      EXPECT_EQ(as[i].step, es[i].step) << run;
      EXPECT_EQ(as[i].epoch, es[i].epoch) << run;
      EXPECT_TRUE(sameBits(as[i].trainLoss, es[i].trainLoss)) << run << " step " << es[i].step;
      EXPECT_TRUE(sameBits(as[i].lr, es[i].lr)) << run << " step " << es[i].step;
    }
    const auto ex = expected->loadXray(e.id), ax = actual->loadXray(a.id);
    ASSERT_EQ(ax.size(), ex.size()) << run;
    for (std::size_t i = 0; i < ex.size(); ++i) {
      EXPECT_EQ(ax[i].step, ex[i].step) << run;
      EXPECT_EQ(ax[i].site + ax[i].operand + ax[i].format,
                ex[i].site + ex[i].operand + ex[i].format);
      EXPECT_EQ(ax[i].xray.count, ex[i].xray.count) << run;
      EXPECT_EQ(ax[i].xray.flushed, ex[i].xray.flushed) << run;
      EXPECT_EQ(ax[i].xray.exponentBins, ex[i].xray.exponentBins) << run;
      EXPECT_TRUE(sameBits(ax[i].xray.amax, ex[i].xray.amax)) << run;
      EXPECT_TRUE(sameBits(ax[i].xray.errorEnergy, ex[i].xray.errorEnergy)) << run;
    }
  }
}

// 3 backends x 2 seeds, a few seconds in all; X-ray samples every 4th step.
const char* kTinyStudy = R"({"version": 1, "name": "tiny-mpi",
  "dataset": {"source": "synthetic", "train_size": 200, "test_size": 100},
  "model": "small-cnn", "epochs": 2, "batch_size": 50, "xray": {"every_steps": 4},
  "chaos_floor": false, "backends": ["cpu-fp32", "tpu-bf16", "gpu-amp-fp16"], "seeds": 2, "threads": 1})";

// 3 backends x 3 seeds of about a second each on an idle core (mlp, 3 x 6,000 images): long
// enough to be stopped half way even on a quiet machine (with 1,000 images the whole job ended
// before the signal arrived).
const char* kLongerStudy = R"({"version": 1, "name": "stopped-mpi",
  "dataset": {"source": "synthetic", "train_size": 6000, "test_size": 200},
  "model": "mlp", "epochs": 3, "batch_size": 50,
  "chaos_floor": false, "backends": ["cpu-fp32", "tpu-bf16", "gpu-tf32"], "seeds": 3, "threads": 1})";

// A sequential study (rounds of 3 seeds, a look after each) that shows equivalence at its second
// look: gpu-tf32 trains the mlp as cpu-fp32 does.
const char* kSequentialStudy = R"({"version": 1, "name": "sequential-mpi",
  "dataset": {"source": "synthetic", "train_size": 512, "test_size": 256},
  "model": "mlp", "epochs": 1, "batch_size": 64, "chaos_floor": false, "serve": false,
  "backends": ["cpu-fp32", "gpu-tf32"], "threads": 1,
  "sequential": {"margin": 0.015, "max_seeds": 9, "look_every": 3}})";

// Runs `spec` in one process (single.db) and on 3 ranks (mpi.db) in `dir`; the 3 ranks' output.
std::string inOneProcessAndOnThreeRanks(const TempFolder& dir, const char* spec) {
  const std::string study = dir.write("study.json", spec);
  EXPECT_EQ(run(cli("'" + study + "' --db '" + dir.file("single.db") + "'"), dir.file("1.log")), 0)
      << readAll(dir.file("1.log"));
  EXPECT_EQ(
      run(onThreeRanks("'" + study + "' --db '" + dir.file("mpi.db") + "'"), dir.file("3.log")), 0)
      << readAll(dir.file("3.log"));
  return readAll(dir.file("3.log"));
}

// The same study on 3 ranks and in one process.
TEST(MpiRun, ThreeRanksStoreTheSingleProcessResults) {
  const TempFolder dir("equal");
  const std::string out = inOneProcessAndOnThreeRanks(dir, kTinyStudy);
  EXPECT_NE(out.find("3 MPI ranks"), std::string::npos) << out;
  EXPECT_NE(out.find("Runs trained by the MPI workers: rank 1: "), std::string::npos) << out;
  EXPECT_EQ(countRuns(dir.file("mpi.db"), RunState::Completed), 6);
  EXPECT_FALSE(ResultsStore::openReadOnly(dir.file("mpi.db"))->loadXray().empty());
  expectSameResults(dir.file("single.db"), dir.file("mpi.db"));
}

// On 3 ranks a sequential study trains its rounds across the ranks, looks between them on rank 0
// and stops at the same look with the same runs, bit for bit, as in one process.
TEST(MpiRun, SequentialStudyStopsAtTheSameLookWithTheSingleProcessRuns) {
  const TempFolder dir("sequential");
  const std::string out = inOneProcessAndOnThreeRanks(dir, kSequentialStudy);
  EXPECT_NE(out.find("Stopped at look 2 of 3 (6 seeds each)"), std::string::npos) << out;
  EXPECT_EQ(out.find("Runs trained by the MPI workers: rank 1: 0, rank 2: 0"), std::string::npos)
      << out;
  EXPECT_EQ(countRuns(dir.file("mpi.db"), RunState::Completed), 12);  // 2 backends x 6 seeds
  expectSameResults(dir.file("single.db"), dir.file("mpi.db"));
}

// kill -9 of the whole job (mpirun and its ranks) once a run is stored, then
// --resume under mpirun: the study completes, each run once, equal to the single process run.
TEST(MpiRun, KilledJobResumesWithoutDuplicates) {
  const TempFolder dir("kill");
  const std::string study = dir.write("longer.json", kLongerStudy);
  const std::string db = dir.file("mpi.db");
  ASSERT_EQ(run(cli("'" + study + "' --db '" + dir.file("single.db") + "'"), dir.file("1.log")), 0);
  const pid_t job = start(onThreeRanks("'" + study + "' --db '" + db + "'"), dir.file("3.log"));
  ASSERT_TRUE(awaitFirstCompletedRun(db, job)) << readAll(dir.file("3.log"));
  for (pid_t rank : childrenOf(job)) ::kill(rank, SIGKILL);  // the whole job at once
  ::kill(job, SIGKILL);
  waitExit(job);
  awaitOwnerGone(db);  // the ranks are gone once the kernel has reaped them
  const int completedAtKill = countRuns(db, RunState::Completed);
  EXPECT_LT(completedAtKill, 9) << "the job ended before it was killed: nothing was tested";
  ASSERT_EQ(run(onThreeRanks("'" + study + "' --db '" + db + "' --resume"), dir.file("r.log")), 0)
      << readAll(dir.file("r.log"));
  const std::string out = readAll(dir.file("r.log"));
  EXPECT_NE(out.find(std::to_string(completedAtKill) + " runs were already finished and kept"),
            std::string::npos)
      << out;
  EXPECT_EQ(countRuns(db, RunState::Completed), 9);
  expectSameResults(dir.file("single.db"), db);
}

// SIGTERM to mpirun (as Slurm's time limit sends it) cancels cleanly: rank 0
// commits what arrived, no run is left marked running, and --resume without mpirun completes it.
TEST(MpiRun, SigtermEndsCleanlyAndAResumeWithoutMpiCompletes) {
  const TempFolder dir("term");
  const std::string study = dir.write("longer.json", kLongerStudy);
  const std::string db = dir.file("mpi.db");
  ASSERT_EQ(run(cli("'" + study + "' --db '" + dir.file("single.db") + "'"), dir.file("1.log")), 0);
  const pid_t job = start(onThreeRanks("'" + study + "' --db '" + db + "'"), dir.file("3.log"));
  ASSERT_TRUE(awaitFirstCompletedRun(db, job)) << readAll(dir.file("3.log"));
  ::kill(job, SIGTERM);
  EXPECT_NE(waitExit(job), 0);
  const std::string out = readAll(dir.file("3.log"));
  EXPECT_NE(out.find("Cancelled: finished runs are saved"), std::string::npos) << out;
  EXPECT_EQ(countRuns(db, RunState::Running), 0) << out;
  EXPECT_LT(countRuns(db, RunState::Completed), 9) << "the job ended before SIGTERM";
  ASSERT_EQ(run(cli("'" + study + "' --db '" + db + "' --resume"), dir.file("r.log")), 0)
      << readAll(dir.file("r.log"));
  EXPECT_EQ(countRuns(db, RunState::Completed), 9);
  expectSameResults(dir.file("single.db"), db);
}

}  // namespace
}  // namespace paritylab::study
