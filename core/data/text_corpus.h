#pragma once
// A text corpus for a character-level language model (the source "text:FILE"), prepared as
// nanoGPT's data/shakespeare_char/prepare.py prepares one:
//   - the vocabulary is the sorted distinct symbols of the WHOLE file (prepare.py builds
//     `chars = sorted(list(set(data)))` before it splits), so every symbol of the validation part
//     has an id and there is no "unknown" token;
//   - token ids are positions in that vocabulary, stored as uint16 (prepare.py's np.uint16);
//   - the split is contiguous: the first int(n * 0.9) tokens train, the rest validate.
//
// Symbols are BYTES, not Unicode code points. nanoGPT's symbols are Python characters (code
// points); for ASCII text such as tinyshakespeare the two are the same symbols in the same order,
// so the vocabulary and every id equal prepare.py's. Bytes were chosen because any file is a valid
// corpus (no encoding to get wrong, nothing to refuse), and a vocabulary has at most 256 symbols,
// far below uint16's 65,535, so it can never overflow the token type. A non-ASCII character of a
// UTF-8 text becomes two to four tokens.
//
// The file may be gzip-compressed (read through ByteReader). It must be a regular file (a pipe or
// device is refused before anything is read) of at most input::kMaxTextCorpusBytes bytes after
// decompression; loading holds the text (1 byte a symbol) and its tokens (2 bytes) at once.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace paritylab::data {

// The corpus of the example study and of `bench --model gpt`: songs and poems from Debian's
// fortunes package (BSD licence, 234 KB), installed by setup.sh.
inline constexpr const char* kDefaultTextCorpus = "/usr/share/games/fortunes/songs-poems";

struct TextCorpus {
  std::string source;                     // the file it was read from, for messages
  std::vector<std::uint8_t> vocabulary;   // [vocabularySize] the byte each id stands for, ascending
  std::vector<std::uint16_t> train;       // [trainingTokenCount(n)] ids, the first 90% of the file
  std::vector<std::uint16_t> validation;  // [n - trainingTokenCount(n)] ids, the last 10%

  int vocabularySize() const { return int(vocabulary.size()); }
};

// How many of a text's n tokens train: nanoGPT's int(n * 0.9), computed exactly as n * 9 / 10 (the
// two agree for every n below 2^53, since the double 0.9 is a little above 9/10).
std::size_t trainingTokenCount(std::size_t n);

// Reads `path`, builds the vocabulary and splits. Both parts must hold at least blockSize + 1
// tokens (a window: blockSize inputs and the next token as the last target). Throws DataError
// naming the file: missing, a directory, not a regular file, unreadable, corrupt gzip, empty,
// larger than the limit, or a part too short for the block size ("PATH: the validation part has
// 10 tokens (the last 10% of 100), a block size of 64 needs at least 65"). blockSize < 1 is
// refused too.
TextCorpus loadTextCorpus(const std::string& path, int blockSize);

// The ids of `text`'s bytes in the corpus's vocabulary (a prompt). Throws DataError naming the
// corpus, the byte and its position when one is not in the vocabulary; `field` names where the
// text came from ("samples.prompt").
std::vector<std::int32_t> encodeText(const TextCorpus& corpus, std::string_view text,
                                     std::string_view field);
// The bytes of ids in [0, vocabularySize) (std::out_of_range otherwise).
std::string decodeTokens(const TextCorpus& corpus, std::span<const std::int32_t> ids);

}  // namespace paritylab::data
