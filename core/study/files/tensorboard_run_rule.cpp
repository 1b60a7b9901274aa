#include "core/study/files/tensorboard_run_rule.h"

#include <charconv>
#include <cstddef>
#include <string_view>

#include "core/input/input_limits.h"
#include "core/input/number_input.h"

namespace paritylab::study {
namespace {

using Token = RunPathRule::Token;
using Segment = RunPathRule::Segment;

constexpr std::size_t kMaxRuleLength = 500;

std::vector<std::string> split(std::string_view path) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '/') {
      parts.emplace_back(path.substr(start, i - start));
      start = i + 1;
    }
  }
  return parts;
}

// What the placeholders of one segment took, while it is being matched.
struct Capture {
  std::string backend, seed;
};

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

// Does text[at..] match tokens[t..]? Placeholders and stars take as few characters as they can.
bool matchTokens(const Segment& tokens, std::size_t t, std::string_view text, std::size_t at,
                 Capture& capture) {
  if (t == tokens.size()) return at == text.size();
  const Token& token = tokens[t];
  if (token.kind == Token::Literal) {
    return text.substr(at, token.text.size()) == token.text &&
           matchTokens(tokens, t + 1, text, at + token.text.size(), capture);
  }
  const std::size_t least = token.kind == Token::Star ? 0 : 1;
  for (std::size_t n = least; at + n <= text.size(); ++n) {
    if (token.kind == Token::Seed && n > 0 && !isDigit(text[at + n - 1])) return false;
    if (matchTokens(tokens, t + 1, text, at + n, capture)) {
      if (token.kind == Token::Backend) capture.backend = std::string(text.substr(at, n));
      if (token.kind == Token::Seed) capture.seed = std::string(text.substr(at, n));
      return true;
    }
  }
  return false;
}

bool matchSegments(const std::vector<Segment>& segments, const std::vector<bool>& anyDepth,
                   std::size_t s, const std::vector<std::string>& parts, std::size_t p,
                   Capture& capture) {
  if (s == segments.size()) return p == parts.size();
  if (anyDepth[s]) {
    for (std::size_t q = p; q <= parts.size(); ++q)
      if (matchSegments(segments, anyDepth, s + 1, parts, q, capture)) return true;
    return false;
  }
  return p < parts.size() && matchTokens(segments[s], 0, parts[p], 0, capture) &&
         matchSegments(segments, anyDepth, s + 1, parts, p + 1, capture);
}

}  // namespace

RunPathRule RunPathRule::parse(const std::string& text, const std::string& option) {
  const auto refuse = [&](const std::string& why) -> RunPathRule {
    throw input::InputError(option + " '" + input::excerpt(text, 80) + "': " + why +
                            " (a rule is path:PATTERN, e.g. path:{backend}/seed{seed}; "
                            "docs/import.md)");
  };
  constexpr std::string_view kPrefix = "path:";
  if (text.compare(0, kPrefix.size(), kPrefix) != 0) return refuse("does not start with 'path:'");
  if (text.size() > kMaxRuleLength)
    return refuse("longer than " + std::to_string(kMaxRuleLength) + " characters");
  RunPathRule rule;
  rule.text_ = text;
  const std::string pattern = text.substr(kPrefix.size());
  if (pattern.empty()) return refuse("no pattern after 'path:'");
  if (pattern.front() == '/' || pattern.back() == '/')
    return refuse("the pattern is relative to the imported folder: no '/' at its start or end");
  int backends = 0, seeds = 0;
  for (const std::string& part : split(pattern)) {
    if (part.empty()) return refuse("an empty folder name ('//')");
    if (part == "." || part == "..") return refuse("'" + part + "' is not a folder name here");
    const bool anyDepth = part == "**";
    rule.anyDepth_.push_back(anyDepth);
    rule.segments_.emplace_back();
    if (anyDepth) continue;
    Segment& tokens = rule.segments_.back();
    for (std::size_t i = 0; i < part.size();) {
      if (part[i] == '{') {
        const std::size_t close = part.find('}', i);
        if (close == std::string::npos) return refuse("a '{' without its '}'");
        const std::string name = part.substr(i + 1, close - i - 1);
        if (name == "backend") {
          tokens.push_back({Token::Backend, {}});
          ++backends;
        } else if (name == "seed") {
          tokens.push_back({Token::Seed, {}});
          ++seeds;
        } else {
          return refuse("unknown placeholder {" + input::excerpt(name, 40) +
                        "} (the placeholders are {backend} and {seed})");
        }
        i = close + 1;
      } else if (part[i] == '}') {
        return refuse("a '}' without its '{'");
      } else if (part[i] == '*') {
        if (part.size() > 1 && part.find("**") != std::string::npos)
          return refuse("'**' stands for whole folders: it must be a folder name of its own");
        tokens.push_back({Token::Star, {}});
        ++i;
      } else {
        if (tokens.empty() || tokens.back().kind != Token::Literal)
          tokens.push_back({Token::Literal, {}});
        tokens.back().text += part[i];
        ++i;
      }
    }
    for (std::size_t t = 1; t < tokens.size(); ++t)
      if (tokens[t].kind != Token::Literal && tokens[t - 1].kind != Token::Literal &&
          (tokens[t].kind != Token::Seed || tokens[t - 1].kind == Token::Seed))
        return refuse(
            "two placeholders or stars side by side cannot be told apart (only {backend}{seed} "
            "and *{seed} can)");
  }
  if (backends != 1) return refuse("the pattern needs {backend} exactly once");
  if (seeds > 1) return refuse("{seed} may appear once at most");
  rule.hasSeed_ = seeds == 1;
  return rule;
}

std::optional<RunFolderIdentity> RunPathRule::match(const std::string& relativeFolder) const {
  Capture capture;
  if (!matchSegments(segments_, anyDepth_, 0, split(relativeFolder), 0, capture))
    return std::nullopt;
  RunFolderIdentity identity{capture.backend, std::nullopt};
  if (hasSeed_) {
    std::uint64_t seed = 0;
    const char* end = capture.seed.data() + capture.seed.size();
    const auto read = std::from_chars(capture.seed.data(), end, seed);
    if (read.ec != std::errc() || read.ptr != end || seed > std::uint64_t(input::kMaxSeedValue))
      return std::nullopt;
    identity.seed = seed;
  }
  return identity;
}

}  // namespace paritylab::study
