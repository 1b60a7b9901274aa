// The scalars of an event file read back exactly as make_tensorboard_fixtures.py wrote them: tags,
// steps, wall times and values, in both forms (simple_value, and a scalar tensor of the "scalars"
// plugin whose metadata comes with a tag's first value only, float32 in float_val or in
// tensor_content, float64), float32 values as the decimals logged; values of other plugins are
// listed apart; a record that is no event is an error with its offset.

#include "core/study/files/tensorboard_events.h"

#include <gtest/gtest.h>

#include <vector>

#include "core/input/crc32c.h"
#include "tests/study/files/tensorboard_fixtures.h"

namespace paritylab::study {
namespace {

using testing::fixtureEventFile;

std::vector<std::int64_t> stepsOf(const std::vector<ScalarPoint>& points) {
  std::vector<std::int64_t> steps;
  for (const ScalarPoint& p : points) steps.push_back(p.step);
  return steps;
}

std::vector<double> valuesOf(const std::vector<ScalarPoint>& points) {
  std::vector<double> values;
  for (const ScalarPoint& p : points) values.push_back(p.value);
  return values;
}

TEST(TensorBoardEvents, ScalarsOfBothFormsReadBackExactly) {
  const EventFileScalars file = readEventFileScalars(fixtureEventFile("scalars"));
  EXPECT_EQ(file.events, 5u);
  EXPECT_TRUE(file.notes.empty());
  ASSERT_EQ(file.scalars.size(), 4u);
  for (const auto& [tag, points] : file.scalars)
    EXPECT_EQ(stepsOf(points), (std::vector<std::int64_t>{1, 2, 3})) << tag;
  // simple_value (float32): the decimals written, not the float32's binary tail.
  EXPECT_EQ(valuesOf(file.scalars.at("accuracy")), (std::vector<double>{0.25, 0.5, 0.8125}));
  EXPECT_EQ(valuesOf(file.scalars.at("loss/train")), (std::vector<double>{2.5, 1.25, 0.0051}));
  // float32 tensors: in float_val, then (step 3) in tensor_content; metadata on step 1 only.
  EXPECT_EQ(valuesOf(file.scalars.at("loss/test")), (std::vector<double>{2.75, 1.5, 0.875}));
  // float64 tensors: exact.
  EXPECT_EQ(valuesOf(file.scalars.at("lr")), (std::vector<double>{0.1, 0.01, 0.001}));
}

TEST(TensorBoardEvents, WallTimesAreTheWritersSeconds) {
  const EventFileScalars file = readEventFileScalars(fixtureEventFile("scalars"));
  const std::vector<double> expected = {1700000060.75, 1700000121.0, 1700000181.25};
  for (const auto& [tag, points] : file.scalars) {
    ASSERT_EQ(points.size(), 3u) << tag;
    for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(points[i].wallTime, expected[i]) << tag;
  }
}

TEST(TensorBoardEvents, ValuesOfOtherPluginsAreListedApart) {
  const EventFileScalars file = readEventFileScalars(fixtureEventFile("scalars"));
  EXPECT_EQ(file.otherTags, (std::set<std::string>{"samples"}));
  EXPECT_EQ(file.scalars.count("samples"), 0u);
}

// TensorBoard declares tags as proto3 strings; one that is not UTF-8 must not cost the record.
TEST(TensorBoardEvents, TagThatIsNotUtf8IsReadAsItsBytes) {
  const EventFileScalars file = readEventFileScalars(fixtureEventFile("latin1-tag"));
  ASSERT_EQ(file.scalars.size(), 1u);
  EXPECT_EQ(file.scalars.begin()->first, "caf\xe9");
  EXPECT_EQ(valuesOf(file.scalars.begin()->second), (std::vector<double>{0.5}));
}

TEST(TensorBoardEvents, TruncatedFileKeepsTheRecordsBeforeTheCut) {
  const std::string path = fixtureEventFile("truncated");
  const EventFileScalars file = readEventFileScalars(path);
  EXPECT_EQ(file.events, 4u);
  EXPECT_EQ(valuesOf(file.scalars.at("accuracy")), (std::vector<double>{0.25, 0.5, 0.8125}));
  ASSERT_EQ(file.notes.size(), 1u);
  EXPECT_NE(file.notes[0].find(path + ": the last record (at byte 402) is cut short"),
            std::string::npos);
}

TEST(TensorBoardEvents, DamagedRecordIsAnErrorWithFileAndOffset) {
  const std::string path = fixtureEventFile("flipped");
  try {
    readEventFileScalars(path);
    FAIL() << "a flipped byte was not found";
  } catch (const EventFileError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ": record at byte 290: the CRC"), std::string::npos)
        << e.what();
  }
}

// A record whose CRCs hold but whose data is no protobuf message (a field of wire type 7).
TEST(TensorBoardEvents, RecordThatIsNoEventIsAnErrorWithItsOffset) {
  const std::string good = testing::readBytes(fixtureEventFile("scalars"));
  std::string data = "\x0f\x01\x02";
  const std::string path = testing::writeEventFile("not-an-event", good.substr(0, 40));
  {
    // Frame `data` as a record, with the CRCs computed the way the Python writer does.
    std::ofstream out(path, std::ios::binary | std::ios::app);
    const auto le = [](std::uint64_t v, int n) {
      std::string s;
      for (int i = 0; i < n; ++i) s += char((v >> (8 * i)) & 0xFF);
      return s;
    };
    const std::string length = le(data.size(), 8);
    out << length << le(input::maskedCrc32c(input::crc32c(length.data(), 8)), 4) << data
        << le(input::maskedCrc32c(input::crc32c(data.data(), data.size())), 4);
  }
  try {
    readEventFileScalars(path);
    FAIL() << "a record that is no event was read";
  } catch (const EventFileError& e) {
    EXPECT_EQ(std::string(e.what()),
              path +
                  ": record at byte 40: its 3 bytes are not a TensorBoard event (they do not "
                  "parse as one)");
  }
}

}  // namespace
}  // namespace paritylab::study
