#include "core/study/run/study_shard.h"

#include <charconv>

namespace paritylab::study {
namespace {

constexpr int kMaxShards = 100000;

// A whole decimal number without sign or spaces; -1 when the text is not one.
int wholeNumber(const std::string& text) {
  int value = -1;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || text[0] == '-' || text[0] == '+')
    return -1;
  return value;
}

StudyShard parseShardText(const std::string& text, const std::string& where) {
  const auto slash = text.find('/');
  const int k = slash == std::string::npos ? -1 : wholeNumber(text.substr(0, slash));
  const int n = slash == std::string::npos ? -1 : wholeNumber(text.substr(slash + 1));
  if (k < 0 || n < 1 || n > kMaxShards)
    throw SpecError(where + " '" + text + "': expected K/N, shard K of N (1 <= K <= N <= " +
                    std::to_string(kMaxShards) + "), e.g. 2/3");
  if (k == 0) {
    throw SpecError(where + " '" + text + "': K counts from 1 (1.." + std::to_string(n) +
                    "); for a 0-based index (Kubernetes JOB_COMPLETION_INDEX, a Slurm array "
                    "--array=0-" +
                    std::to_string(n - 1) + ") pass INDEX+1");
  }
  if (k > n)
    throw SpecError(where + " '" + text + "': K is larger than N (shards are 1.." +
                    std::to_string(n) + ")");
  return {k, n};
}

}  // namespace

std::string StudyShard::text() const {
  return std::to_string(index) + "/" + std::to_string(count);
}

StudyShard parseShard(const std::string& text) {
  return parseShardText(text, "--shard");
}

StudyShard storedShard(const ResultsStore& store) {
  const std::string text = store.metaValue("shard");
  if (text.empty()) return {};
  try {
    return parseShardText(text, "shard");
  } catch (const SpecError& e) {
    throw StoreError(store.path() + ": damaged database: " + e.what());
  }
}

void recordOrCheckShard(ResultsStore& store, const StudyShard& shard, bool studyJustSaved) {
  if (studyJustSaved) {
    if (!shard.whole()) store.setMetaValue("shard", shard.text());
    return;
  }
  const StudyShard held = storedShard(store);
  if (held.index == shard.index && held.count == shard.count) return;
  if (held.whole()) {
    throw StoreError(store.path() + ": holds the whole study (run without --shard), not shard " +
                     shard.text() +
                     "; resume it without --shard, or give the shard a new database");
  }
  throw StoreError(store.path() + ": holds shard " + held.text() + " of its study, not " +
                   (shard.whole() ? std::string("the whole study") : shard.text()) +
                   " (resume it with --shard " + held.text() +
                   ", or join the shards with `paritylab-cli merge`)");
}

}  // namespace paritylab::study
