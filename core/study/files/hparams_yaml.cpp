#include "core/study/files/hparams_yaml.h"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string_view>
#include <vector>

#include "core/input/csv.h"
#include "core/study/files/import_checks.h"

namespace paritylab::study {
namespace {

namespace fs = std::filesystem;

using import_checks::shownValue;
using namespace std::string_view_literals;

constexpr std::uintmax_t kMaxHparamsBytes = 16u << 20;
constexpr std::size_t kMaxDepth = 32;        // nested mappings
constexpr std::size_t kMaxKeyLength = 200;   // one key of a dotted name
constexpr std::string_view kSpaces = " \t";  // separate a value from its key or comment

std::string_view trimmedRight(std::string_view text) {
  const auto last = text.find_last_not_of(" \t\r");
  return last == std::string_view::npos ? std::string_view() : text.substr(0, last + 1);
}

std::string_view trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r");
  return first == std::string_view::npos ? std::string_view() : trimmedRight(text.substr(first));
}

bool isItem(std::string_view rest) {
  return rest == "-" || (rest.size() > 1 && rest[0] == '-' && (rest[1] == ' ' || rest[1] == '\t'));
}

void appendUtf8(std::string& out, std::uint32_t c) {
  if (c < 0x80) {
    out += char(c);
  } else if (c < 0x800) {
    out += char(0xC0 | (c >> 6));
    out += char(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += char(0xE0 | (c >> 12));
    out += char(0x80 | ((c >> 6) & 0x3F));
    out += char(0x80 | (c & 0x3F));
  } else {
    out += char(0xF0 | (c >> 18));
    out += char(0x80 | ((c >> 12) & 0x3F));
    out += char(0x80 | ((c >> 6) & 0x3F));
    out += char(0x80 | (c & 0x3F));
  }
}

// A scalar read from the start of a line's text, or why it is not read.
struct Scalar {
  std::string value;
  std::size_t end = 0;  // just past it in the text
  std::string notRead;  // not "": what it is (it is skipped)
};

std::optional<std::uint32_t> hexDigits(std::string_view text, std::size_t at, std::size_t count) {
  if (at + count > text.size()) return std::nullopt;
  std::uint32_t c = 0;
  for (std::size_t i = at; i < at + count; ++i) {
    const char h = text[i];
    const int d = h >= '0' && h <= '9'   ? h - '0'
                  : h >= 'a' && h <= 'f' ? h - 'a' + 10
                  : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                         : -1;
    if (d < 0) return std::nullopt;
    c = c * 16 + std::uint32_t(d);
  }
  if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return std::nullopt;
  return c;
}

// '...' ('' a quote) or "..." (YAML's escapes) at the start of `text`.
Scalar quoted(std::string_view text) {
  Scalar s;
  const char quote = text[0];
  for (std::size_t i = 1; i < text.size(); ++i) {
    const char c = text[i];
    if (quote == '\'' && c == '\'') {
      if (i + 1 < text.size() && text[i + 1] == '\'') {
        s.value += '\'';
        ++i;
        continue;
      }
      s.end = i + 1;
      return s;
    }
    if (quote == '"' && c == '"') {
      s.end = i + 1;
      return s;
    }
    if (quote == '"' && c == '\\') {
      if (i + 1 >= text.size()) break;  // a line continued on the next one
      const char e = text[++i];
      static constexpr std::string_view kFrom = "\\\"/0abtnvfre \t"sv;
      static constexpr std::string_view kTo = "\\\"/\0\a\b\t\n\v\f\r\x1b \t"sv;
      if (const auto k = kFrom.find(e); k != std::string_view::npos) {
        s.value += kTo[k];
        continue;
      }
      const std::size_t digits = e == 'x' ? 2 : e == 'u' ? 4 : e == 'U' ? 8 : 0;
      const std::uint32_t named = e == 'N'   ? 0x85
                                  : e == '_' ? 0xA0
                                  : e == 'L' ? 0x2028
                                  : e == 'P' ? 0x2029
                                             : 0;
      if (named != 0) {
        appendUtf8(s.value, named);
        continue;
      }
      const auto code = digits > 0 ? hexDigits(text, i + 1, digits) : std::nullopt;
      if (!code) {
        s.notRead =
            "a double-quoted value with an escape YAML does not have (\\" + std::string(1, e) + ")";
        return s;
      }
      appendUtf8(s.value, *code);
      i += digits;
      continue;
    }
    s.value += c;
  }
  s.notRead = "a quoted value continued on the next lines";
  return s;
}

// The value after a key (trimmed, not empty).
Scalar valueOf(std::string_view text) {
  Scalar s;
  switch (text[0]) {
    case '\'':
    case '"': {
      s = quoted(text);
      if (!s.notRead.empty()) return s;
      const std::string_view rest = trimmed(text.substr(s.end));
      if (!rest.empty() && rest[0] != '#') s.notRead = "a quoted value followed by more text";
      return s;
    }
    case '{':
    case '[':
      s.notRead = "a flow collection ({...} or [...])";
      return s;
    case '&':
      s.notRead = "an anchor (&NAME)";
      return s;
    case '*':
      s.notRead = "an alias (*NAME)";
      return s;
    case '!':
      s.notRead = "a tagged value (" + std::string(text.substr(0, text.find(' '))) + ")";
      return s;
    case '|':
    case '>':
      s.notRead = "a block scalar (| or >)";
      return s;
    case '%':
    case '@':
    case '`':
      s.notRead = "a value starting with " + std::string(1, text[0]) + " (reserved in YAML)";
      return s;
    default:
      break;
  }
  std::string_view plain = text;
  for (std::size_t i = 1; i < plain.size(); ++i) {
    if (plain[i] == '#' && kSpaces.find(plain[i - 1]) != std::string_view::npos) {
      plain = trimmedRight(plain.substr(0, i));
      break;
    }
  }
  if (plain == "null" || plain == "Null" || plain == "NULL" || plain == "~") plain = {};
  s.value = std::string(plain);
  return s;
}

// The key of a `key: value` line and where its value starts; nullopt when the line is none.
struct Key {
  std::string name;
  std::size_t valueAt = 0;
};

std::optional<Key> keyOf(std::string_view rest) {
  Key key;
  std::size_t colon = 0;
  if (rest[0] == '\'' || rest[0] == '"') {
    const Scalar s = quoted(rest);
    if (!s.notRead.empty()) return std::nullopt;
    colon = rest.find_first_not_of(kSpaces, s.end);
    if (colon == std::string_view::npos || rest[colon] != ':') return std::nullopt;
    key.name = s.value;
  } else {
    if (std::string_view("[]{},&*!|>%@`?:-").find(rest[0]) != std::string_view::npos &&
        !(rest[0] == '-' && rest.size() > 1 && kSpaces.find(rest[1]) == std::string_view::npos))
      return std::nullopt;
    for (colon = rest.find(':'); colon != std::string_view::npos; colon = rest.find(':', colon + 1))
      if (colon + 1 == rest.size() || kSpaces.find(rest[colon + 1]) != std::string_view::npos)
        break;
    if (colon == std::string_view::npos) return std::nullopt;
    const std::string_view name = trimmedRight(rest.substr(0, colon));
    if (name.empty() || name.find(" #") != std::string_view::npos) return std::nullopt;
    key.name = std::string(name);
  }
  if (colon + 1 < rest.size() && kSpaces.find(rest[colon + 1]) == std::string_view::npos)
    return std::nullopt;
  key.valueAt = colon + 1;
  return key;
}

class HparamsReader {
 public:
  HparamsReader(std::string file, const std::set<std::string>& keys)
      : file_(std::move(file)), keys_(keys) {}

  void line(int number, std::string_view text) {
    text = trimmedRight(text);
    const std::size_t indent = text.find_first_not_of(' ');
    if (indent == std::string_view::npos) return;  // blank
    const std::string_view rest = text.substr(indent);
    if (skip_ &&
        (indent > skip_->indent || (skip_->items && indent == skip_->indent && isItem(rest))))
      return;
    skip_.reset();
    if (rest[0] == '#') return;
    if (rest[0] == '\t') {  // YAML indents with spaces: the line, and what it holds, are skipped
      if (open_) notRead(*open_, "a value indented with a tab");
      skipFrom(open_ ? open_->indent : indent, false);
      open_.reset();
      last_.reset();
      return;
    }
    if (indent == 0 && (rest == "---" || rest.substr(0, 4) == "--- " || rest == "...")) {
      endValue();
      levels_.clear();
      return;
    }
    if (open_) {
      const Open key = *open_;
      open_.reset();
      if (indent > key.indent && isItem(rest)) {
        notRead(key, "a list");
        skipFrom(key.indent, false);
        return;
      }
      if (indent == key.indent && isItem(rest)) {  // yaml.dump's list under a key
        notRead(key, "a list");
        skipFrom(indent, true);
        return;
      }
      if (indent > key.indent) {
        if (keys_.count(key.name) > 0) {
          refuse(key,
                 "a mapping of keys, not a value (name one of its keys: " + key.name + ".KEY)");
        }
        if (levels_.size() >= kMaxDepth) {
          notRead(key, "a mapping nested deeper than " + std::to_string(kMaxDepth) + " levels");
          skipFrom(key.indent, false);
          return;
        }
        levels_.push_back({indent, key.name + "."});
      } else {
        keep(key, "");  // no value
      }
    } else if (last_ && indent > last_->indent) {  // the value before goes on here
      notRead(*last_, "a value continued on the next lines");
      skipFrom(last_->indent, false);
      last_.reset();
      return;
    }
    last_.reset();
    while (!levels_.empty() && levels_.back().indent > indent) levels_.pop_back();
    if (levels_.empty()) levels_.push_back({indent, ""});
    if (levels_.back().indent != indent || isItem(rest) || rest[0] == '?') {
      skipFrom(indent, isItem(rest));  // no key of a mapping read: a list, a complex key
      return;
    }
    const std::optional<Key> key = keyOf(rest);
    if (!key) {
      skipFrom(indent, false);
      return;
    }
    const Open here{levels_.back().prefix + key->name, indent, number};
    if (key->name.size() > kMaxKeyLength) {
      notRead(here, "a key longer than " + std::to_string(kMaxKeyLength) + " characters");
      skipFrom(indent, false);
      return;
    }
    const std::string_view value = trimmed(rest.substr(key->valueAt));
    if (value.empty() || value[0] == '#') {
      open_ = here;
      return;
    }
    const Scalar scalar = valueOf(value);
    if (!scalar.notRead.empty()) {
      notRead(here, scalar.notRead);
      skipFrom(indent, false);
      return;
    }
    keep(here, scalar.value);
    last_ = here;
  }

  // The end of the file (or of a document): a key opened last has no value.
  void endValue() {
    if (open_) keep(*open_, "");
    open_.reset();
    last_.reset();
    skip_.reset();
  }

  std::map<std::string, TrackedAttribute> out;

 private:
  struct Open {  // a key read, with where
    std::string name;
    std::size_t indent;
    int line;
  };
  struct Level {
    std::size_t indent;
    std::string prefix;  // "model.optimizer."
  };
  struct Skip {
    std::size_t indent;
    bool items;  // list items at `indent` too
  };

  void skipFrom(std::size_t indent, bool items) { skip_ = Skip{indent, items}; }

  void keep(const Open& key, std::string value) {
    if (keys_.count(key.name) == 0) return;
    out.insert_or_assign(
        key.name, TrackedAttribute{std::move(value),
                                   file_ + ":" + std::to_string(key.line) + ": " + key.name});
  }

  [[noreturn]] void refuse(const Open& key, const std::string& what) const {
    throw input::CsvError(file_ + ":" + std::to_string(key.line) + ": hyperparameter " +
                          shownValue(key.name) + " is " + what);
  }

  // `key`'s value is not read: refused when it is asked for or holds a key asked for.
  void notRead(const Open& key, const std::string& what) {
    out.erase(key.name);
    const std::string why = what +
                            ", which is not read (hparams.yaml is read as nested 'key: value' "
                            "mappings of plain or quoted values; docs/import.md)";
    if (keys_.count(key.name) > 0) refuse(key, why);
    const std::string under = key.name + ".";
    const auto inside = keys_.lower_bound(under);
    if (inside != keys_.end() && inside->compare(0, under.size(), under) == 0) {
      throw input::CsvError(file_ + ":" + std::to_string(key.line) + ": hyperparameter " +
                            shownValue(*inside) + " lies in " + shownValue(key.name) + ", " + why);
    }
  }

  std::string file_;
  const std::set<std::string>& keys_;
  std::vector<Level> levels_;
  std::optional<Open> open_;  // "key:" without a value on its line: a mapping, a list or none
  std::optional<Open> last_;  // the key whose value the line before held
  std::optional<Skip> skip_;
};

}  // namespace

std::map<std::string, TrackedAttribute> readHparamsYaml(const std::string& file,
                                                        const std::set<std::string>& keys) {
  std::error_code error;
  const std::uintmax_t size = fs::file_size(file, error);
  if (error) return {};
  if (size > kMaxHparamsBytes) {
    throw input::CsvError(file + ": " + std::to_string(size) +
                          " bytes, more than a Lightning hparams.yaml holds (at most " +
                          std::to_string(kMaxHparamsBytes) + " are read)");
  }
  std::ifstream in(file, std::ios::binary);
  HparamsReader reader(file, keys);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    std::string_view text = line;
    if (number == 1 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // a BOM
    reader.line(number, text);
  }
  reader.endValue();
  return std::move(reader.out);
}

}  // namespace paritylab::study
