// ResultsStore's tables for the divergence analysis (schema version 6): test_set,
// predictions, weights.
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/study/store/results_blobs.h"
#include "core/study/store/results_store.h"
#include "core/study/store/results_store_transaction.h"
#include "core/study/store/sqlite_statement.h"

namespace paritylab::study {

bool ResultsStore::hasTable(const char* name) const {
  Statement s(db_, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", path_);
  s.bind(1, std::string(name));
  return s.step() && s.i64(0) > 0;
}

bool ResultsStore::holdsPredictionsOrWeights() const {
  std::lock_guard lock(mutex_);
  for (const char* table : {"predictions", "weights"}) {
    if (!hasTable(table)) continue;
    Statement s(db_, std::string("SELECT 1 FROM ") + table + " LIMIT 1", path_);
    if (s.step()) return true;
  }
  return false;
}

void ResultsStore::saveTestSet(const std::vector<std::int32_t>& labels,
                               const std::vector<std::string>& classNames) {
  std::string blob;
  try {
    blob = encodeClasses(labels);
  } catch (const std::invalid_argument& e) {
    throw StoreError(path_ + ": test set: " + e.what());
  }
  const std::string names = nlohmann::json(classNames).dump();
  std::lock_guard lock(mutex_);
  transaction([&] {
    Statement q(db_, "SELECT examples, classes, class_names, labels FROM test_set WHERE id = 1",
                path_);
    if (q.step()) {
      if (std::size_t(q.i64(0)) == labels.size() && q.text(2) == names &&
          decodeClasses(q.blob(3), labels.size(), path_ + ": test_set") == labels)
        return true;
      throw StoreError(path_ + ": holds predictions on another test set (" +
                       std::to_string(q.i64(0)) + " examples, classes " + q.text(2) +
                       "; this dataset gives " + std::to_string(labels.size()) + ", " + names +
                       "): the dataset changed under the study; use a new database");
    }
    Statement s(db_,
                "INSERT INTO test_set (id, examples, classes, class_names, labels) "
                "VALUES (1, ?, ?, ?, ?)",
                path_);
    s.bind(1, std::int64_t(labels.size())).bind(2, std::int64_t(classNames.size()));
    s.bind(3, names).bindBlob(4, blob).run();
    return true;
  });
}

std::optional<ResultsStore::TestSet> ResultsStore::loadTestSet() const {
  std::lock_guard lock(mutex_);
  if (!hasTable("test_set")) return std::nullopt;
  Statement s(db_, "SELECT examples, class_names, labels FROM test_set WHERE id = 1", path_);
  if (!s.step()) return std::nullopt;
  TestSet out;
  try {
    out.labels = decodeClasses(s.blob(2), std::size_t(s.i64(0)), path_ + ": test_set.labels");
  } catch (const std::runtime_error& e) {
    throw StoreError(e.what());
  }
  const nlohmann::json names = nlohmann::json::parse(s.text(1), nullptr, false);
  if (!names.is_array())
    throw StoreError(path_ + ": test_set.class_names: damaged (not a JSON list)");
  for (const nlohmann::json& name : names)
    out.classNames.push_back(name.is_string() ? name.get<std::string>() : name.dump());
  return out;
}

void ResultsStore::addPredictions(std::int64_t runId, const nn::TestPredictions& predictions) {
  if (!predictions.trueClassProbability.empty() &&
      predictions.predicted.size() != predictions.trueClassProbability.size()) {
    throw std::invalid_argument("predictions of run " + std::to_string(runId) + ": " +
                                std::to_string(predictions.predicted.size()) + " classes but " +
                                std::to_string(predictions.trueClassProbability.size()) +
                                " probabilities");
  }
  const std::string predicted = encodeClasses(predictions.predicted);
  const std::string probability = predictions.trueClassProbability.empty()
                                      ? std::string()
                                      : encodeProbabilities(predictions.trueClassProbability);
  std::lock_guard lock(mutex_);
  Statement s(db_,
              "INSERT OR REPLACE INTO predictions (run_id, examples, predicted, "
              "true_class_probability) VALUES (?, ?, ?, ?)",
              path_);
  s.bind(1, runId).bind(2, std::int64_t(predictions.predicted.size()));
  s.bindBlob(3, predicted).bindBlob(4, probability).run();
}

std::map<std::int64_t, nn::TestPredictions> ResultsStore::loadPredictions() const {
  std::lock_guard lock(mutex_);
  std::map<std::int64_t, nn::TestPredictions> out;
  if (!hasTable("predictions")) return out;
  Statement s(db_,
              "SELECT run_id, examples, predicted, true_class_probability FROM predictions "
              "ORDER BY run_id",
              path_);
  while (s.step()) {
    const std::string what = path_ + ": predictions of run " + std::to_string(s.i64(0));
    const auto count = std::size_t(s.i64(1));
    try {
      nn::TestPredictions& p = out[s.i64(0)];
      p.predicted = decodeClasses(s.blob(2), count, what);
      // An empty blob: no probabilities were given (imported predictions without them).
      if (!s.blob(3).empty()) p.trueClassProbability = decodeProbabilities(s.blob(3), count, what);
    } catch (const std::runtime_error& e) {
      throw StoreError(e.what());
    }
  }
  return out;
}

void ResultsStore::addWeightSnapshot(std::int64_t runId, int epoch,
                                     const std::vector<stats::LayerWeights>& layers) {
  std::vector<std::string> blobs;
  blobs.reserve(layers.size());
  for (const stats::LayerWeights& layer : layers) blobs.push_back(encodeFloats(layer.values));
  std::lock_guard lock(mutex_);
  transaction([&] {
    Statement s(db_,
                "INSERT OR REPLACE INTO weights (run_id, epoch, layer, position, count, data) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                path_);
    for (std::size_t i = 0; i < layers.size(); ++i) {
      s.bind(1, runId).bind(2, std::int64_t(epoch)).bind(3, layers[i].name);
      s.bind(4, std::int64_t(i)).bind(5, std::int64_t(layers[i].values.size()));
      s.bindBlob(6, blobs[i]).run();
      s.reset();
    }
    return true;
  });
}

std::map<int, std::vector<stats::LayerWeights>> ResultsStore::loadWeightSnapshots(
    std::int64_t runId) const {
  std::lock_guard lock(mutex_);
  std::map<int, std::vector<stats::LayerWeights>> out;
  if (!hasTable("weights")) return out;
  Statement s(db_,
              "SELECT epoch, layer, count, data FROM weights WHERE run_id = ? "
              "ORDER BY epoch, position",
              path_);
  s.bind(1, runId);
  while (s.step()) {
    stats::LayerWeights layer;
    layer.name = s.text(1);
    try {
      layer.values = decodeFloats(s.blob(3), std::size_t(s.i64(2)),
                                  path_ + ": weights of run " + std::to_string(runId) + " epoch " +
                                      std::to_string(s.i64(0)) + " " + layer.name);
    } catch (const std::runtime_error& e) {
      throw StoreError(e.what());
    }
    out[int(s.i64(0))].push_back(std::move(layer));
  }
  return out;
}

}  // namespace paritylab::study
