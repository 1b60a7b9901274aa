#include "core/study/run/run_events.h"

#include <cmath>

namespace paritylab::study {

SignalPoint signalPointOf(const SignalRecord& record) {
  SignalPoint p;
  p.step = record.step;
  p.epoch = record.epoch;
  p.gradNorm = record.gradNorm;
  p.attentionLogit = record.attentionLogitMax;
  p.outputLogitNorm = record.outputLogitNorm;
  for (float r : record.updateRatios)
    if (!std::isnan(r) && !(double(r) <= p.updateRatio)) p.updateRatio = double(r);
  return p;
}

}  // namespace paritylab::study
