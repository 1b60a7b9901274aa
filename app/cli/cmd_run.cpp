// `paritylab-cli run [STUDY.json] --db FILE [--resume] [overrides]`: trains every backend x seed of
// a study, committing results as they happen; Ctrl-C and SIGTERM cancel cleanly. Under mpirun or
// srun (or with --mpi) the runs are shared among the MPI ranks (mpi_run.cpp).

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

#include "app/cli/command_registry.h"
#include "app/cli/number_options.h"
#include "app/cli/run_study.h"
#include "core/data/dataset_kinds.h"
#include "core/input/input_limits.h"
#include "core/nn/training_choices.h"
#include "core/stats/statistics.h"
#include "core/study/analysis/accuracies_by_backend.h"
#include "core/study/analysis/compared_metric.h"
#include "core/study/analysis/sequential_analysis.h"
#include "core/study/analysis/sweep_analysis.h"
#include "core/study/cluster/launcher_environment.h"
#include "core/study/files/study_report.h"
#include "core/study/run/study_runner.h"
#include "core/study/run/study_time.h"

namespace paritylab::cli {
namespace {

std::atomic<study::StudyRunner*> g_runner{nullptr};

extern "C" void onCancelSignal(int) {
  if (auto* r = g_runner.load()) r->cancel();
}

study::StudySpec buildSpec(const RunArgs& a) {
  study::StudySpec spec;
  if (!a.study.empty()) {
    spec = study::loadStudySpecFile(a.study);
  } else if (a.resume) {
    spec = study::ResultsStore::openReadOnly(a.db)->loadStudySpec();
  } else {
    spec = study::parseStudySpec(R"({"name": "cli", "backends": ["cpu-fp32", "gpu-tf32",
        "tpu-bf16"], "seeds": 5})",
                                 "<default study>");
  }
  applyTrainingFlags(a, spec);
  if (!a.backends.empty()) {
    spec.backends.clear();
    std::stringstream ss(a.backends);
    std::string name;
    while (std::getline(ss, name, ',')) {
      study::BackendEntry e;
      try {
        e.policy = backends::presetPolicy(name);
      } catch (const std::invalid_argument& ex) {
        throw study::SpecError(std::string("--backends: ") + ex.what());
      }
      e.name = name;
      e.policyJson = name;
      spec.backends.push_back(e);
    }
    spec.backends = study::sweptEntries(spec.backends, spec.sweep);
    study::rebuildChaosFloor(spec);
  }
  if (a.seeds && spec.sequential)
    throw study::SpecError("--seeds: a sequential study sets its seeds (sequential.max_seeds)");
  if (a.seeds) {
    spec.seeds.clear();
    for (int i = 0; i < *a.seeds; ++i) spec.seeds.push_back(std::uint64_t(i));
  }
  if (a.epochs) spec.train.epochs = *a.epochs;
  if (a.epochs && a.steps) throw study::SpecError("--epochs and --steps: give one of them");
  if (a.epochs) spec.train.steps = 0;
  if (a.steps) spec.train.steps = *a.steps;
  if (a.threads) spec.threads = *a.threads;
  if (a.noChaosFloor) {
    spec.chaosFloor.reset();
    study::rebuildChaosFloor(spec);
  }
  if (a.xrayEvery)
    spec.train.xrayEverySteps = *a.xrayEvery;
  else if (a.xray && spec.train.xrayEverySteps == 0)
    spec.train.xrayEverySteps = -1;  // about 50 samples per run
  study::requireDataForModel(spec, "<command line>");
  return spec;
}

// Progress: one redrawn line on a terminal, plain lines otherwise.
class Progress {
 public:
  // `languageModel`: runs are reported by their validation loss, not their accuracy. `atMost`:
  // `total` is the most the study may train (a sequential study stops at the look that decides).
  Progress(int total, std::vector<std::string> backends, bool languageModel, bool atMost)
      : total_(total),
        atMost_(atMost),
        languageModel_(languageModel),
        backends_(std::move(backends)),
        tty_(isatty(STDOUT_FILENO)),
        start_(std::chrono::steady_clock::now()) {}
  void runFinished(const study::RunStateEvent& e) {
    std::lock_guard lock(mutex_);
    ++done_;
    if (e.state == study::RunState::Completed)
      acc_[e.run.backend].push_back(languageModel_ ? e.finalTestLoss : e.finalAccuracy);
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    double eta = done_ > 0 ? elapsed / done_ * (total_ - done_) : 0;
    std::ostringstream line;
    if (tty_) {
      line << "\r[" << done_ << (atMost_ ? " of at most " : "/") << total_ << "] ETA "
           << (atMost_ ? "at most " : "") << int(eta) << "s ";
      for (auto& b : backends_) {
        auto& v = acc_[b];
        if (v.empty()) continue;
        double m = 0;
        for (double x : v) m += x;
        char buf[64];
        if (languageModel_)
          std::snprintf(buf, sizeof buf, " %s %.4f nats", b.c_str(), m / v.size());
        else
          std::snprintf(buf, sizeof buf, " %s %.2f%%", b.c_str(), 100 * m / v.size());
        line << buf;
      }
      line << "\x1b[K";
    } else {
      char buf[256];
      std::snprintf(buf, sizeof buf, "[%d%s%d] %s seed %llu: %s", done_,
                    atMost_ ? " of at most " : "/", total_, e.run.backend.c_str(),
                    (unsigned long long)e.run.seed, std::string(study::toString(e.state)).c_str());
      line << buf;
      if (e.state == study::RunState::Completed) {
        if (languageModel_)
          std::snprintf(buf, sizeof buf, ", validation loss %.4f nats in %.1fs", e.finalTestLoss,
                        e.wallSeconds);
        else
          std::snprintf(buf, sizeof buf, ", accuracy %.2f%% in %.1fs", 100 * e.finalAccuracy,
                        e.wallSeconds);
        line << buf;
      }
      if (!e.message.empty()) line << " (" << e.message << ")";
      line << "\n";
    }
    std::cout << line.str() << std::flush;
  }
  void end() {
    if (tty_) std::cout << "\n";
  }

 private:
  int total_, done_ = 0;
  bool atMost_;
  bool languageModel_;
  std::vector<std::string> backends_;
  bool tty_;
  std::chrono::steady_clock::time_point start_;
  std::map<std::string, std::vector<double>> acc_;
  std::mutex mutex_;
};

// Each backend's final values of the study's compared metric (accuracy, or a language model's
// validation loss) and the verdict of each against the reference.
void printSummary(const study::ResultsStore& store) {
  const study::ComparedMetric metric = study::defaultComparedMetric(store);
  const stats::MetricWords w = study::metricWords(metric);
  auto groups = study::finalMetricByBackend(store, metric);
  // "mean %" for accuracy, "mean nats" for a loss, "mean" for perplexity.
  const std::string unit = w.valueSuffix == "%" ? " %" : w.unit.empty() ? "" : " " + w.unit;
  // The backend column as wide as its longest name ("nvfp4-no-hadamard"), at least 16.
  int width = 16;
  for (const auto& group : groups) width = std::max(width, int(group.first.size()));
  std::printf("\n%-*s %4s %10s %8s %10s %10s\n", width, "backend", "n", ("mean" + unit).c_str(),
              "sd", ("min" + unit).c_str(), ("max" + unit).c_str());
  std::vector<std::string> names;
  stats::MetricWords value = w, spread = w;
  value.decimals += 1;
  spread.decimals += 2;
  for (auto& [name, v] : groups) {
    names.push_back(name);
    auto s = stats::summarize(v);
    std::printf("%-*s %4zu %10s %8s %10s %10s\n", width, name.c_str(), s.n,
                value.amount(s.mean).c_str(), spread.amount(std::isnan(s.sd) ? 0 : s.sd).c_str(),
                value.amount(s.min).c_str(), value.amount(s.max).c_str());
  }
  if (store.hasStudy()) {  // a sweep's verdict is about the grid, not each cell against the first
    const study::StudySpec spec = store.loadStudySpec();
    if (spec.sequential) {
      for (const std::string& sentence : study::analyseSequential(spec, store.loadRuns()).words)
        std::printf("%s\n", sentence.c_str());
      std::printf("(each look: paritylab-cli stats DB --sequential)\n");
      return;
    }
    if (!spec.sweep.empty()) {
      study::SweepOptions sweep;
      sweep.metric = metric;
      for (const std::string& sentence : study::analyseSweep(spec, store.loadRuns(), sweep).verdict)
        std::printf("%s\n", sentence.c_str());
      std::printf("(the table and the ANOVA: paritylab-cli stats DB --sweep)\n");
      return;
    }
  }
  std::string ref = study::referenceBackend(names);
  stats::CompareOptions options;
  options.words = w;
  for (auto& [name, v] : groups) {
    if (name == ref) continue;
    for (auto& [rn, rv] : groups)
      if (rn == ref)
        std::printf("%s\n", stats::compareSamples(name, v, ref, rv, options).verdict.c_str());
  }
}

}  // namespace

void runStudy(const RunArgs& a, const RunTransport& transport) {
  study::StudySpec spec;
  std::unique_ptr<study::ResultsStore> store;
  study::StudyShard shard;
  bool created = false;  // by this command: deleted again if it fails before any result
  const auto discardIfCreated = [&] {
    store.reset();
    if (created) study::removeDatabaseWithoutResults(a.db);
  };
  try {
    study::requireDatabaseFilePath(a.db, "--db");
    if (!a.shard.empty()) shard = study::parseShard(a.shard);
    spec = buildSpec(a);
    study::requireDistinctRuns(spec);
    study::validateDataset(spec);
    if (!shard.whole() && study::shardRunsOf(spec, shard).empty()) {
      throw study::SpecError("--shard " + shard.text() + ": this shard has none of the study's " +
                             std::to_string(spec.backends.size() * spec.seeds.size()) +
                             " runs (more shards than runs); use fewer shards");
    }
    created = !std::filesystem::exists(a.db);
    store = study::ResultsStore::open(a.db, true);
    for (const std::string& note : store->openNotes()) std::printf("%s\n", note.c_str());
  } catch (const std::exception& ex) {
    discardIfCreated();
    throw CommandError(ex.what());
  }
  const int total = int(study::shardRunsOf(spec, shard).size());
  std::vector<std::string> names;
  for (auto& b : spec.backends) names.push_back(b.name);
  Progress progress(total, names, nn::isLanguageModel(spec.train.model),
                    spec.sequential.has_value());
  study::RunnerCallbacks cb;
  cb.onRunState = [&](const study::RunStateEvent& e) {
    if (e.state != study::RunState::Running && e.state != study::RunState::Pending)
      progress.runFinished(e);
  };
  study::StudyRunner runner(spec, *store, cb);
  runner.setShard(shard);
  runner.setReclaimOtherHosts(a.reclaim);
  std::string how = transport.description;
  if (transport.threadsFor) {
    const int threads = transport.threadsFor(spec.threads);
    runner.setThreads(threads);
    how += "; rank 0 trains with " + std::to_string(threads) + " thread" + (threads > 1 ? "s" : "");
  }
  // The study's size as the app and `run --estimate` say it ("at most" for a sequential study).
  std::printf("Study '%s': %s, results in %s (emulated backends%s)\n", spec.name.c_str(),
              study::describeStudyTime(spec, study::StudyTimeEstimate{}).c_str(), a.db.c_str(),
              how.c_str());
  if (const std::string cost = study::chaosFloorCost(spec); !cost.empty())
    std::printf("Chaos floor: %s\n", cost.c_str());
  if (spec.lockstep && shard.index == 1) {
    const study::LockstepStudy& l = *spec.lockstep;
    std::string modes;
    for (const std::string& m : l.modes) modes += (modes.empty() ? "" : " and ") + m;
    std::printf(
        "Lockstep: %s against %s, %lld steps, %s, before the runs (`paritylab-cli lockstep "
        "--from %s` shows it)\n",
        l.backend.c_str(), l.reference.c_str(), static_cast<long long>(l.steps), modes.c_str(),
        a.db.c_str());
  }
  if (!shard.whole())
    std::printf(
        "Shard %s: %d of the study's %zu runs (join the shards with `paritylab-cli merge`)\n",
        shard.text().c_str(), total, spec.backends.size() * spec.seeds.size());
  std::fflush(stdout);
  g_runner = &runner;
  // Ctrl-C, and SIGTERM (a batch system's time limit, mpirun passing on either): cancel cleanly.
  auto previousInt = std::signal(SIGINT, onCancelSignal);
  auto previousTerm = std::signal(SIGTERM, onCancelSignal);
  const auto restoreSignals = [&] {
    std::signal(SIGINT, previousInt);
    std::signal(SIGTERM, previousTerm);
    g_runner = nullptr;
  };
  study::RunnerSummary s;
  try {
    s = runner.run(a.resume, transport.remote);
  } catch (const std::exception& ex) {
    restoreSignals();
    discardIfCreated();
    throw CommandError(ex.what());
  }
  restoreSignals();
  progress.end();
  if (s.skipped) std::printf("%d runs were already finished and kept.\n", s.skipped);
  if (s.elsewhere)
    std::printf("%d runs were taken by another process working on %s.\n", s.elsewhere,
                a.db.c_str());
  std::printf("%d completed, %d diverged, %d failed, %d cancelled.\n", s.completed, s.diverged,
              s.failed, s.cancelled);
  if (s.wasCancelled) {
    std::printf(
        "Cancelled: finished runs are saved. Continue with:\n  paritylab-cli run %s--db %s "
        "--resume%s\n",
        a.study.empty() ? "" : (a.study + " ").c_str(), a.db.c_str(),
        shard.whole() ? "" : (" --shard " + shard.text()).c_str());
    throw CommandError("cancelled", 130);
  }
  if (!shard.whole())
    std::printf(
        "\nShard %s only (the statistics below are on its runs; merge the shards for the "
        "study's):",
        shard.text().c_str());
  printSummary(*store);
  // Nothing to compare: a study whose every run failed did not succeed.
  if (s.failed > 0 && s.completed == 0 && s.diverged == 0) {
    throw CommandError("every run failed (" + std::to_string(s.failed) +
                       "; the reasons are above and in " + a.db + ")");
  }
}

void printStudyEstimate(const RunArgs& a) {
  study::StudySpec spec;
  data::DataSplit data;
  try {
    spec = buildSpec(a);
    study::requireDistinctRuns(spec);
    study::validateDataset(spec);
    data = data::loadDataset(spec.dataset);
  } catch (const std::exception& ex) {
    throw CommandError(ex.what());
  }
  std::printf("%s: %s\n", spec.name.c_str(),
              study::describeStudyTime(spec, study::StudyTimeEstimate{}).c_str());
  std::fflush(stdout);
  study::StudyTimeEstimate e;
  try {
    e = study::estimateStudyTime(spec, data, a.threads.value_or(0));
  } catch (const std::invalid_argument& ex) {
    throw CommandError(ex.what());
  }
  std::printf("%s\n", study::describeStudyTime(spec, e).c_str());
}

namespace {

const CommandRegistration reg{
    "run", 50, [](CLI::App& root) {
      auto* cmd =
          root.add_subcommand("run", "Train a study (backends x seeds) into a results database");
      auto a = std::make_shared<RunArgs>();
      cmd->add_option("study", a->study, "Study JSON (see docs/study-spec.md)");
      auto* db = cmd->add_option("--db", a->db, "Results database (required unless --estimate)");
      cmd->add_flag("--estimate", a->estimate,
                    "Print the study's size (runs per cell, backend and seed) and its training "
                    "time, from a few steps of each backend and batch size timed here; train "
                    "nothing");
      cmd->add_flag("--resume", a->resume, "Continue a study: keep finished runs, redo unfinished");
      cmd->add_option("--shard", a->shard,
                      "K/N: train only the K-th of N shares of the study (K = 1..N; join the "
                      "shard databases with `merge`)");
      cmd->add_option("--dataset", a->dataset,
                      "Dataset source (" + data::datasetSourceForms() + ")");
      addIntegerOption(cmd, "--train-size", a->trainSize, {0, input::kMaxDatasetImages},
                       "Training images (0 = all)");
      addIntegerOption(cmd, "--test-size", a->testSize, {0, input::kMaxDatasetImages},
                       "Test images (0 = all)");
      cmd->add_option("--model", a->model, nn::joinedNames(nn::kModelNames, " | "));
      cmd->add_option("--backends", a->backends, "Comma-separated presets, e.g. cpu-fp32,tpu-bf16");
      addIntegerOption(cmd, "--seeds", a->seeds, {1, input::kMaxSeeds}, "Seeds 0..N-1");
      addIntegerOption(cmd, "--epochs", a->epochs, {1, input::kMaxEpochs}, "Epochs");
      addIntegerOption(cmd, "--steps", a->steps, {1, input::kMaxSteps},
                       "Train exactly this many steps instead of epochs (nanoGPT's iterations)");
      addIntegerOption(cmd, "--n-layer", a->nLayer, {1, input::kMaxGptLayers},
                       "gpt: transformer blocks (default 4)");
      addIntegerOption(cmd, "--n-head", a->nHead, {1, input::kMaxGptHeads},
                       "gpt: attention heads (default 4)");
      addIntegerOption(cmd, "--n-embd", a->nEmbd, {1, input::kMaxGptEmbedding},
                       "gpt: embedding width, a multiple of --n-head (default 128)");
      addIntegerOption(cmd, "--block-size", a->blockSize, {1, input::kMaxGptBlockSize},
                       "gpt: tokens of context per window (default 64)");
      addIntegerOption(cmd, "--batch", a->batch, {1, input::kMaxBatchSize}, "Batch size");
      addIntegerOption(cmd, "--eval-batch", a->evalBatch, {1, input::kMaxBatchSize},
                       "Evaluation batch size (default 1000, or --batch for --model gpt)");
      addRealOption(cmd, "--lr", a->lr, {0, input::kMaxHyperparameter, true}, "Learning rate");
      addIntegerOption(cmd, "--threads", a->threads, {0, input::kMaxThreads},
                       "Worker threads (0 = one per core)");
      cmd->add_flag("--xray", a->xray,
                    "X-ray every matrix product, about 50 sampled steps per run (see `xray`)");
      cmd->add_flag("--no-chaos-floor", a->noChaosFloor,
                    "Leave out the chaos floor (the first backend again with one weight one ulp "
                    "off and with reversed sums: 2 more runs per seed; docs/chaos-floor.md)");
      addIntegerOption(cmd, "--xray-every", a->xrayEvery, {1, 1'000'000},
                       "X-ray every N-th training step");
      cmd->add_flag("--reclaim", a->reclaim,
                    "With --resume: also redo runs claimed on other hosts (a killed cluster job's; "
                    "only when none of its processes still runs)")
          ->needs("--resume");
      cmd->add_flag("--mpi", a->mpi,
                    "Share the runs among MPI ranks (automatic under mpirun or srun; see "
                    "docs/cluster.md)");
      cmd->callback([a, db] {
        if (a->estimate) return printStudyEstimate(*a);
        // Given but empty, the path check names it ("'' is not a plain file path").
        if (db->count() == 0) throw CommandError("run: --db is required (the results database)", 2);
        const std::string launcher = study::mpiLauncherVariable();
        if (!a->mpi && launcher.empty()) return runStudy(*a);
#if PARITYLAB_HAS_MPI
        runStudyOnMpi(*a);
#else
        throw CommandError(study::mpiNotBuiltMessage(launcher, "--mpi"), 2);
#endif
      });
    }};

}  // namespace
}  // namespace paritylab::cli
