#include "core/input/json_input.h"

#include <cmath>
#include <limits>
#include <set>
#include <vector>

#include "core/input/input_limits.h"

namespace paritylab::input {
namespace {

using nlohmann::json;

// Stops the scan with the first problem. Keeps the path to the current value so that the
// message can say where the problem is.
class ScanError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class PreScan : public nlohmann::json_sax<json> {
 public:
  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override { return open(false); }
  bool key(string_t& key) override {
    Frame& frame = frames_.back();
    if (!frame.keys.insert(key).second)
      throw ScanError(pathText(false) + "duplicate key '" + excerpt(key) + "'");
    frame.key = key;
    return true;
  }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(true); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t, const std::string&,
                   const nlohmann::detail::exception& ex) override {
    syntaxMessage = ex.what();
    if (const auto* pe = dynamic_cast<const json::parse_error*>(&ex)) syntaxByte = pe->byte;
    return false;
  }

  std::string syntaxMessage;
  std::size_t syntaxByte = 0;

 private:
  struct Frame {
    bool array = false;
    std::size_t index = 0;
    std::string key;
    std::set<std::string> keys;
  };
  bool value() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
    return true;
  }
  bool open(bool array) {
    if (frames_.size() >= std::size_t(kMaxJsonDepth))
      throw ScanError(pathText() + "JSON nested deeper than " + std::to_string(kMaxJsonDepth) +
                      " levels");
    frames_.push_back({array, 0, {}, {}});
    return true;
  }
  bool close() {
    frames_.pop_back();
    return value();
  }
  // "backends[0].policy: " (empty at the top level); long paths keep their start.
  // `currentKey`: include the key being read in the innermost object (false: the object itself).
  std::string pathText(bool currentKey = true) const {
    std::string path;
    for (const Frame& f : frames_) {
      if (f.array)
        path += "[" + std::to_string(f.index) + "]";
      else if (!f.key.empty() && (currentKey || &f != &frames_.back()))
        path += (path.empty() ? "" : ".") + excerpt(f.key, 24);
      if (path.size() > 120) return path.substr(0, 120) + "...: ";
    }
    return path.empty() ? "" : path + ": ";
  }
  std::vector<Frame> frames_;
};

void appendExcerpt(const json& v, std::string& out, std::size_t budget, int depth) {
  if (out.size() > budget) return;
  if (depth >= kMaxJsonDepth) {
    out += "...";
    return;
  }
  if (v.is_object() || v.is_array()) {
    const bool object = v.is_object();
    out += object ? '{' : '[';
    bool first = true;
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (out.size() > budget) return;
      if (!first) out += ',';
      first = false;
      if (object) out += json(it.key()).dump(-1, ' ', false, json::error_handler_t::replace) + ':';
      appendExcerpt(*it, out, budget, depth + 1);
    }
    out += object ? '}' : ']';
  } else if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    out += json(s.size() > budget ? s.substr(0, budget) : s)
               .dump(-1, ' ', false, json::error_handler_t::replace);
  } else {
    out += v.dump();
  }
}

}  // namespace

std::pair<int, int> lineColumnOf(std::string_view text, std::size_t pos) {
  int line = 1, col = 1;
  for (std::size_t i = 0; i < pos && i < text.size(); ++i) {
    if (text[i] == '\n')
      ++line, col = 1;
    else
      ++col;
  }
  return {line, col};
}

json parseJsonText(std::string_view text, const std::string& source) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  PreScan scan;
  try {
    if (!json::sax_parse(text, &scan)) {
      // ex.byte is 1-based: the byte where parsing stopped.
      const auto [line, col] = lineColumnOf(text, scan.syntaxByte > 0 ? scan.syntaxByte - 1 : 0);
      const std::string& what = scan.syntaxMessage;
      const auto p = what.find("syntax error");
      throw InputError(
          source + ":" + std::to_string(line) + ":" + std::to_string(col) +
          ": invalid JSON: " + excerpt(p == std::string::npos ? what : what.substr(p), 200));
    }
  } catch (const ScanError& ex) {
    throw InputError(source + ": " + ex.what());
  }
  return json::parse(text);  // cannot fail now: the same text passed the same parser
}

std::string jsonExcerpt(const json& value, std::size_t maxChars) {
  std::string out;
  appendExcerpt(value, out, maxChars, 0);
  if (out.size() > maxChars) return out.substr(0, maxChars) + "...";
  return out;
}

std::int64_t requireJsonInteger(const json& value, const std::string& field, IntegerLimits limits) {
  if (value.is_number_unsigned()) {
    const auto u = value.get<std::uint64_t>();
    if (u > std::uint64_t(INT64_MAX) || std::int64_t(u) < limits.min ||
        std::int64_t(u) > limits.max)
      throw InputError(field + ": expected " + describe(limits) + ", got " + value.dump());
    return std::int64_t(u);
  }
  if (value.is_number_integer()) {
    const auto i = value.get<std::int64_t>();
    if (i < limits.min || i > limits.max)
      throw InputError(field + ": expected " + describe(limits) + ", got " + value.dump());
    return i;
  }
  if (value.is_number_float())
    return requireInteger(value.get<double>(), field, limits, jsonExcerpt(value));
  throw InputError(field + ": expected " + describe(limits) + ", got " + jsonExcerpt(value));
}

double requireJsonReal(const json& value, const std::string& field, RealLimits limits) {
  if (!value.is_number())
    throw InputError(field + ": expected " + describe(limits) + ", got " + jsonExcerpt(value));
  return requireReal(value.get<double>(), field, limits, jsonExcerpt(value));
}

json jsonNumber(double v) {
  if (std::isnan(v)) return nullptr;
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

double numberFromJson(const json& value, const std::string& field) {
  if (value.is_null()) return std::numeric_limits<double>::quiet_NaN();
  if (value.is_number()) return value.get<double>();
  if (value == "inf") return std::numeric_limits<double>::infinity();
  if (value == "-inf") return -std::numeric_limits<double>::infinity();
  throw InputError(field + ": expected a number, null or \"inf\", got " + jsonExcerpt(value));
}

}  // namespace paritylab::input
