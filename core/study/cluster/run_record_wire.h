#pragma once
// The wire format of what a run records, to carry RunRecorder calls from an MPI
// worker to rank 0: each call is one message, its kind (sent as the MPI tag) and a CBOR body
// (RFC 8949, nlohmann::json::to_cbor). Doubles travel as IEEE binary64 (or binary32 when that is
// exact), so every value arrives bit-identical; NaN arrives as NaN (its payload is not kept:
// the database stores NaN as NULL anyway). Adding a kind: an enumerator, a case in
// WireRecorder (encode) and one in replayRecord (decode).

#include <cstdint>
#include <functional>
#include <vector>

#include "core/study/run/run_recorder.h"

namespace paritylab::study {

enum class RecordKind : int {
  Steps = 101,        // RunRecorder::addSteps
  Epoch = 102,        // RunRecorder::addEpoch
  Xray = 103,         // RunRecorder::addXraySample
  Final = 104,        // RunRecorder::finishRun
  Predictions = 105,  // RunRecorder::addPredictions
  Weights = 106,      // RunRecorder::addWeightSnapshot
  Sample = 107,       // RunRecorder::addSample
  Signals = 108,      // RunRecorder::addSignals
  Serving = 109,      // RunRecorder::addServing
};
bool isRecordKind(int tag);  // one of RecordKind's values

struct WireRecord {
  RecordKind kind = RecordKind::Final;
  std::vector<std::uint8_t> body;  // CBOR
};

// Encodes every call into one WireRecord and hands it to `send` (called on the recording thread).
class WireRecorder final : public RunRecorder {
 public:
  explicit WireRecorder(std::function<void(WireRecord)> send) : send_(std::move(send)) {}
  void addSteps(std::int64_t runId, const std::vector<StepRecord>& steps) override;
  void addEpoch(std::int64_t runId, const EpochRecord& epoch) override;
  void addXraySample(std::int64_t runId, const nn::XraySample& sample) override;
  void addPredictions(std::int64_t runId, const nn::TestPredictions& predictions) override;
  void addWeightSnapshot(std::int64_t runId, int epoch,
                         const std::vector<stats::LayerWeights>& layers) override;
  void addSample(std::int64_t runId, const nn::TextSample& sample) override;
  void addSignals(std::int64_t runId, const std::vector<std::string>& layers,
                  const std::vector<SignalRecord>& steps) override;
  void addServing(std::int64_t runId, const std::vector<ServingRecord>& rows) override;
  void finishRun(const RunRecord& run) override;

 private:
  std::function<void(WireRecord)> send_;
};

// Decodes one record and makes the call it encodes on `into`. Throws std::runtime_error naming
// the kind when the body is not a valid record of it.
void replayRecord(const WireRecord& record, RunRecorder& into);

}  // namespace paritylab::study
