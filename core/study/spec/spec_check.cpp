#include "core/study/spec/spec_check.h"

#include <cstddef>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string_view>

#include "core/study/spec/study_spec.h"

namespace paritylab::study {
namespace {

using nlohmann::json;

// Byte offsets of every object member (its key) and array element in valid JSON text, by field
// path in the parser's notation ("dataset.train_size", "backends[1].policy").
class FieldLocator {
 public:
  explicit FieldLocator(const std::string& text) : t_(text) { value(""); }
  // The offset of `path`, else of its closest located parent, else 0.
  std::size_t find(std::string path) const {
    while (!path.empty()) {
      if (auto it = where_.find(path); it != where_.end()) return it->second;
      const auto cut = path.find_last_of(".[");
      path = cut == std::string::npos ? std::string() : path.substr(0, cut);
    }
    return 0;
  }

 private:
  void skipSpace() {
    while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\t' || t_[i_] == '\n' || t_[i_] == '\r'))
      ++i_;
  }
  std::string string() {
    std::string out;
    for (++i_; i_ < t_.size() && t_[i_] != '"'; ++i_) {
      if (t_[i_] == '\\') ++i_;  // escapes do not occur in field names; skip them whole
      if (i_ < t_.size()) out += t_[i_];
    }
    ++i_;
    return out;
  }
  void value(const std::string& path) {
    skipSpace();
    if (i_ >= t_.size()) return;
    if (t_[i_] == '{' || t_[i_] == '[') {
      const bool object = t_[i_] == '{';
      ++i_;
      for (int index = 0;; ++index) {
        skipSpace();
        if (i_ >= t_.size()) return;
        if (t_[i_] == '}' || t_[i_] == ']') {
          ++i_;
          return;
        }
        if (t_[i_] == ',') {
          ++i_;
          skipSpace();
        }
        std::string child;
        const std::size_t at = i_;
        if (object) {
          const std::string key = string();
          child = path;
          if (!child.empty()) child += '.';
          child += key;
          skipSpace();
          ++i_;  // ':'
        } else {
          child = path + "[" + std::to_string(index) + "]";
        }
        where_.emplace(child, at);
        value(child);
      }
    }
    if (t_[i_] == '"') {
      string();
      return;
    }
    while (i_ < t_.size() && std::string_view(",]} \t\r\n").find(t_[i_]) == std::string_view::npos)
      ++i_;
  }

  const std::string& t_;
  std::size_t i_ = 0;
  std::map<std::string, std::size_t> where_;
};

// Path "a.b[2].c" as keys and indices.
std::vector<std::string> splitPath(const std::string& path) {
  std::vector<std::string> parts;
  std::string cur;
  for (char c : path) {
    if (c == '.' || c == '[') {
      if (!cur.empty()) parts.push_back(cur);
      cur.clear();
    } else if (c != ']') {
      cur += c;
    }
  }
  if (!cur.empty()) parts.push_back(cur);
  return parts;
}

// Removes the member or element at `path`; false when it is not there.
bool erasePath(json& root, const std::string& path) {
  const std::vector<std::string> parts = splitPath(path);
  if (parts.empty()) return false;
  json* node = &root;
  for (std::size_t k = 0; k + 1 < parts.size(); ++k) {
    if (node->is_object() && node->contains(parts[k]))
      node = &(*node)[parts[k]];
    else if (node->is_array() && std::stoul(parts[k]) < node->size())
      node = &(*node)[std::stoul(parts[k])];
    else
      return false;
  }
  if (node->is_object()) return node->erase(parts.back()) > 0;
  if (node->is_array() && std::stoul(parts.back()) < node->size()) {
    node->erase(std::stoul(parts.back()));
    return true;
  }
  return false;
}

std::string parentOf(const std::string& path) {
  const auto cut = path.find_last_of(".[");
  return cut == std::string::npos ? std::string() : path.substr(0, cut);
}

}  // namespace

std::vector<SpecIssue> checkStudySpec(const std::string& text, const std::string& file) {
  std::vector<SpecIssue> issues;
  json spec;
  try {
    parseStudySpec(text, file);
    return issues;
  } catch (const SpecError& e) {
    spec = json::parse(text, nullptr, false);
    if (spec.is_discarded() || !spec.is_object()) {  // syntax: the message has line:column
      issues.push_back({0, 0, e.field(), e.what()});
      if (spec.is_discarded()) {
        const std::string what = e.what();
        const auto rest = what.substr(std::min(what.size(), file.size() + 1));
        issues.back().line = std::atoi(rest.c_str());
        const auto colon = rest.find(':');
        if (colon != std::string::npos) issues.back().column = std::atoi(rest.c_str() + colon + 1);
      }
      return issues;
    }
  }
  const FieldLocator locator(text);
  // Backends set aside shift the later ones' indices; map them back to the file's.
  std::vector<std::size_t> backendIndex;
  if (spec.contains("backends") && spec["backends"].is_array())
    for (std::size_t i = 0; i < spec["backends"].size(); ++i) backendIndex.push_back(i);
  std::set<std::string> seen;
  for (int round = 0; round < 64; ++round) {
    std::string field, what;
    try {
      parseStudySpec(spec.dump(), file);
      break;
    } catch (const SpecError& e) {
      field = e.field();
      what = e.what();
    }
    // The field as the file spells it.
    std::string shown = field;
    std::size_t backend = std::string::npos;
    if (field.rfind("backends[", 0) == 0) {
      backend = std::stoul(field.substr(9));
      if (backend < backendIndex.size()) {
        const std::string from = "backends[" + std::to_string(backend) + "]";
        const std::string to = "backends[" + std::to_string(backendIndex[backend]) + "]";
        shown = to + field.substr(from.size());
        if (const auto at = what.find(from); at != std::string::npos)
          what.replace(at, from.size(), to);
      }
    }
    const auto [line, column] = lineColumnOf(text, locator.find(shown));
    const std::string prefix = file + ": ";
    if (what.rfind(prefix, 0) == 0) {  // "file: field: what" -> "file:line:column: field: what"
      std::string located = file;
      located += ':';
      located += std::to_string(line);
      located += ':';
      located += std::to_string(column);
      located += ": ";
      located.append(what, prefix.size());
      what = std::move(located);
    }
    issues.push_back({line, column, shown, what});
    if (field.empty()) break;
    // Set the field aside and parse again: a whole backend entry, a whole list, a field (a
    // field that fails again after removal is required: its parent goes, or, at the top, a
    // neutral value takes its place).
    bool progressed = false;
    if (backend != std::string::npos && backend < backendIndex.size()) {
      progressed = erasePath(spec, "backends[" + std::to_string(backend) + "]");
      backendIndex.erase(backendIndex.begin() + std::ptrdiff_t(backend));
      if (spec["backends"].empty()) spec["backends"] = json::array({"cpu-fp32"});
    } else {
      std::string target =
          field.find('[') != std::string::npos ? field.substr(0, field.find('[')) : field;
      if (!seen.insert(target).second) target = parentOf(target);
      if (target == "name")
        spec["name"] = "study", progressed = true;
      else if (target == "version")
        spec["version"] = 1, progressed = true;
      else if (target == "backends")
        spec["backends"] = json::array({"cpu-fp32"}), progressed = true;
      else if (!target.empty())
        progressed = erasePath(spec, target);
    }
    if (!progressed) break;
  }
  return issues;
}

}  // namespace paritylab::study
