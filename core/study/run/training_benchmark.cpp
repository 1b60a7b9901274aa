#include "core/study/run/training_benchmark.h"

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "core/data/shuffle.h"
#include "core/data/text_split.h"
#include "core/data/text_windows.h"
#include "core/nn/optimizer.h"
#include "core/nn/training_choices.h"
#include "core/nn/training_session.h"
#include "core/study/run/thread_pool.h"

namespace paritylab::study {

namespace {

using Clock = std::chrono::steady_clock;

void validate(const ThroughputConfig& c, const data::Dataset& train, bool text) {
  auto positive = [](const char* field, int value) {
    if (value < 1)
      throw std::invalid_argument(std::string(field) + " must be >= 1, got " +
                                  std::to_string(value));
  };
  positive("batch", c.batchSize);
  positive("steps", c.steps);
  positive("threads", c.threads);
  if (c.warmupSteps < 0)
    throw std::invalid_argument("warmup must be >= 0, got " + std::to_string(c.warmupSteps));
  if (text) return;  // windows are drawn, any batch size fits
  if (train.size() == 0) throw std::invalid_argument("the training data is empty");
  if (std::size_t(c.batchSize) > train.size())
    throw std::invalid_argument("batch " + std::to_string(c.batchSize) + " is larger than the " +
                                std::to_string(train.size()) + " training images");
}

// One worker: its own session, optimizer and batch buffers; warm-up, then the timed steps.
struct Worker {
  nn::TrainingSession session;
  std::unique_ptr<nn::Optimizer> optimizer;
  std::vector<nn::ParamStore::Range> ranges;
  std::vector<std::uint32_t> order;
  std::vector<float> images;         // [batch, C, H, W], or a text's windows [batch, T]
  std::vector<std::int32_t> labels;  // [batch], or the windows' targets [batch, T]
  std::vector<std::int32_t> tokens;  // text: the windows' inputs as ids
  const data::TextSplit* text;       // null for images
  std::uint64_t seed;
  std::size_t cursor = 0;
  std::uint64_t step = 0;
  double seconds = 0.0;
  std::int64_t skipped = 0;
  std::size_t records = 0;  // X-ray records taken
  bool diverged = false;
  int signalsEvery = 0;     // early warnings: every N-th step measured (0: none)
  nn::StepSignals signals;  // what a study hands to the store (not written)

  Worker(const nn::ModelSpec& spec, const backends::PrecisionPolicy& policy,
         const ThroughputConfig& c, const data::Dataset& train, const data::TextSplit* textSplit,
         std::uint64_t workerSeed)
      : session(spec, policy, workerSeed),
        optimizer(nn::makeOptimizer(c.optimizer)),
        ranges(session.model().params.weightRanges(false)),
        order(textSplit ? std::vector<std::uint32_t>{}
                        : data::shuffledIndices(train.size(), workerSeed)),
        images(std::size_t(c.batchSize) * session.model().input.itemSize()),
        labels(std::size_t(c.batchSize) * std::size_t(session.model().targetsPerItem)),
        tokens(textSplit ? images.size() : 0),
        text(textSplit),
        seed(workerSeed) {
    if (c.xrayEverySteps > 0) session.enableXray(c.xrayEverySteps);
    signalsEvery = c.signalsEverySteps;
  }

  void fillWindows() {
    const std::vector<std::size_t> offsets =
        data::trainingWindowOffsets(text->corpus, text->blockSize,
                                    int(images.size() / std::size_t(text->blockSize)), seed, step);
    data::fillWindows(text->corpus.train, offsets, text->blockSize, tokens.data(), labels.data());
    std::copy(tokens.begin(), tokens.end(), images.begin());
  }

  void trainStep(const data::Dataset& train, double lr) {
    const std::size_t item = train.imageSize();
    const int count = int(images.size() / session.model().input.itemSize());
    if (text) fillWindows();
    for (std::size_t i = 0; !text && i < labels.size(); ++i) {
      const std::uint32_t src = order[cursor];
      cursor = (cursor + 1) % order.size();
      std::copy(train.image(src), train.image(src) + item, images.data() + i * item);
      labels[i] = train.labels[src];
    }
    const bool measured = signalsEvery > 0 && (step + 1) % std::uint64_t(signalsEvery) == 0;
    const nn::StepOutcome out =
        session.step(images.data(), labels.data(), count, step++, *optimizer, lr, ranges, 0.0,
                     measured ? &signals : nullptr);
    records += session.takeXray().size();  // what a study hands to the store (not written)
    skipped += out.skipped ? 1 : 0;
    diverged = diverged || out.diverged;
  }
};

// The model the measurement trains: config.model with the data's input shape and classes (a
// text's block size); throws when the model does not read this kind of data.
nn::ModelSpec modelSpecFor(const ThroughputConfig& config, const data::Dataset& train,
                           const data::TextSplit* text) {
  validate(config, train, text != nullptr);
  nn::ModelSpec spec = config.model;
  spec.channels = train.channels;
  spec.height = train.height;
  spec.width = train.width;
  spec.numClasses = train.numClasses;
  if (nn::isLanguageModel(spec.name) != (text != nullptr))
    throw std::invalid_argument("model '" + spec.name + "' does not read " +
                                (text ? "text" : "images"));
  if (text) spec.gpt.blockSize = text->blockSize;
  nn::makeOptimizer(config.optimizer);  // names a bad optimizer before any thread starts
  return spec;
}

// Adds a worker's own throughput over its `steps` timed steps, which took `seconds`.
void addWorker(ThroughputResult& r, const Worker& w, int steps, double seconds) {
  const double images = double(steps) * r.batchSize;
  r.workerImagesPerSecond.push_back(images / seconds);
  r.skippedSteps += w.skipped;
  r.diverged = r.diverged || w.diverged;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
}

ThroughputResult measureThroughput(const ThroughputConfig& config,
                                   const backends::PrecisionPolicy& policy,
                                   const data::Dataset& train, const data::TextSplit* text) {
  const nn::ModelSpec spec = modelSpecFor(config, train, text);

  std::vector<std::unique_ptr<Worker>> workers;
  workers.reserve(std::size_t(config.threads));
  for (int t = 0; t < config.threads; ++t) {
    workers.push_back(std::make_unique<Worker>(spec, policy, config, train, text,
                                               data::mixSeed(config.seed, std::uint64_t(t))));
  }

  // Everyone warms up, waits for the others, then runs the timed steps from a common start.
  Clock::time_point start;
  std::barrier sync(config.threads, [&start]() noexcept { start = Clock::now(); });
  std::vector<Clock::time_point> ends(workers.size());
  {
    ThreadPool pool(config.threads);
    for (std::size_t t = 0; t < workers.size(); ++t) {
      pool.submit([&, t] {
        Worker& w = *workers[t];
        const double lr = config.optimizer.lr;
        for (int s = 0; s < config.warmupSteps; ++s) w.trainStep(train, lr);
        sync.arrive_and_wait();
        const auto mine = Clock::now();
        for (int s = 0; s < config.steps; ++s) w.trainStep(train, lr);
        ends[t] = Clock::now();
        w.seconds = std::chrono::duration<double>(ends[t] - mine).count();
      });
    }
    pool.wait();
  }

  ThroughputResult r;
  r.threads = config.threads;
  r.batchSize = config.batchSize;
  r.steps = config.steps;
  r.wallSeconds =
      std::chrono::duration<double>(*std::max_element(ends.begin(), ends.end()) - start).count();
  const double imagesPerWorker = double(config.steps) * config.batchSize;
  r.imagesPerSecond = imagesPerWorker * config.threads / r.wallSeconds;
  r.tokensPerSecond = text ? r.imagesPerSecond * text->blockSize : 0.0;
  std::vector<double> stepMs;
  for (const auto& w : workers) {
    addWorker(r, *w, config.steps, w->seconds);
    stepMs.push_back(1000.0 * w->seconds / config.steps);
  }
  r.stepMilliseconds = median(stepMs);
  return r;
}

// One session's result over the rounds: `seconds` of timed steps in all.
ThroughputResult sessionResult(const ThroughputConfig& config, const Worker& w, int steps,
                               double seconds, const data::TextSplit* text) {
  ThroughputResult r;
  r.threads = 1;
  r.batchSize = config.batchSize;
  r.steps = steps;
  r.wallSeconds = seconds;
  addWorker(r, w, steps, seconds);
  r.imagesPerSecond = r.workerImagesPerSecond.front();
  r.tokensPerSecond = text ? r.imagesPerSecond * text->blockSize : 0.0;
  r.stepMilliseconds = 1000.0 * seconds / steps;
  return r;
}

}  // namespace

RelativeThroughput measureRelativeThroughput(const ThroughputConfig& config, int rounds,
                                             const backends::PrecisionPolicy& policy,
                                             const backends::PrecisionPolicy& reference,
                                             const data::DataSplit& data) {
  if (rounds < 1) throw std::invalid_argument("rounds must be >= 1, got " + std::to_string(rounds));
  if (config.threads != 1) {
    throw std::invalid_argument(
        "threads must be 1 to time against a reference (the two sessions "
        "take turns on one thread), got " +
        std::to_string(config.threads));
  }
  const data::TextSplit* text = data.text.get();
  const nn::ModelSpec spec = modelSpecFor(config, data.train, text);
  const std::uint64_t seed = data::mixSeed(config.seed, 0);
  Worker measured(spec, policy, config, data.train, text, seed);
  Worker against(spec, reference, config, data.train, text, seed);
  const auto count = static_cast<std::size_t>(rounds);
  std::vector<double> measuredSeconds(count), againstSeconds(count);
  {
    ThreadPool pool(1);  // a worker thread, as a study's runs and measureTrainingThroughput's
    pool.submit([&] {
      const double lr = config.optimizer.lr;
      const auto timed = [&](Worker& w) {
        const auto begin = Clock::now();
        for (int s = 0; s < config.steps; ++s) w.trainStep(data.train, lr);
        return std::chrono::duration<double>(Clock::now() - begin).count();
      };
      for (Worker* w : {&against, &measured})
        for (int s = 0; s < config.warmupSteps; ++s) w->trainStep(data.train, lr);
      for (std::size_t r = 0; r < count; ++r) {
        if (r % 2 == 0) {
          againstSeconds[r] = timed(against);
          measuredSeconds[r] = timed(measured);
        } else {
          measuredSeconds[r] = timed(measured);
          againstSeconds[r] = timed(against);
        }
      }
    });
    pool.wait();
  }
  RelativeThroughput result;
  const int steps = rounds * config.steps;
  const auto total = [](const std::vector<double>& v) {
    return std::accumulate(v.begin(), v.end(), 0.0);
  };
  result.policy = sessionResult(config, measured, steps, total(measuredSeconds), text);
  result.reference = sessionResult(config, against, steps, total(againstSeconds), text);
  for (std::size_t r = 0; r < count; ++r)
    result.ratios.push_back(againstSeconds[r] / measuredSeconds[r]);  // equal steps: speed ratio
  result.medianRatio = median(result.ratios);
  return result;
}

ThroughputResult measureTrainingThroughput(const ThroughputConfig& config,
                                           const backends::PrecisionPolicy& policy,
                                           const data::Dataset& train) {
  return measureThroughput(config, policy, train, nullptr);
}

ThroughputResult measureTrainingThroughput(const ThroughputConfig& config,
                                           const backends::PrecisionPolicy& policy,
                                           const data::DataSplit& data) {
  return measureThroughput(config, policy, data.train, data.text.get());
}

}  // namespace paritylab::study
