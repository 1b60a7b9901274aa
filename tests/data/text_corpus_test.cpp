// Text corpora for language models, prepared as nanoGPT's shakespeare_char prepare.py does (sorted
// byte vocabulary of the whole file, uint16 ids, contiguous 90/10 split), their training and
// validation windows, and the refusals of bad files, each naming the file.

#include "core/data/text_corpus.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "core/data/dataset.h"
#include "core/data/text_windows.h"
#include "core/input/input_limits.h"
#include "data_test_support.h"
#include "tests/support/child_with_time_limit.h"

namespace paritylab::data {
namespace {

using testing::expectDataError;
using testing::TempDir;

std::string writeText(const TempDir& dir, const std::string& text, bool gzip = false) {
  const std::string path = (dir / (gzip ? "corpus.txt.gz" : "corpus.txt")).string();
  testing::writeFile(path, testing::Bytes(text.begin(), text.end()), gzip);
  return path;
}

// 1000 bytes cycling through 37 symbols, so that windows at different offsets differ.
std::string variedText(std::size_t n = 1000) {
  const std::string symbols = "abcdefghijklmnopqrstuvwxyz .,;!?\nABCD";
  std::string text;
  for (std::size_t i = 0; i < n; ++i) text += symbols[(i * i + 3 * i) % symbols.size()];
  return text;
}

TEST(TextCorpus, VocabularyIsTheSortedDistinctBytesAndIdsArePositionsInIt) {
  TempDir dir;
  const TextCorpus corpus = loadTextCorpus(writeText(dir, "the cat sat on a mat"), 1);
  const std::string vocabulary(corpus.vocabulary.begin(), corpus.vocabulary.end());
  EXPECT_EQ(vocabulary, " acehmnost");
  EXPECT_EQ(corpus.vocabularySize(), 10);
  // t h e _ c a t _ s a t _ o n _ a _ m | a t
  EXPECT_EQ(corpus.train,
            (std::vector<std::uint16_t>{9, 4, 3, 0, 2, 1, 9, 0, 8, 1, 9, 0, 7, 6, 0, 1, 0, 5}));
  EXPECT_EQ(corpus.validation, (std::vector<std::uint16_t>{1, 9}));
  EXPECT_EQ(corpus.source, (dir / "corpus.txt").string());
}

// nanoGPT builds its vocabulary over the whole text before splitting: a symbol that occurs only in
// the validation part still has its own id (there is no unknown token).
TEST(TextCorpus, VocabularyCoversSymbolsOnlyTheValidationPartHas) {
  TempDir dir;
  const TextCorpus corpus = loadTextCorpus(writeText(dir, std::string(18, 'a') + "ZZ"), 1);
  EXPECT_EQ(corpus.vocabulary, (std::vector<std::uint8_t>{'Z', 'a'}));
  EXPECT_EQ(corpus.train, std::vector<std::uint16_t>(18, 1));
  EXPECT_EQ(corpus.validation, (std::vector<std::uint16_t>{0, 0}));
}

// Symbols are bytes: a two-byte UTF-8 character is two tokens, sorted after every ASCII byte.
TEST(TextCorpus, SymbolsAreBytesSoUtf8CharactersAreSeveralTokens) {
  TempDir dir;
  const TextCorpus corpus =
      loadTextCorpus(writeText(dir, "caf\xC3\xA9 caf\xC3\xA9 caf\xC3\xA9"), 1);
  EXPECT_EQ(corpus.vocabulary, (std::vector<std::uint8_t>{' ', 'a', 'c', 'f', 0xA9, 0xC3}));
  EXPECT_EQ(corpus.train.size() + corpus.validation.size(), 17u);
  EXPECT_EQ(corpus.train[3], 5);  // 0xC3
  EXPECT_EQ(corpus.train[4], 4);  // 0xA9
}

TEST(TextCorpus, GzipFilesReadAsTheirText) {
  TempDir dir;
  const std::string text = variedText();
  const TextCorpus raw = loadTextCorpus(writeText(dir, text), 8);
  const TextCorpus gz = loadTextCorpus(writeText(dir, text, true), 8);
  EXPECT_EQ(gz.vocabulary, raw.vocabulary);
  EXPECT_EQ(gz.train, raw.train);
  EXPECT_EQ(gz.validation, raw.validation);
}

// prepare.py: n = len(data); train = data[:int(n*0.9)]; val = data[int(n*0.9):].
TEST(TextCorpus, SplitIsNanoGptsContiguousNinetyTen) {
  for (std::size_t n = 0; n < 200'000; ++n)
    ASSERT_EQ(trainingTokenCount(n), std::size_t(double(n) * 0.9)) << n;
  for (std::size_t n : {std::size_t(1) << 28, (std::size_t(1) << 28) + 7, std::size_t(999'999'999)})
    EXPECT_EQ(trainingTokenCount(n), std::size_t(double(n) * 0.9)) << n;

  TempDir dir;
  const std::string text = variedText(1234);
  const TextCorpus corpus = loadTextCorpus(writeText(dir, text), 16);
  ASSERT_EQ(corpus.train.size(), 1110u);  // int(1234 * 0.9) = int(1110.6)
  ASSERT_EQ(corpus.validation.size(), 124u);
  for (std::size_t i = 0; i < text.size(); ++i) {
    const std::uint16_t id = i < 1110 ? corpus.train[i] : corpus.validation[i - 1110];
    ASSERT_EQ(corpus.vocabulary[id], std::uint8_t(text[i])) << i;
  }
}

TEST(TextWindows, TargetsAreInputsShiftedByOneAndBothAreSlicesOfTheTrainingTokens) {
  TempDir dir;
  const TextCorpus corpus = loadTextCorpus(writeText(dir, variedText()), 8);
  const int block = 8;
  const int batch = 5;
  const std::vector<std::size_t> offsets = trainingWindowOffsets(corpus, block, batch, 3, 0);
  ASSERT_EQ(offsets.size(), std::size_t(batch));
  std::vector<std::int32_t> inputs(batch * block), targets(batch * block);
  fillWindows(corpus.train, offsets, block, inputs.data(), targets.data());
  for (int w = 0; w < batch; ++w)
    for (int t = 0; t < block; ++t) {
      EXPECT_EQ(inputs[w * block + t], corpus.train[offsets[w] + t]);
      EXPECT_EQ(targets[w * block + t], corpus.train[offsets[w] + t + 1]);
      if (t + 1 < block) {
        EXPECT_EQ(targets[w * block + t], inputs[w * block + t + 1]);
      }
    }
}

TEST(TextWindows, TheSameSeedAndStepDrawTheSameWindowsAndAnotherStepOrSeedOthers) {
  TempDir dir;
  const TextCorpus corpus = loadTextCorpus(writeText(dir, variedText()), 8);
  const auto draw = [&](std::uint64_t seed, std::uint64_t step) {
    return trainingWindowOffsets(corpus, 8, 16, seed, step);
  };
  EXPECT_EQ(draw(7, 3), draw(7, 3));
  EXPECT_NE(draw(7, 3), draw(7, 4));
  EXPECT_NE(draw(7, 3), draw(8, 3));
  // A larger batch begins with the smaller batch's windows (one stream per seed and step).
  const std::vector<std::size_t> more = trainingWindowOffsets(corpus, 8, 32, 7, 3);
  EXPECT_EQ(std::vector<std::size_t>(more.begin(), more.begin() + 16), draw(7, 3));
}

// get_batch's torch.randint(len(data) - block_size): offsets 0 .. len - block_size - 1, each drawn.
TEST(TextWindows, TrainingOffsetsCoverTheWholeValidRangeAndNeverGoBeyond) {
  TempDir dir;
  const TextCorpus corpus = loadTextCorpus(writeText(dir, variedText(200)), 4);
  ASSERT_EQ(corpus.train.size(), 180u);
  const std::size_t bound = corpus.train.size() - 4;  // largest offset: 175
  std::set<std::size_t> seen;
  for (std::uint64_t step = 0; step < 200; ++step)
    for (std::size_t offset : trainingWindowOffsets(corpus, 4, 64, 11, step)) {
      ASSERT_LT(offset, bound);
      seen.insert(offset);
    }
  EXPECT_EQ(seen.size(), bound);
  EXPECT_EQ(*seen.rbegin(), corpus.train.size() - 4 - 1);
}

TEST(TextWindows, ValidationWindowsAreFixedConsecutiveAndInsideTheValidationPart) {
  TempDir dir;
  const TextCorpus corpus = loadTextCorpus(writeText(dir, variedText(1000)), 8);
  ASSERT_EQ(corpus.validation.size(), 100u);
  // (100 - 1) / 8 = 12 windows: offsets 0, 8, ..., 88; the last reads tokens 88..96.
  const std::vector<std::size_t> offsets = validationWindowOffsets(corpus, 8);
  ASSERT_EQ(offsets.size(), 12u);
  for (std::size_t k = 0; k < offsets.size(); ++k) EXPECT_EQ(offsets[k], 8 * k);
  EXPECT_EQ(validationWindowOffsets(corpus, 8), offsets);
  std::vector<std::int32_t> inputs(12 * 8), targets(12 * 8);
  fillWindows(corpus.validation, offsets, 8, inputs.data(), targets.data());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    EXPECT_EQ(inputs[i], corpus.validation[i]);  // consecutive: inputs are the part's first tokens
    EXPECT_EQ(targets[i], corpus.validation[i + 1]);
  }
  // Capped: the first windows only.
  EXPECT_EQ(validationWindowOffsets(corpus, 8, 5), (std::vector<std::size_t>{0, 8, 16, 24, 32}));
  // A window needs blockSize + 1 tokens: 100 tokens hold 1 window of 99, none of 100.
  EXPECT_EQ(validationWindowOffsets(corpus, 99).size(), 1u);
  EXPECT_TRUE(validationWindowOffsets(corpus, 100).empty());
}

TEST(TextWindows, AnEpochIsTheTrainingTokensOverTheBlockSize) {
  TempDir dir;
  const TextCorpus corpus = loadTextCorpus(writeText(dir, variedText(1000)), 8);
  EXPECT_EQ(windowsPerEpoch(corpus, 8), 900u / 8);
  EXPECT_EQ(windowsPerEpoch(corpus, 1), 900u);
  EXPECT_EQ(windowsPerEpoch(corpus, 899), 1u);
}

TEST(TextWindows, AWindowBeyondTheTokensIsRefused) {
  const std::vector<std::uint16_t> tokens(10, 0);
  std::vector<std::int32_t> inputs(4), targets(4);
  const std::vector<std::size_t> last{6};  // tokens 6..10: one past the end
  expectDataError([&] { fillWindows(tokens, last, 4, inputs.data(), targets.data()); },
                  {"offset 6", "5 tokens", "10"});
  const std::vector<std::size_t> fits{5};
  fillWindows(tokens, fits, 4, inputs.data(), targets.data());
}

TEST(TextCorpusErrors, AMissingFileIsNamed) {
  TempDir dir;
  const std::string path = (dir / "nothing.txt").string();
  expectDataError([&] { loadTextCorpus(path, 8); }, {path, "missing"});
  expectDataError([&] { loadTextCorpus(dir.str(), 8); }, {dir.str(), "is a directory"});
}

TEST(TextCorpusErrors, AnEmptyFileIsRefused) {
  TempDir dir;
  const std::string path = writeText(dir, "");
  expectDataError([&] { loadTextCorpus(path, 8); }, {path, "empty"});
}

// A gzip file whose compressed data is damaged is refused by ByteReader; a file without read
// permission cannot be opened (not checked as root, who reads it anyway).
TEST(TextCorpusErrors, ACorruptOrUnreadableFileIsNamed) {
  TempDir dir;
  const std::string gz = writeText(dir, variedText(), true);
  testing::Bytes bytes = testing::readFile(gz);
  ASSERT_GT(bytes.size(), 40u);
  for (std::size_t i = 20; i < 30; ++i) bytes[i] = 0xFF;
  testing::writeFile(gz, bytes);
  expectDataError([&] { loadTextCorpus(gz, 8); }, {gz, "corrupt"});

  if (::geteuid() == 0) return;
  const std::string path = writeText(dir, variedText());
  ::chmod(path.c_str(), 0);
  expectDataError([&] { loadTextCorpus(path, 8); }, {path, "cannot open"});
}

TEST(TextCorpusErrors, APartTooShortForTheBlockSizeSaysHowManyTokensItHasAndNeeds) {
  TempDir dir;
  const std::string path = writeText(dir, variedText(100));
  expectDataError([&] { loadTextCorpus(path, 64); },
                  {path, "the validation part has 10 tokens", "last 10% of 100",
                   "a block size of 64 needs at least 65"});
  expectDataError([&] { loadTextCorpus(path, 90); },
                  {path, "the training part has 90 tokens", "first 90% of 100",
                   "a block size of 90 needs at least 91"});
  EXPECT_EQ(loadTextCorpus(path, 9).validation.size(), 10u);  // exactly one window
  expectDataError([&] { loadTextCorpus(path, 0); }, {path, "block size 0 is not positive"});
}

// A sparse file one byte over the limit is refused by its size, before its text is read.
TEST(TextCorpusErrors, AFileOverTheSizeLimitIsRefusedBeforeItIsRead) {
  TempDir dir;
  const std::string path = writeText(dir, "x");
  std::filesystem::resize_file(path, input::kMaxTextCorpusBytes + 1);
  expectDataError([&] { loadTextCorpus(path, 8); },
                  {path, std::to_string(input::kMaxTextCorpusBytes + 1) + " bytes",
                   "more than the 268435456 bytes (256 MiB)"});
}

// A pipe nobody writes to would wait forever, /dev/zero never ends: both are refused before
// reading. In a child process: a hang fails the test after 10 s.
TEST(TextCorpusErrors, PipesAndDevicesAreRefusedWithoutHanging) {
  TempDir dir;
  const std::string fifo = (dir / "fifo.txt").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string zero = (dir / "zero.txt").string();
  std::filesystem::create_symlink("/dev/zero", zero);
  for (const std::string& path : {fifo, zero}) {
    const auto outcome = paritylab::testing::runInChild([&path] {
      try {
        loadTextCorpus(path, 8);
      } catch (const DataError& e) {
        return std::string(e.what()) == path + ": not a regular file (a pipe, device or socket)";
      }
      return false;
    });
    EXPECT_NE(outcome, paritylab::testing::ChildOutcome::TimedOut)
        << path << ": still reading after 10 s";
    EXPECT_EQ(outcome, paritylab::testing::ChildOutcome::Passed) << path;
  }
}

}  // namespace
}  // namespace paritylab::data
