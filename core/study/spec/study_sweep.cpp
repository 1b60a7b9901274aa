#include "core/study/spec/study_sweep.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "core/input/input_limits.h"
#include "core/input/json_input.h"
#include "core/study/spec/study_spec.h"

namespace paritylab::study {
using nlohmann::json;

bool isPolicyField(std::string_view field) {
  return field.starts_with(kPolicyFieldPrefix);
}

namespace {

// A policy field's path after "policy.": names of letters, digits and '_' joined by '.'.
bool isFieldPath(std::string_view path) {
  if (path.empty() || path.front() == '.' || path.back() == '.') return false;
  char previous = 0;
  for (const char c : path) {
    const bool name =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!name && !(c == '.' && previous != '.')) return false;
    previous = c;
  }
  return true;
}

}  // namespace

bool isIntegerHyperparameter(std::string_view name) {
  return name == "batch_size" || name == "epochs";
}

std::optional<double> BackendOverrides::get(std::string_view name) const {
  const auto asReal = [](const std::optional<int>& v) {
    return v ? std::optional<double>(*v) : std::nullopt;
  };
  if (name == "lr") return lr;
  if (name == "weight_decay") return weightDecay;
  if (name == "batch_size") return asReal(batchSize);
  if (name == "epochs") return asReal(epochs);
  if (name == "warmup_epochs") return warmupEpochs;
  if (name == "grad_clip") return gradClip;
  throw std::invalid_argument("unknown hyperparameter '" + std::string(name) + "'");
}

void BackendOverrides::set(std::string_view name, double value) {
  if (name == "lr")
    lr = value;
  else if (name == "weight_decay")
    weightDecay = value;
  else if (name == "batch_size")
    batchSize = int(value);
  else if (name == "epochs")
    epochs = int(value);
  else if (name == "warmup_epochs")
    warmupEpochs = value;
  else if (name == "grad_clip")
    gradClip = value;
  else
    throw std::invalid_argument("unknown hyperparameter '" + std::string(name) + "'");
}

void BackendOverrides::reset(std::string_view name) {
  if (name == "lr")
    lr.reset();
  else if (name == "weight_decay")
    weightDecay.reset();
  else if (name == "batch_size")
    batchSize.reset();
  else if (name == "epochs")
    epochs.reset();
  else if (name == "warmup_epochs")
    warmupEpochs.reset();
  else if (name == "grad_clip")
    gradClip.reset();
  else
    throw std::invalid_argument("unknown hyperparameter '" + std::string(name) + "'");
}

double readHyperparameter(std::string_view name, const json& value, const std::string& field,
                          const std::string& file) {
  const std::string where = file + ": " + field;
  try {
    if (name == "batch_size")
      return double(input::requireJsonInteger(value, where, {1, input::kMaxBatchSize}));
    if (name == "epochs")
      return double(input::requireJsonInteger(value, where, {1, input::kMaxEpochs}));
    if (name == "lr")
      return input::requireJsonReal(value, where, {0, input::kMaxHyperparameter, true});
    if (name == "warmup_epochs")
      return input::requireJsonReal(value, where, {0, double(input::kMaxEpochs)});
    return input::requireJsonReal(value, where, {0, input::kMaxHyperparameter});
  } catch (const input::InputError& e) {
    throw SpecError(e.what(), field);
  }
}

std::vector<SweepFactor> parseSweep(const json& j, const std::string& file) {
  const auto fail = [&file](const std::string& field, const std::string& what) {
    throw SpecError(file + ": " + field + ": " + what, field);
  };
  if (!j.is_object() || j.empty())
    fail("sweep",
         "expected an object of hyperparameters or policy fields, each with a list of values "
         "(e.g. {\"weight_decay\": [0.0005, 0.000125]}), got " +
             input::jsonExcerpt(j));
  std::vector<SweepFactor> factors;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string path = "sweep." + input::excerpt(it.key());
    const bool policyField = isPolicyField(it.key());
    if (policyField && !isFieldPath(std::string_view(it.key()).substr(kPolicyFieldPrefix.size())))
      fail(path,
           "not a policy field's path (\"policy.\" and the field's names joined by dots, e.g. "
           "\"policy.replicas\" or \"policy.storage.activations\")");
    if (!policyField && std::find(kHyperparameterNames.begin(), kHyperparameterNames.end(),
                                  it.key()) == kHyperparameterNames.end()) {
      std::string names;
      for (std::string_view n : kHyperparameterNames)
        names += (names.empty() ? "" : ", ") + std::string(n);
      fail(path, "not a hyperparameter a sweep can vary (one of: " + names +
                     "; or a field of the backends' policies, \"policy.replicas\")");
    }
    const json& list = it.value();
    if (!list.is_array() || list.empty() || list.size() > std::size_t(input::kMaxSweepValues))
      fail(path, "expected a list of 1 to " + std::to_string(input::kMaxSweepValues) +
                     " values, got " + input::jsonExcerpt(list));
    SweepFactor factor{it.key(), {}};
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string field = path + "[" + std::to_string(i) + "]";
      json v = list[i];
      if (!policyField) {
        const double number = readHyperparameter(it.key(), v, field, file);
        v = isIntegerHyperparameter(it.key()) ? json(std::int64_t(number)) : json(number);
      }
      for (std::size_t k = 0; k < factor.values.size(); ++k)
        if (sweptValueText(factor.values[k]) == sweptValueText(v))
          fail(field, sweptValueText(v) + " is listed twice (at " + std::to_string(k) + " and " +
                          std::to_string(i) + "; each value once)");
      factor.values.push_back(std::move(v));
    }
    factors.push_back(std::move(factor));
  }
  return factors;
}

json sweepToJson(const std::vector<SweepFactor>& factors) {
  json j = json::object();
  for (const SweepFactor& f : factors) {
    j[f.field] = f.values;
  }
  return j;
}

std::size_t sweepCellCount(const std::vector<SweepFactor>& factors) {
  std::size_t n = 1;
  for (const SweepFactor& f : factors) n *= f.values.size();
  return n;
}

std::vector<std::vector<SweptValue>> sweepCells(const std::vector<SweepFactor>& factors) {
  std::vector<std::vector<SweptValue>> cells;
  if (factors.empty()) return cells;
  const std::size_t count = sweepCellCount(factors);
  for (std::size_t index = 0; index < count; ++index) {
    std::vector<SweptValue> cell(factors.size());
    std::size_t rest = index;
    for (std::size_t f = factors.size(); f-- > 0;) {
      const std::size_t levels = factors[f].values.size();
      cell[f] = {factors[f].field, factors[f].values[rest % levels]};
      rest /= levels;
    }
    cells.push_back(std::move(cell));
  }
  return cells;
}

std::string sweptValueText(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.10g", value);
  return buffer;
}

std::string sweptValueText(const json& value) {
  if (value.is_number()) return sweptValueText(value.get<double>());
  if (value.is_string()) return value.get<std::string>();
  if (value.is_null()) return "none";
  return value.dump();
}

json policyWithFields(const json& base, const std::vector<SweptValue>& cell) {
  json policy = base.is_string() ? json{{"preset", base}} : base;
  for (const SweptValue& v : cell) {
    if (!isPolicyField(v.field)) continue;
    json* at = &policy;
    std::string_view path = std::string_view(v.field).substr(kPolicyFieldPrefix.size());
    for (std::size_t dot = path.find('.'); dot != std::string_view::npos; dot = path.find('.')) {
      json& next = (*at)[std::string(path.substr(0, dot))];
      if (!next.is_object()) next = json::object();
      at = &next;
      path.remove_prefix(dot + 1);
    }
    (*at)[std::string(path)] = v.value;
  }
  return policy;
}

std::string cellName(const std::vector<SweptValue>& cell) {
  std::string name;
  for (const SweptValue& v : cell)
    name += (name.empty() ? "" : " ") + v.field + "=" + sweptValueText(v.value);
  return name;
}

}  // namespace paritylab::study
