#include "core/data/text_corpus.h"

#include <algorithm>
#include <array>
#include <cstdio>

#include "core/data/byte_reader.h"
#include "core/data/dataset.h"
#include "core/input/input_limits.h"

namespace paritylab::data {
namespace {

// The whole file (decompressed), refused past the limit before it is all held.
std::string readCorpusBytes(const std::string& path) {
  constexpr std::uint64_t limit = input::kMaxTextCorpusBytes;
  ByteReader reader(path);
  const auto tooLarge = [&](const std::string& size) {
    reader.fail(size + ", more than the " + std::to_string(limit) +
                " bytes (256 MiB) a text corpus may have");
  };
  std::string text;
  std::array<char, 1 << 16> chunk;
  std::size_t got = reader.readSome(chunk.data(), chunk.size());
  if (const auto raw = reader.rawSize(); raw && *raw > limit)
    tooLarge(std::to_string(*raw) + " bytes");
  while (got > 0) {
    text.append(chunk.data(), got);
    if (text.size() > limit) tooLarge("more than " + std::to_string(limit) + " bytes of text");
    got = reader.readSome(chunk.data(), chunk.size());
  }
  return text;
}

void requireWindow(const std::string& path, const char* part, const char* share, std::size_t have,
                   std::size_t total, int blockSize) {
  const std::size_t need = std::size_t(blockSize) + 1;
  if (have >= need) return;
  throwDataError(path, std::string("the ") + part + " part has " + std::to_string(have) +
                           " tokens (the " + share + " of " + std::to_string(total) +
                           "), a block size of " + std::to_string(blockSize) + " needs at least " +
                           std::to_string(need));
}

}  // namespace

std::size_t trainingTokenCount(std::size_t n) {
  return n / 10 * 9 + n % 10 * 9 / 10;  // n * 9 / 10 without overflow
}

TextCorpus loadTextCorpus(const std::string& path, int blockSize) {
  if (blockSize < 1)
    throwDataError(path, "block size " + std::to_string(blockSize) + " is not positive");
  const std::string text = readCorpusBytes(path);
  if (text.empty()) throwDataError(path, "empty (a text corpus needs text)");

  TextCorpus corpus;
  corpus.source = path;
  // Sorted distinct symbols of the whole text, and each byte's id.
  std::array<bool, 256> present{};
  for (const char c : text) present[static_cast<unsigned char>(c)] = true;
  std::array<std::uint16_t, 256> id{};
  for (int b = 0; b < 256; ++b) {
    if (!present[std::size_t(b)]) continue;
    id[std::size_t(b)] = std::uint16_t(corpus.vocabulary.size());
    corpus.vocabulary.push_back(std::uint8_t(b));
  }

  const std::size_t n = text.size();
  const std::size_t trainCount = trainingTokenCount(n);
  requireWindow(path, "training", "first 90%", trainCount, n, blockSize);
  requireWindow(path, "validation", "last 10%", n - trainCount, n, blockSize);
  const auto encode = [&](std::size_t from, std::size_t to, std::vector<std::uint16_t>& out) {
    out.resize(to - from);
    for (std::size_t i = from; i < to; ++i) out[i - from] = id[static_cast<unsigned char>(text[i])];
  };
  encode(0, trainCount, corpus.train);
  encode(trainCount, n, corpus.validation);
  return corpus;
}

std::vector<std::int32_t> encodeText(const TextCorpus& corpus, std::string_view text,
                                     std::string_view field) {
  std::vector<std::int32_t> ids;
  ids.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const auto at = std::lower_bound(corpus.vocabulary.begin(), corpus.vocabulary.end(), byte);
    if (at == corpus.vocabulary.end() || *at != byte) {
      char shown[48];
      if (byte > 32 && byte < 127)
        std::snprintf(shown, sizeof shown, "'%c' (byte 0x%02x)", char(byte), unsigned(byte));
      else
        std::snprintf(shown, sizeof shown, "byte 0x%02x", unsigned(byte));
      throwDataError(corpus.source, std::string(field) + ": " + shown + " at position " +
                                        std::to_string(i) + " is not in the text's vocabulary (" +
                                        std::to_string(corpus.vocabulary.size()) +
                                        " symbols); use characters of the text itself");
    }
    ids.push_back(std::int32_t(at - corpus.vocabulary.begin()));
  }
  return ids;
}

std::string decodeTokens(const TextCorpus& corpus, std::span<const std::int32_t> ids) {
  std::string text;
  text.reserve(ids.size());
  for (std::int32_t id : ids) text.push_back(char(corpus.vocabulary.at(std::size_t(id))));
  return text;
}

}  // namespace paritylab::data
