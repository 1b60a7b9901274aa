// `paritylab-cli samples DB [--b REF] [--seed S] [--json]`: the text each backend's language model
// writes from the study's prompt, side by side per seed, with where it first parts from the
// reference's text at the same seed (marked » in the text), and how soon two seeds of the
// reference part, as the floor.

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "app/cli/command_registry.h"
#include "core/study/analysis/text_samples.h"
#include "core/study/store/results_store.h"

namespace paritylab::cli {
namespace samples_command {

struct SamplesArgs {
  std::string db, b;
  std::int64_t seed = -1;
  bool json = false;
};

// A text on one line: a newline as "\n", a tab as "\t", other control bytes as "\xNN"; the
// mark » before byte `mark` (none when mark is beyond the text).
std::string shown(const std::string& text, std::size_t mark = std::string::npos) {
  std::string out;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == mark) out += "\u00bb";
    if (i == text.size()) break;
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 32 || c == 127) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", unsigned(c));
      out += hex;
    } else {
      out += char(c);
    }
  }
  return out;
}

// "37 characters (median over 5 seeds; 1 identical)"; over pairs of seeds for the floor.
std::string agreementWords(const study::SampleAgreement& a, bool pairs = false) {
  const char* unit = pairs ? (a.seeds == 1 ? "pair of seeds" : "pairs of seeds")
                           : (a.seeds == 1 ? "seed" : "seeds");
  char text[160];
  std::snprintf(text, sizeof text, "%.0f character%s (median over %zu %s; %zu identical)",
                a.medianAgreeing, std::lround(a.medianAgreeing) == 1 ? "" : "s", a.seeds, unit,
                a.identical);
  return text;
}

void printJson(const study::SamplesReport& r) {
  using nlohmann::json;
  const auto agreementJson = [](const study::SampleAgreement& a) {
    return json{{"backend", a.backend},
                {"seeds", a.seeds},
                {"identical", a.identical},
                {"median_agreeing_characters",
                 std::isfinite(a.medianAgreeing) ? json(a.medianAgreeing) : json()}};
  };
  json seeds = json::array();
  for (const study::SeedSamples& s : r.seeds) {
    json rows = json::array();
    for (const study::BackendSample& b : s.backends)
      rows.push_back({{"backend", b.backend},
                      {"run", b.runId},
                      {"text", b.text},
                      {"first_difference", b.firstDifference ? json(*b.firstDifference) : json()}});
    seeds.push_back({{"seed", s.seed}, {"backends", rows}});
  }
  json agreement = json::array();
  for (const study::SampleAgreement& a : r.agreement) agreement.push_back(agreementJson(a));
  const json out = {{"reference", r.reference},
                    {"prompt", r.prompt},
                    {"temperature", r.temperature},
                    {"length", r.length},
                    {"agreement", agreement},
                    {"seed_floor", r.seedFloor ? agreementJson(*r.seedFloor) : json()},
                    {"seeds", seeds},
                    {"notes", r.notes}};
  // Bytes as JSON text: a corpus need not be UTF-8, so invalid sequences become U+FFFD.
  std::cout << out.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
}

void runSamples(SamplesArgs& a) {
  const auto store = study::ResultsStore::openReadOnly(a.db);
  study::SamplesReport report;
  try {
    report = study::compareSamples(*store, a.b);
  } catch (const std::invalid_argument& e) {
    throw CommandError(e.what());
  }
  if (a.seed >= 0) {
    std::erase_if(report.seeds,
                  [&](const study::SeedSamples& s) { return s.seed != std::uint64_t(a.seed); });
    if (report.seeds.empty())
      throw CommandError(a.db + ": no sample of seed " + std::to_string(a.seed));
  }
  if (a.json) return printJson(report);
  if (report.seeds.empty()) {
    std::printf("%s holds no samples.\n", a.db.c_str());
    for (const std::string& note : report.notes) std::printf("  %s\n", note.c_str());
    return;
  }
  char temperature[32];
  std::snprintf(temperature, sizeof temperature, "%g", report.temperature);
  std::printf(
      "Samples (emulated backends): each model continues the prompt \"%s\" %s, up to %zu "
      "characters; \u00bb marks where a text first parts from %s's at the same seed.\n",
      shown(report.prompt).c_str(),
      report.temperature > 0 ? ("sampled at temperature " + std::string(temperature) +
                                " (the same random draws for every run)")
                                   .c_str()
                             : "greedily (the most likely next token each time)",
      report.length, report.reference.c_str());
  for (const study::SampleAgreement& x : report.agreement)
    std::printf("  %s writes what %s writes for %s\n", x.backend.c_str(), report.reference.c_str(),
                agreementWords(x).c_str());
  if (report.seedFloor)
    std::printf("  two seeds of %s agree for %s (the floor: two different models)\n",
                report.reference.c_str(), agreementWords(*report.seedFloor, true).c_str());
  int width = 8;
  for (const study::SeedSamples& s : report.seeds)
    for (const study::BackendSample& b : s.backends) width = std::max(width, int(b.backend.size()));
  for (const study::SeedSamples& s : report.seeds) {
    std::printf("\nseed %llu\n", static_cast<unsigned long long>(s.seed));
    for (const study::BackendSample& b : s.backends) {
      const std::size_t mark = b.firstDifference ? *b.firstDifference : std::string::npos;
      std::printf("  %-*s %s\n", width, b.backend.c_str(), shown(b.text, mark).c_str());
    }
  }
  for (const std::string& note : report.notes) std::printf("note: %s\n", note.c_str());
}

const CommandRegistration reg{
    "samples", 73, [](CLI::App& root) {
      auto* cmd = root.add_subcommand(
          "samples",
          "The text each backend's language model writes from the study's prompt, side by side "
          "per seed, with where it first parts from the reference's");
      auto a = std::make_shared<SamplesArgs>();
      cmd->add_option("db", a->db, "Results database of a language-model study")->required();
      cmd->add_option("--b", a->b, "The reference backend (default: the study's first)");
      cmd->add_option("--seed", a->seed, "Only this seed")->check(CLI::NonNegativeNumber);
      cmd->add_flag("--json", a->json, "Print a JSON object");
      cmd->callback([a] { runSamples(*a); });
    }};

}  // namespace samples_command
}  // namespace paritylab::cli
