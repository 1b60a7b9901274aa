// ResultsStore's table of language-model samples (schema version 7): what each run's model writes
// from the study's prompt, for the Samples view.
#include "core/study/store/results_store.h"
#include "core/study/store/sqlite_statement.h"

namespace paritylab::study {

void ResultsStore::addSample(std::int64_t runId, const nn::TextSample& sample) {
  std::lock_guard lock(mutex_);
  Statement s(db_,
              "INSERT OR REPLACE INTO samples (run_id, prompt, temperature, text) VALUES (?, ?, "
              "?, ?)",
              path_);
  s.bind(1, runId).bindBlob(2, sample.prompt).bind(3, sample.temperature);
  s.bindBlob(4, sample.text).run();
}

std::map<std::int64_t, nn::TextSample> ResultsStore::loadSamples() const {
  std::lock_guard lock(mutex_);
  std::map<std::int64_t, nn::TextSample> out;
  if (!hasTable("samples")) return out;
  Statement s(db_, "SELECT run_id, prompt, temperature, text FROM samples ORDER BY run_id", path_);
  while (s.step()) {
    nn::TextSample& sample = out[s.i64(0)];
    sample.prompt = s.blob(1);
    sample.temperature = s.real(2);
    sample.text = s.blob(3);
  }
  return out;
}

}  // namespace paritylab::study
