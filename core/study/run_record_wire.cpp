#include "core/study/run_record_wire.h"

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
  }
  return "unknown";
}

}  // namespace

bool isRecordKind(int tag) {
  return tag >= int(RecordKind::Steps) && tag <= int(RecordKind::Final);
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
