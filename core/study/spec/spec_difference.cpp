#include "core/study/spec/spec_difference.h"

#include <nlohmann/json.hpp>
#include <set>
#include <string>

namespace paritylab::study {
namespace {

using json = nlohmann::json;

std::string diffAt(const json& a, const json& b, const std::string& path) {
  if (a == b) return "";
  if (a.is_object() && b.is_object()) {
    std::set<std::string> keys;
    for (const auto& [k, v] : a.items()) keys.insert(k);
    for (const auto& [k, v] : b.items()) keys.insert(k);
    for (const std::string& k : keys) {
      if (path.empty() && k == "threads") continue;  // does not change results
      std::string at = path;
      at += (path.empty() ? "" : ".") + k;
      if (!a.contains(k) || !b.contains(k))
        return at + " (" + (a.contains(k) ? a[k].dump() : "absent") + " against " +
               (b.contains(k) ? b[k].dump() : "absent") + ")";
      std::string d = diffAt(a[k], b[k], at);
      if (!d.empty()) return d;
    }
    return "";
  }
  if (a.is_array() && b.is_array() && a.size() == b.size()) {
    for (std::size_t i = 0; i < a.size(); ++i) {
      std::string d = diffAt(a[i], b[i], path + "[" + std::to_string(i) + "]");
      if (!d.empty()) return d;
    }
    return "";
  }
  std::string shownA = a.dump(), shownB = b.dump();
  if (shownA.size() + shownB.size() > 160) return path + " (" + a.type_name() + "s differ)";
  return path + " (" + shownA + " against " + shownB + ")";
}

}  // namespace

std::string firstSpecDifference(const std::string& specJsonA, const std::string& specJsonB) {
  return diffAt(json::parse(specJsonA), json::parse(specJsonB), "");
}

}  // namespace paritylab::study
