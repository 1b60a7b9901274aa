// What each backend's language model writes from the study's prompt, side by side: per seed, one
// text per backend and where it first parts from the reference's text at the same seed. The
// difference made visible: two models that agree on every token for 150 characters and then
// part, or that part at the first word. Beside it, the same for two seeds of the reference
// (where two different models of one backend part), as churn has its seed floor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace paritylab::study {

class ResultsStore;

// The first byte position at which a and b differ; the shorter length when one is a prefix of
// the other; std::nullopt when they are equal.
std::optional<std::size_t> firstDifference(std::string_view a, std::string_view b);

struct BackendSample {
  std::string backend;
  std::int64_t runId = 0;
  std::string text;  // generated after the prompt (bytes of the corpus)
  // Against the reference's text at the same seed: where it first differs (nullopt: identical,
  // or this is the reference, or the reference has no sample at this seed).
  std::optional<std::size_t> firstDifference;
};

struct SeedSamples {
  std::uint64_t seed = 0;
  std::vector<BackendSample> backends;  // the study's order; backends without a sample left out
};

// One backend against the reference over the seeds both have samples of.
struct SampleAgreement {
  std::string backend;
  std::size_t seeds = 0;      // seeds with a sample of both
  std::size_t identical = 0;  // of them, texts identical to the reference's
  // Median over those seeds of the characters written before the texts part (an identical text
  // counts its whole length). NaN without seeds.
  double medianAgreeing = 0.0;
};

struct SamplesReport {
  std::string reference;
  std::string prompt;                      // the study's prompt (of the first sample)
  double temperature = 0.0;                // 0: greedy
  std::size_t length = 0;                  // characters generated (the longest sample)
  std::vector<SeedSamples> seeds;          // ascending seed
  std::vector<SampleAgreement> agreement;  // every backend but the reference, study order
  // Two seeds of the reference, consecutive seeds paired: how soon two different models of the
  // same backend part (the floor). seeds = pairs compared.
  std::optional<SampleAgreement> seedFloor;
  // Why something is missing, in words ("the study is not a language model", "run 4 (tpu-bf16,
  // seed 2) has no sample: it diverged", ...).
  std::vector<std::string> notes;
};

// Reads the samples of every run. `reference`: a backend of the study ("" = the study's first).
// std::invalid_argument naming the backend when it is not in the study; never throws for missing
// samples (notes say why).
SamplesReport compareSamples(const ResultsStore& store, const std::string& reference);

}  // namespace paritylab::study
