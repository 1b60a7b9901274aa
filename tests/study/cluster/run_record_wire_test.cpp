// The MPI transport's wire format (core/study/cluster/run_record_wire.h): every
// RunRecorder call survives encoding and decoding bit for bit, on hand-picked edge values and on
// what a real (tiny) run with the X-ray on records; a damaged record is refused naming its kind.

#include "core/study/cluster/run_record_wire.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <tuple>

#include "core/study/run/run_training.h"
#include "tests/study/same_bits.h"

namespace paritylab::study {
namespace {

using testing::sameBits;

// The same bits (NaN: any NaN, as the wire keeps NaN but not its payload).
// Keeps every call it receives, in order.
struct CapturingRecorder final : RunRecorder {
  std::vector<std::pair<std::int64_t, std::vector<StepRecord>>> steps;
  std::vector<std::pair<std::int64_t, EpochRecord>> epochs;
  std::vector<std::pair<std::int64_t, nn::XraySample>> xrays;
  std::vector<RunRecord> finals;
  std::vector<std::pair<std::int64_t, nn::TestPredictions>> predictions;
  std::vector<std::tuple<std::int64_t, int, std::vector<stats::LayerWeights>>> weights;
  std::vector<std::pair<std::int64_t, nn::TextSample>> samples;
  std::vector<std::tuple<std::int64_t, std::vector<std::string>, std::vector<SignalRecord>>>
      signals;
  void addSignals(std::int64_t runId, const std::vector<std::string>& layers,
                  const std::vector<SignalRecord>& s) override {
    signals.emplace_back(runId, layers, s);
  }
  std::vector<std::pair<std::int64_t, std::vector<ServingRecord>>> serving;
  void addServing(std::int64_t runId, const std::vector<ServingRecord>& rows) override {
    serving.emplace_back(runId, rows);
  }
  void addSample(std::int64_t runId, const nn::TextSample& s) override {
    samples.emplace_back(runId, s);
  }
  void addSteps(std::int64_t runId, const std::vector<StepRecord>& s) override {
    steps.emplace_back(runId, s);
  }
  void addEpoch(std::int64_t runId, const EpochRecord& e) override {
    epochs.emplace_back(runId, e);
  }
  void addXraySample(std::int64_t runId, const nn::XraySample& x) override {
    xrays.emplace_back(runId, x);
  }
  void finishRun(const RunRecord& r) override { finals.push_back(r); }
  void addPredictions(std::int64_t runId, const nn::TestPredictions& p) override {
    predictions.emplace_back(runId, p);
  }
  void addWeightSnapshot(std::int64_t runId, int epoch,
                         const std::vector<stats::LayerWeights>& layers) override {
    weights.emplace_back(runId, epoch, layers);
  }
};

bool sameFloatBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

// Encodes through a WireRecorder and replays every message into `into`.
struct Loopback {
  CapturingRecorder into;
  WireRecorder wire{[this](WireRecord r) { replayRecord(r, into); }};
};

void expectSameXray(const numerics::TensorXray& a, const numerics::TensorXray& b) {
  EXPECT_EQ(a.count, b.count);
  EXPECT_EQ(a.zeros, b.zeros);
  EXPECT_EQ(a.nonFinite, b.nonFinite);
  EXPECT_EQ(a.exponentBins, b.exponentBins);
  EXPECT_TRUE(sameBits(a.amax, b.amax));
  EXPECT_TRUE(sameBits(a.minNonzero, b.minNonzero));
  EXPECT_EQ(a.flushed, b.flushed);
  EXPECT_EQ(a.subnormal, b.subnormal);
  EXPECT_EQ(a.overflowed, b.overflowed);
  EXPECT_TRUE(sameBits(a.signalEnergy, b.signalEnergy));
  EXPECT_TRUE(sameBits(a.errorEnergy, b.errorEnergy));
  EXPECT_TRUE(sameBits(a.maxRelativeError, b.maxRelativeError));
}

void expectSameRecords(const CapturingRecorder& a, const CapturingRecorder& b) {
  ASSERT_EQ(a.steps.size(), b.steps.size());
  for (std::size_t i = 0; i < a.steps.size(); ++i) {
    EXPECT_EQ(a.steps[i].first, b.steps[i].first);
    ASSERT_EQ(a.steps[i].second.size(), b.steps[i].second.size());
    for (std::size_t k = 0; k < a.steps[i].second.size(); ++k) {
      const StepRecord &x = a.steps[i].second[k], &y = b.steps[i].second[k];
      EXPECT_EQ(x.step, y.step);
      EXPECT_EQ(x.epoch, y.epoch);
      EXPECT_TRUE(sameBits(x.trainLoss, y.trainLoss)) << x.trainLoss << " " << y.trainLoss;
      EXPECT_TRUE(sameBits(x.lr, y.lr));
    }
  }
  ASSERT_EQ(a.epochs.size(), b.epochs.size());
  for (std::size_t i = 0; i < a.epochs.size(); ++i) {
    const EpochRecord &x = a.epochs[i].second, &y = b.epochs[i].second;
    EXPECT_EQ(a.epochs[i].first, b.epochs[i].first);
    EXPECT_EQ(x.epoch, y.epoch);
    EXPECT_TRUE(sameBits(x.trainLoss, y.trainLoss));
    EXPECT_TRUE(sameBits(x.testLoss, y.testLoss));
    EXPECT_TRUE(sameBits(x.testAccuracy, y.testAccuracy));
    EXPECT_TRUE(sameBits(x.seconds, y.seconds));
    EXPECT_EQ(x.skippedSteps, y.skippedSteps);
  }
  ASSERT_EQ(a.xrays.size(), b.xrays.size());
  for (std::size_t i = 0; i < a.xrays.size(); ++i) {
    const nn::XraySample &x = a.xrays[i].second, &y = b.xrays[i].second;
    EXPECT_EQ(a.xrays[i].first, b.xrays[i].first);
    EXPECT_EQ(x.step, y.step);
    EXPECT_EQ(x.epoch, y.epoch);
    ASSERT_EQ(x.records.size(), y.records.size());
    for (std::size_t k = 0; k < x.records.size(); ++k) {
      EXPECT_EQ(x.records[k].site, y.records[k].site);
      EXPECT_EQ(x.records[k].operand, y.records[k].operand);
      EXPECT_EQ(x.records[k].format, y.records[k].format);
      expectSameXray(x.records[k].xray, y.records[k].xray);
    }
  }
  ASSERT_EQ(a.predictions.size(), b.predictions.size());  // the divergence analysis's records
  for (std::size_t i = 0; i < a.predictions.size(); ++i) {
    EXPECT_EQ(a.predictions[i].first, b.predictions[i].first);
    EXPECT_EQ(a.predictions[i].second.predicted, b.predictions[i].second.predicted);
    EXPECT_TRUE(sameFloatBits(a.predictions[i].second.trueClassProbability,
                              b.predictions[i].second.trueClassProbability));
  }
  ASSERT_EQ(a.weights.size(), b.weights.size());
  for (std::size_t i = 0; i < a.weights.size(); ++i) {
    EXPECT_EQ(std::get<0>(a.weights[i]), std::get<0>(b.weights[i]));
    EXPECT_EQ(std::get<1>(a.weights[i]), std::get<1>(b.weights[i]));
    const auto &x = std::get<2>(a.weights[i]), &y = std::get<2>(b.weights[i]);
    ASSERT_EQ(x.size(), y.size());
    for (std::size_t l = 0; l < x.size(); ++l) {
      EXPECT_EQ(x[l].name, y[l].name);
      EXPECT_TRUE(sameFloatBits(x[l].values, y[l].values)) << x[l].name;
    }
  }
  ASSERT_EQ(a.samples.size(), b.samples.size());
  for (std::size_t i = 0; i < a.samples.size(); ++i) {
    EXPECT_EQ(a.samples[i].first, b.samples[i].first);
    EXPECT_EQ(a.samples[i].second.prompt, b.samples[i].second.prompt);
    EXPECT_EQ(a.samples[i].second.text, b.samples[i].second.text);
    EXPECT_TRUE(sameBits(a.samples[i].second.temperature, b.samples[i].second.temperature));
  }
  ASSERT_EQ(a.signals.size(), b.signals.size());
  for (std::size_t i = 0; i < a.signals.size(); ++i) {
    EXPECT_EQ(std::get<0>(a.signals[i]), std::get<0>(b.signals[i]));
    EXPECT_EQ(std::get<1>(a.signals[i]), std::get<1>(b.signals[i]));
    const auto &x = std::get<2>(a.signals[i]), &y = std::get<2>(b.signals[i]);
    ASSERT_EQ(x.size(), y.size());
    for (std::size_t k = 0; k < x.size(); ++k) {
      EXPECT_EQ(x[k].step, y[k].step);
      EXPECT_EQ(x[k].epoch, y[k].epoch);
      EXPECT_TRUE(sameBits(x[k].gradNorm, y[k].gradNorm));
      EXPECT_TRUE(sameBits(x[k].attentionLogitMax, y[k].attentionLogitMax));
      EXPECT_TRUE(sameBits(x[k].outputLogitNorm, y[k].outputLogitNorm));
      EXPECT_TRUE(sameFloatBits(x[k].updateRatios, y[k].updateRatios));
    }
  }
  ASSERT_EQ(a.serving.size(), b.serving.size());
  for (std::size_t i = 0; i < a.serving.size(); ++i) {
    EXPECT_EQ(a.serving[i].first, b.serving[i].first);
    ASSERT_EQ(a.serving[i].second.size(), b.serving[i].second.size());
    for (std::size_t k = 0; k < a.serving[i].second.size(); ++k) {
      const ServingRecord &x = a.serving[i].second[k], &y = b.serving[i].second[k];
      EXPECT_EQ(x.servedBy, y.servedBy);
      EXPECT_EQ(x.batchSize, y.batchSize);
      EXPECT_EQ(x.predictions, y.predictions);
      EXPECT_EQ(x.flips, y.flips);
      EXPECT_TRUE(sameBits(x.meanAbsLogProbChange, y.meanAbsLogProbChange));
      EXPECT_TRUE(sameBits(x.meanKl, y.meanKl));
      EXPECT_TRUE(sameBits(x.accuracy, y.accuracy));
    }
  }
  ASSERT_EQ(a.finals.size(), b.finals.size());
  for (std::size_t i = 0; i < a.finals.size(); ++i) {
    const RunRecord &x = a.finals[i], &y = b.finals[i];
    EXPECT_EQ(x.id, y.id);
    EXPECT_EQ(x.backend, y.backend);
    EXPECT_EQ(x.seed, y.seed);
    EXPECT_EQ(x.status, y.status);
    EXPECT_EQ(x.epochsDone, y.epochsDone);
    EXPECT_TRUE(sameBits(x.finalTrainLoss, y.finalTrainLoss));
    EXPECT_TRUE(sameBits(x.finalTestLoss, y.finalTestLoss));
    EXPECT_TRUE(sameBits(x.finalAccuracy, y.finalAccuracy));
    EXPECT_TRUE(sameBits(x.wallSeconds, y.wallSeconds));
    EXPECT_EQ(x.divergedEpoch, y.divergedEpoch);
    EXPECT_EQ(x.message, y.message);
  }
}

TEST(RunRecordWire, EdgeValuesSurviveBitForBit) {
  const double kInf = std::numeric_limits<double>::infinity();
  const double kNan = std::numeric_limits<double>::quiet_NaN();
  const double kTiny = std::numeric_limits<double>::denorm_min();
  CapturingRecorder direct;
  Loopback loop;
  for (RunRecorder* r :
       {static_cast<RunRecorder*>(&direct), static_cast<RunRecorder*>(&loop.wire)}) {
    r->addSteps(7, {{1, 1, 1.0 / 3.0, 1e-3}, {2000, 10000, -0.0, kTiny}, {3, 2, kNan, 0.1f}});
    r->addSteps(7, {});
    r->addEpoch(std::numeric_limits<std::int64_t>::max(), {3, kInf, -kInf, 0.25, 1e300, 17});
    nn::XraySample sample;
    sample.step = 123456789012;
    sample.epoch = 4;
    numerics::TensorXray x;
    x.count = 1 << 20;
    x.zeros = 5;
    x.nonFinite = 2;
    x.exponentBins[0] = 3;
    x.exponentBins[149] = std::numeric_limits<std::int64_t>::max();
    x.amax = 3.4028234663852886e38;
    x.minNonzero = 1.401298464324817e-45;
    x.flushed = 9;
    x.signalEnergy = 0.1;
    x.errorEnergy = 0.0;
    x.maxRelativeError = std::nextafter(1.0, 2.0);
    sample.records.push_back({"conv2.wgrad", "grad", "bf16", x});
    sample.records.push_back({"fc1.fwd", "output", "fp32", numerics::TensorXray{}});
    r->addXraySample(8, sample);
    r->addPredictions(8, {{0, 9, 65535, -1}, {1.0f, 0.0f, -0.0f, 1e-45f}});
    r->addPredictions(9, {});
    r->addWeightSnapshot(8, 3,
                         {{"conv1.weight",
                           {1.5f, -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(), 1e-45f}},
                          {"fc.bias", {}}});
    // Any bytes, not only UTF-8: a corpus is a file of bytes.
    r->addSample(8, {std::string("\n\x00\xff", 3), std::string("ab\xc3\x28\x80z"), 0.8});
    r->addSample(9, {"x", "", 0.0});
    r->addSignals(8, {"conv1.weight", "fc.weight"},
                  {{4, 1, 12.5, kNan, 1.0 / 3.0, {1e-3f, std::numeric_limits<float>::quiet_NaN()}},
                   {8, 2, kInf, -7.25, kTiny, {0.0f, 1e-45f}}});
    r->addSignals(9, {}, {{1, 1, 0.5, 0.5, 0.5, {}}});
    r->addServing(8, {{"tpu-bf16 \"x\"", 1000, 10000, 37, 1.0 / 3.0, kTiny, 0.8765},
                      {"cpu-fp32", 1, 1000, 0, 0.0, kNan, 1.0}});
    RunRecord f;
    f.id = 8;
    f.backend = "tpu-bf16 \"custom\" é";
    f.seed = std::numeric_limits<std::uint64_t>::max();
    f.status = RunState::Failed;
    f.epochsDone = 2;
    f.finalTrainLoss = kNan;
    f.finalTestLoss = -1.5e-310;
    f.finalAccuracy = 0.8765432109876543;
    f.wallSeconds = 12.5;
    f.divergedEpoch = 0;
    f.message = "out of memory\nline 2";
    r->finishRun(f);
  }
  expectSameRecords(direct, loop.into);
}

// What a real run records (steps, epochs, X-ray samples of every product, the final record) is
// the same through the wire as written directly.
TEST(RunRecordWire, RealRunWithXrayRecordsTheSameThroughTheWire) {
  const StudySpec spec = parseStudySpec(R"({"name": "wire",
    "dataset": {"source": "synthetic", "train_size": 120, "test_size": 60},
    "model": "small-cnn", "epochs": 2, "batch_size": 40, "xray": {"every_steps": 2},
    "backends": ["gpu-amp-fp16"], "seeds": 1})");
  const data::DataSplit data = data::loadDataset(spec.dataset);
  const TrainFunction train = &nn::train;
  const std::atomic<bool> cancel{false};
  const RunContext context{spec, data, train, cancel, {}, {}, 0.25};
  const RunJob job{{0, 0}, 42};
  CapturingRecorder direct;
  Loopback loop;
  trainRun(context, job, direct);
  trainRun(context, job, loop.wire);
  ASSERT_EQ(direct.finals.size(), 1u);
  EXPECT_EQ(direct.finals[0].status, RunState::Completed) << direct.finals[0].message;
  EXPECT_EQ(direct.epochs.size(), 2u);
  EXPECT_FALSE(direct.xrays.empty());
  EXPECT_FALSE(direct.xrays[0].second.records.empty());
  ASSERT_EQ(direct.predictions.size(), 1u);  // the final predictions
  EXPECT_EQ(direct.predictions[0].second.predicted.size(), 60u);
  EXPECT_EQ(direct.weights.size(), 2u);  // keep_weights "epochs" (the default): both epochs
  // The early warnings of every step (6 steps < 2,000 are all kept) but those loss scaling
  // skipped, written with each epoch's steps.
  std::size_t measured = 0;
  for (const auto& call : direct.signals) measured += std::get<2>(call).size();
  int skipped = 0;
  for (const auto& [id, e] : direct.epochs) skipped += e.skippedSteps;
  EXPECT_EQ(measured, std::size_t(6 - skipped));
  EXPECT_GT(measured, 0u);
  // Served by its own backend in batches of 1 (the study's only backend): 60 test images.
  ASSERT_EQ(direct.serving.size(), 1u);
  ASSERT_EQ(direct.serving[0].second.size(), 1u);
  EXPECT_EQ(direct.serving[0].second[0].servedBy, "gpu-amp-fp16");
  EXPECT_EQ(direct.serving[0].second[0].batchSize, 1);
  EXPECT_EQ(direct.serving[0].second[0].predictions, 60);
  // Wall times differ between the two runs: compare the wire's copy of the run it carried.
  for (auto& [id, e] : loop.into.epochs)
    e.seconds = direct.epochs[std::size_t(e.epoch - 1)].second.seconds;
  loop.into.finals[0].wallSeconds = direct.finals[0].wallSeconds;
  expectSameRecords(direct, loop.into);
}

TEST(RunRecordWire, DamagedRecordIsRefusedNamingItsKind) {
  CapturingRecorder into;
  std::vector<std::uint8_t> body = nlohmann::json::to_cbor({{"run", 1}, {"epoch", "one"}});
  try {
    replayRecord({RecordKind::Epoch, body}, into);
    FAIL() << "accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("epoch record"), std::string::npos) << e.what();
  }
  try {
    replayRecord({RecordKind::Final, {0xff, 0x00}}, into);
    FAIL() << "accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("final record"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(into.epochs.empty());
  EXPECT_TRUE(into.finals.empty());
}

}  // namespace
}  // namespace paritylab::study
