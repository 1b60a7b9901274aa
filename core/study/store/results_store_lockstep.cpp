// ResultsStore's lockstep comparisons (schema version 10): one row per mode, the result as JSON,
// numbers as input::jsonNumber writes them (NaN, a layer without such a tensor: null; an infinite
// difference: "inf").
#include <nlohmann/json.hpp>

#include "core/input/json_input.h"
#include "core/study/store/results_store.h"
#include "core/study/store/results_store_transaction.h"
#include "core/study/store/sqlite_statement.h"

namespace paritylab::study {
namespace {

using nlohmann::json;

std::string kindName(backends::LayerKind kind) {
  return kind == backends::LayerKind::Linear ? "linear"
         : kind == backends::LayerKind::Conv ? "conv"
                                             : "attention";
}

backends::LayerKind kindNamed(const std::string& name) {
  if (name == "linear") return backends::LayerKind::Linear;
  if (name == "conv") return backends::LayerKind::Conv;
  if (name == "attention") return backends::LayerKind::Attention;
  throw std::invalid_argument("unknown layer kind '" + name + "'");
}

json encode(const nn::LockstepResult& r) {
  json layers = json::array();
  for (const nn::LockstepLayer& l : r.layers)
    layers.push_back({{"name", l.name},
                      {"kind", kindName(l.kind)},
                      {"has_weight", l.hasWeight},
                      {"has_input_gradient", l.hasInputGradient}});
  // Per step: [step, loss, reference loss, then layer by layer its four differences].
  json steps = json::array();
  for (const nn::LockstepStep& s : r.steps) {
    json row = {s.step, input::jsonNumber(s.lossA), input::jsonNumber(s.lossReference)};
    for (const auto& q : s.difference)
      for (double v : q) row.push_back(input::jsonNumber(v));
    steps.push_back(std::move(row));
  }
  json j = {{"layers", layers},
            {"steps", steps},
            {"steps_trained", r.stepsTrained},
            {"stopped_because", r.stoppedBecause},
            {"seconds", r.seconds}};
  if (r.firstCrossing)
    j["first_crossing"] = {{"step", r.firstCrossing->step},
                           {"layer", r.firstCrossing->layer},
                           {"quantity", int(r.firstCrossing->quantity)},
                           {"value", input::jsonNumber(r.firstCrossing->value)}};
  return j;
}

nn::LockstepResult decode(const json& j) {
  nn::LockstepResult r;
  for (const json& l : j.at("layers"))
    r.layers.push_back({l.at("name").get<std::string>(), kindNamed(l.at("kind")),
                        l.at("has_weight").get<bool>(), l.at("has_input_gradient").get<bool>()});
  const std::size_t width = 3 + nn::kLockstepQuantities * r.layers.size();
  for (const json& row : j.at("steps")) {
    if (!row.is_array() || row.size() != width)
      throw std::invalid_argument("a step of " + std::to_string(row.size()) + " values, not " +
                                  std::to_string(width));
    nn::LockstepStep s;
    s.step = row[0].get<std::int64_t>();
    s.lossA = input::numberFromJson(row[1], "loss");
    s.lossReference = input::numberFromJson(row[2], "reference loss");
    s.difference.resize(r.layers.size());
    for (std::size_t l = 0; l < r.layers.size(); ++l)
      for (std::size_t k = 0; k < nn::kLockstepQuantities; ++k)
        s.difference[l][k] =
            input::numberFromJson(row[3 + l * nn::kLockstepQuantities + k], "difference");
    r.steps.push_back(std::move(s));
  }
  r.stepsTrained = j.at("steps_trained").get<std::int64_t>();
  r.stoppedBecause = j.at("stopped_because").get<std::string>();
  r.seconds = j.at("seconds").get<double>();
  if (const auto c = j.find("first_crossing"); c != j.end()) {
    nn::LockstepCrossing crossing;
    crossing.step = c->at("step").get<std::int64_t>();
    crossing.layer = c->at("layer").get<std::size_t>();
    const int quantity = c->at("quantity").get<int>();
    if (crossing.layer >= r.layers.size() || quantity < 0 ||
        quantity >= int(nn::kLockstepQuantities))
      throw std::invalid_argument("first crossing outside the layers or quantities");
    crossing.quantity = nn::LockstepQuantity(quantity);
    crossing.value = input::numberFromJson(c->at("value"), "first crossing");
    r.firstCrossing = crossing;
  }
  return r;
}

}  // namespace

void ResultsStore::saveLockstep(const LockstepRecord& record) {
  std::lock_guard lock(mutex_);
  const std::string text = encode(record.result).dump();
  transaction([&] {
    Statement(db_,
              "INSERT OR REPLACE INTO lockstep (mode, backend, reference, seed, tolerance, result) "
              "VALUES (?,?,?,?,?,?)",
              path_)
        .bind(1, record.mode)
        .bind(2, record.backend)
        .bind(3, record.reference)
        .bind(4, std::int64_t(record.seed))
        .bind(5, record.tolerance)
        .bind(6, text)
        .run();
    return true;
  });
}

std::vector<LockstepRecord> ResultsStore::loadLockstep() const {
  std::lock_guard lock(mutex_);
  std::vector<LockstepRecord> out;
  if (!hasTable("lockstep")) return out;
  Statement s(db_,
              "SELECT mode, backend, reference, seed, tolerance, result FROM lockstep "
              "ORDER BY mode = 'free', mode",
              path_);
  while (s.step()) {
    LockstepRecord r;
    r.mode = s.text(0);
    r.backend = s.text(1);
    r.reference = s.text(2);
    r.seed = std::uint64_t(s.i64(3));
    r.tolerance = s.real(4);
    try {
      if (!nn::parseLockstepMode(r.mode)) throw std::invalid_argument("unknown mode");
      r.result = decode(json::parse(s.text(5)));
    } catch (const std::exception& e) {
      throw StoreError(path_ + ": damaged database: lockstep '" + r.mode + "': " + e.what());
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace paritylab::study
