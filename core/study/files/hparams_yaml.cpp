#include "core/study/files/hparams_yaml.h"

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <filesystem>

#include "core/input/csv.h"

namespace paritylab::study {
namespace {

namespace fs = std::filesystem;

constexpr std::uintmax_t kMaxHparamsBytes = 16u << 20;
constexpr int kMaxDepth = 32;  // nested mappings looked into

std::string at(const std::string& file, const YAML::Mark& mark) {
  return file + ":" + std::to_string(mark.is_null() ? 1 : mark.line + 1);
}

// Every key of `map` named `prefix` + key that is asked for, and the mappings below it.
void collect(const YAML::Node& map, const std::string& prefix, int depth, const std::string& file,
             const std::set<std::string>& keys, std::map<std::string, TrackedAttribute>& out) {
  for (const auto& entry : map) {
    if (!entry.first.IsScalar()) continue;  // a complex key names nothing asked for
    const std::string name = prefix + entry.first.Scalar();
    const YAML::Node& value = entry.second;
    if (keys.count(name)) {
      const std::string place = at(file, entry.first.Mark()) + ": ";  // the key's line
      if (value.IsSequence())
        throw input::CsvError(place + "hyperparameter '" + name + "' is a list, not one value");
      if (value.IsMap())
        throw input::CsvError(place + "hyperparameter '" + name +
                              "' is a mapping of keys, not a value (name one of its keys: " + name +
                              ".KEY)");
      out[name] = {value.IsScalar() ? value.Scalar() : std::string(), place + name};
    }
    if (value.IsMap() && depth < kMaxDepth) collect(value, name + ".", depth + 1, file, keys, out);
  }
}

}  // namespace

std::map<std::string, TrackedAttribute> readHparamsYaml(const std::string& file,
                                                        const std::set<std::string>& keys) {
  std::map<std::string, TrackedAttribute> out;
  std::error_code error;
  if (keys.empty() || !fs::is_regular_file(file, error)) return out;
  if (fs::file_size(file, error) > kMaxHparamsBytes)
    throw input::CsvError(file + ": larger than 16 MiB, which no hparams.yaml is");
  YAML::Node root;
  try {
    root = YAML::LoadFile(file);
  } catch (const YAML::Exception& e) {
    throw input::CsvError(at(file, e.mark) + ": not YAML (" + e.msg + ")");
  }
  if (root.IsMap()) collect(root, "", 0, file, keys, out);
  return out;
}

}  // namespace paritylab::study
