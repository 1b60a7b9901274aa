// A text source as a study loads it ("text:FILE"): the validation windows' targets are the test
// set's labels (one example per predicted position), the vocabulary names the classes, and what
// does not apply to text is refused naming the source.

#include "core/data/text_split.h"

#include <gtest/gtest.h>

#include <string>

#include "core/data/dataset.h"
#include "data_test_support.h"

namespace paritylab::data {
namespace {

using testing::expectDataError;
using testing::TempDir;

std::string writeTextFile(const TempDir& dir, const std::string& text) {
  const std::string path = (dir / "corpus.txt").string();
  testing::writeFile(path, testing::Bytes(text.begin(), text.end()), false);
  return path;
}

TEST(TextSplit, TheTestLabelsAreTheValidationTargetsAndTheClassesTheSymbols) {
  TempDir dir;
  // 100 bytes: 90 train, 10 validate ("0123456789"); block 3 gives windows at 0, 3 and 6 (the
  // last reads 6 7 8 and predicts 7 8 9).
  std::string text(90, 'a');
  text += "0123456789";
  DatasetSpec spec;
  spec.source = "text:" + writeTextFile(dir, text);
  spec.blockSize = 3;
  const DataSplit split = loadDataset(spec);
  ASSERT_TRUE(split.text);
  EXPECT_EQ(split.text->validationWindows(), 3u);
  // Vocabulary "0123456789a": ids 0..9 for the digits, 10 for 'a'.
  EXPECT_EQ(split.test.labels, (std::vector<std::int32_t>{1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(split.text->validationInputs, (std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(split.test.numClasses, 11);
  EXPECT_EQ(split.train.numClasses, 11);
  EXPECT_EQ(split.test.classNames.front(), "0");
  EXPECT_EQ(split.test.classNames.back(), "a");
  EXPECT_EQ(split.train.size(), 0u);  // no images
  EXPECT_TRUE(split.test.images.empty());
}

TEST(TextSplit, TestSizeCapsTheValidationWindows) {
  TempDir dir;
  DatasetSpec spec;
  spec.source = "text:" + writeTextFile(dir, std::string(1000, 'x') + std::string(1000, 'y'));
  spec.blockSize = 4;
  EXPECT_EQ(loadDataset(spec).text->validationWindows(), 49u);  // (200 - 1) / 4
  spec.testSize = 7;
  EXPECT_EQ(loadDataset(spec).text->validationWindows(), 7u);
}

TEST(TextSplit, SymbolsAreNamedSoThatATableCanShowThem) {
  EXPECT_EQ(symbolName('a'), "a");
  EXPECT_EQ(symbolName(' '), "space");
  EXPECT_EQ(symbolName('\n'), "\\n");
  EXPECT_EQ(symbolName('\t'), "\\t");
  EXPECT_EQ(symbolName(0x1b), "0x1b");
  EXPECT_EQ(symbolName(0xc3), "0xc3");
}

TEST(TextSplit, WhatDoesNotApplyToTextIsRefusedNamingTheSource) {
  TempDir dir;
  DatasetSpec spec;
  spec.source = "text:" + writeTextFile(dir, std::string(500, 'z') + "abc");
  expectDataError([&] { loadDataset(spec); }, {spec.source, "block size 0"});
  spec.blockSize = 4;
  DatasetSpec classes = spec;
  classes.classes = {0, 1};
  expectDataError([&] { loadDataset(classes); }, {spec.source, "classes do not apply to text"});
  DatasetSpec fraction = spec;
  fraction.testFraction = 0.2;
  expectDataError([&] { loadDataset(fraction); }, {spec.source, "test_fraction does not apply"});
  DatasetSpec train = spec;
  train.trainSize = 100;
  expectDataError([&] { loadDataset(train); }, {spec.source, "train_size does not apply"});
  DatasetSpec missing = spec;
  missing.source = "text:" + (dir / "nothing.txt").string();
  expectDataError([&] { loadDataset(missing); }, {"nothing.txt"});
}

}  // namespace
}  // namespace paritylab::data
