#include "core/study/cluster/run_record_wire.h"

#include <cstring>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace paritylab::study {
namespace {

using nlohmann::json;

json tensorXrayToJson(const numerics::TensorXray& x) {
  return {{"count", x.count},
          {"zeros", x.zeros},
          {"non_finite", x.nonFinite},
          {"bins", x.exponentBins},
          {"amax", x.amax},
          {"min_nonzero", x.minNonzero},
          {"flushed", x.flushed},
          {"subnormal", x.subnormal},
          {"overflowed", x.overflowed},
          {"signal_energy", x.signalEnergy},
          {"error_energy", x.errorEnergy},
          {"max_rel_error", x.maxRelativeError}};
}

numerics::TensorXray tensorXrayFromJson(const json& j) {
  numerics::TensorXray x;
  x.count = j.at("count");
  x.zeros = j.at("zeros");
  x.nonFinite = j.at("non_finite");
  const json& bins = j.at("bins");
  if (!bins.is_array() || bins.size() != x.exponentBins.size())
    throw std::runtime_error("exponent histogram of " + std::to_string(bins.size()) + " bins");
  for (std::size_t i = 0; i < bins.size(); ++i) x.exponentBins[i] = bins[i];
  x.amax = j.at("amax");
  x.minNonzero = j.at("min_nonzero");
  x.flushed = j.at("flushed");
  x.subnormal = j.at("subnormal");
  x.overflowed = j.at("overflowed");
  x.signalEnergy = j.at("signal_energy");
  x.errorEnergy = j.at("error_energy");
  x.maxRelativeError = j.at("max_rel_error");
  return x;
}

// Arrays of numbers as CBOR byte strings (their bytes as in memory: the ranks of one job share
// the byte order), exact and 4 bytes a value instead of a CBOR number each.
template <typename T>
json binaryOf(const std::vector<T>& values) {
  std::vector<std::uint8_t> bytes(values.size() * sizeof(T));
  if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return json::binary(std::move(bytes));
}

template <typename T>
std::vector<T> valuesOf(const json& j) {
  const std::vector<std::uint8_t>& bytes = j.get_binary();
  if (bytes.size() % sizeof(T) != 0) throw std::invalid_argument("a truncated array");
  std::vector<T> values(bytes.size() / sizeof(T));
  if (!bytes.empty()) std::memcpy(values.data(), bytes.data(), bytes.size());
  return values;
}

WireRecord encode(RecordKind kind, const json& body) {
  return {kind, json::to_cbor(body)};
}

const char* kindName(RecordKind kind) {
  switch (kind) {
    case RecordKind::Steps:
      return "steps";
    case RecordKind::Epoch:
      return "epoch";
    case RecordKind::Xray:
      return "xray";
    case RecordKind::Final:
      return "final";
    case RecordKind::Predictions:
      return "predictions";
    case RecordKind::Weights:
      return "weights";
    case RecordKind::Sample:
      return "sample";
    case RecordKind::Signals:
      return "signals";
    case RecordKind::Serving:
      return "serving";
  }
  return "unknown";
}

}  // namespace

bool isRecordKind(int tag) {
  return tag >= int(RecordKind::Steps) && tag <= int(RecordKind::Serving);
}

void WireRecorder::addSteps(std::int64_t runId, const std::vector<StepRecord>& steps) {
  json rows = json::array();
  for (const StepRecord& s : steps) rows.push_back({s.step, s.epoch, s.trainLoss, s.lr});
  send_(encode(RecordKind::Steps, {{"run", runId}, {"steps", rows}}));
}

void WireRecorder::addEpoch(std::int64_t runId, const EpochRecord& e) {
  send_(encode(RecordKind::Epoch, {{"run", runId},
                                   {"epoch", e.epoch},
                                   {"train_loss", e.trainLoss},
                                   {"test_loss", e.testLoss},
                                   {"test_accuracy", e.testAccuracy},
                                   {"seconds", e.seconds},
                                   {"skipped_steps", e.skippedSteps}}));
}

void WireRecorder::addXraySample(std::int64_t runId, const nn::XraySample& sample) {
  json records = json::array();
  for (const nn::XrayRecord& r : sample.records) {
    records.push_back({{"site", r.site},
                       {"operand", r.operand},
                       {"format", r.format},
                       {"xray", tensorXrayToJson(r.xray)}});
  }
  send_(encode(
      RecordKind::Xray,
      {{"run", runId}, {"step", sample.step}, {"epoch", sample.epoch}, {"records", records}}));
}

void WireRecorder::addPredictions(std::int64_t runId, const nn::TestPredictions& p) {
  send_(encode(RecordKind::Predictions, {{"run", runId},
                                         {"predicted", binaryOf(p.predicted)},
                                         {"probability", binaryOf(p.trueClassProbability)}}));
}

void WireRecorder::addWeightSnapshot(std::int64_t runId, int epoch,
                                     const std::vector<stats::LayerWeights>& layers) {
  json rows = json::array();
  for (const stats::LayerWeights& l : layers)
    rows.push_back({{"name", l.name}, {"values", binaryOf(l.values)}});
  send_(encode(RecordKind::Weights, {{"run", runId}, {"epoch", epoch}, {"layers", rows}}));
}

void WireRecorder::addSample(std::int64_t runId, const nn::TextSample& sample) {
  // Bytes, not text: a corpus need not be UTF-8.
  const auto bytes = [](const std::string& s) {
    return json::binary(std::vector<std::uint8_t>(s.begin(), s.end()));
  };
  send_(encode(RecordKind::Sample, {{"run", runId},
                                    {"prompt", bytes(sample.prompt)},
                                    {"temperature", sample.temperature},
                                    {"text", bytes(sample.text)}}));
}

void WireRecorder::addSignals(std::int64_t runId, const std::vector<std::string>& layers,
                              const std::vector<SignalRecord>& steps) {
  json rows = json::array();
  for (const SignalRecord& s : steps)
    rows.push_back({s.step, s.epoch, s.gradNorm, s.attentionLogitMax, s.outputLogitNorm,
                    binaryOf(s.updateRatios)});
  send_(encode(RecordKind::Signals, {{"run", runId}, {"layers", layers}, {"steps", rows}}));
}

void WireRecorder::addServing(std::int64_t runId, const std::vector<ServingRecord>& rows) {
  json out = json::array();
  for (const ServingRecord& r : rows)
    out.push_back({r.servedBy, r.batchSize, r.predictions, r.flips, r.meanAbsLogProbChange,
                   r.meanKl, r.accuracy});
  send_(encode(RecordKind::Serving, {{"run", runId}, {"rows", out}}));
}

void WireRecorder::finishRun(const RunRecord& r) {
  send_(encode(RecordKind::Final, {{"run", r.id},
                                   {"backend", r.backend},
                                   {"seed", r.seed},
                                   {"status", std::string(toString(r.status))},
                                   {"epochs_done", r.epochsDone},
                                   {"final_train_loss", r.finalTrainLoss},
                                   {"final_test_loss", r.finalTestLoss},
                                   {"final_accuracy", r.finalAccuracy},
                                   {"wall_seconds", r.wallSeconds},
                                   {"diverged_epoch", r.divergedEpoch},
                                   {"message", r.message}}));
}

void replayRecord(const WireRecord& record, RunRecorder& into) {
  try {
    const json j = json::from_cbor(record.body);
    const std::int64_t runId = j.at("run");
    switch (record.kind) {
      case RecordKind::Steps: {
        std::vector<StepRecord> steps;
        for (const json& s : j.at("steps")) steps.push_back({s.at(0), s.at(1), s.at(2), s.at(3)});
        into.addSteps(runId, steps);
        return;
      }
      case RecordKind::Epoch:
        into.addEpoch(runId, {j.at("epoch"), j.at("train_loss"), j.at("test_loss"),
                              j.at("test_accuracy"), j.at("seconds"), j.at("skipped_steps")});
        return;
      case RecordKind::Xray: {
        nn::XraySample sample;
        sample.step = j.at("step");
        sample.epoch = j.at("epoch");
        for (const json& r : j.at("records"))
          sample.records.push_back(
              {r.at("site"), r.at("operand"), r.at("format"), tensorXrayFromJson(r.at("xray"))});
        into.addXraySample(runId, sample);
        return;
      }
      case RecordKind::Predictions: {
        nn::TestPredictions p;
        p.predicted = valuesOf<std::int32_t>(j.at("predicted"));
        p.trueClassProbability = valuesOf<float>(j.at("probability"));
        into.addPredictions(runId, p);
        return;
      }
      case RecordKind::Weights: {
        std::vector<stats::LayerWeights> layers;
        for (const json& l : j.at("layers"))
          layers.push_back({l.at("name"), valuesOf<float>(l.at("values"))});
        into.addWeightSnapshot(runId, j.at("epoch"), layers);
        return;
      }
      case RecordKind::Sample: {
        const auto text = [&](const char* key) {
          const std::vector<std::uint8_t>& b = j.at(key).get_binary();
          return std::string(b.begin(), b.end());
        };
        into.addSample(runId, {text("prompt"), text("text"), j.at("temperature")});
        return;
      }
      case RecordKind::Signals: {
        std::vector<SignalRecord> steps;
        for (const json& s : j.at("steps"))
          steps.push_back({s.at(0), s.at(1), s.at(2), s.at(3), s.at(4), valuesOf<float>(s.at(5))});
        into.addSignals(runId, j.at("layers"), steps);
        return;
      }
      case RecordKind::Serving: {
        std::vector<ServingRecord> rows;
        for (const json& r : j.at("rows"))
          rows.push_back({r.at(0), r.at(1), r.at(2), r.at(3), r.at(4), r.at(5), r.at(6)});
        into.addServing(runId, rows);
        return;
      }
      case RecordKind::Final: {
        RunRecord r;
        r.id = runId;
        r.backend = j.at("backend");
        r.seed = j.at("seed");
        r.status = runStateFromString(j.at("status"));
        r.epochsDone = j.at("epochs_done");
        r.finalTrainLoss = j.at("final_train_loss");
        r.finalTestLoss = j.at("final_test_loss");
        r.finalAccuracy = j.at("final_accuracy");
        r.wallSeconds = j.at("wall_seconds");
        r.divergedEpoch = j.at("diverged_epoch");
        r.message = j.at("message");
        into.finishRun(r);
        return;
      }
    }
    throw std::runtime_error("unknown kind");
  } catch (const json::exception& e) {
    throw std::runtime_error(std::string("a ") + kindName(record.kind) +
                             " record from an MPI worker is not valid: " + e.what());
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(std::string("a ") + kindName(record.kind) +
                             " record from an MPI worker is not valid: " + e.what());
  }
}

}  // namespace paritylab::study
