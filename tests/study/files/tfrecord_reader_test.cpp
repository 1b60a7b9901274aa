// The TFRecord framing of event files: every record's length and both CRCs are checked; a record
// cut short at the end (a killed job) is a note and the records before it are kept; a damaged
// record is an error naming the file and the record's byte offset; a length the file cannot hold
// is refused before anything is allocated. The offsets are those make_tensorboard_fixtures.py
// prints for the fixture file (records at bytes 0, 40, 178, 290 and 402 of 458).

#include "core/study/files/tfrecord_reader.h"

#include <gtest/gtest.h>

#include <vector>

#include "tests/study/files/tensorboard_fixtures.h"

namespace paritylab::study {
namespace {

using testing::fixtureEventFile;
using testing::readBytes;
using testing::writeEventFile;

std::vector<std::uint64_t> recordOffsets(TfRecordReader& reader) {
  std::vector<std::uint64_t> offsets;
  TfRecord record;
  while (reader.next(record)) offsets.push_back(record.offset);
  return offsets;
}

std::string readError(const std::string& path, std::uint64_t maxRecordBytes = kMaxTfRecordBytes) {
  try {
    TfRecordReader reader(path, maxRecordBytes);
    recordOffsets(reader);
  } catch (const EventFileError& e) {
    return e.what();
  }
  return "";
}

TEST(TfRecordReader, ReadsEveryRecordOfAnIntactFileWithItsOffset) {
  TfRecordReader reader(fixtureEventFile("scalars"));
  EXPECT_EQ(recordOffsets(reader), (std::vector<std::uint64_t>{0, 40, 178, 290, 402}));
  EXPECT_TRUE(reader.notes().empty());
}

TEST(TfRecordReader, LastRecordCutShortIsANoteAndEarlierRecordsAreKept) {
  const std::string path = fixtureEventFile("truncated");
  TfRecordReader reader(path);
  EXPECT_EQ(recordOffsets(reader), (std::vector<std::uint64_t>{0, 40, 178, 290}));
  ASSERT_EQ(reader.notes().size(), 1u);
  EXPECT_EQ(reader.notes()[0], path +
                                   ": the last record (at byte 402) is cut short: 37 of its 44 "
                                   "bytes after the header are in the file (a job stopped while "
                                   "writing leaves this); skipped");
}

TEST(TfRecordReader, HeaderCutShortIsANoteToo) {
  const std::string good = readBytes(fixtureEventFile("scalars"));
  const std::string path = writeEventFile("cut-header", good.substr(0, 178 + 5));
  TfRecordReader reader(path);
  EXPECT_EQ(recordOffsets(reader), (std::vector<std::uint64_t>{0, 40}));
  ASSERT_EQ(reader.notes().size(), 1u);
  EXPECT_NE(reader.notes()[0].find("(at byte 178) is cut short: 5 of its 12 header bytes"),
            std::string::npos)
      << reader.notes()[0];
}

TEST(TfRecordReader, FlippedDataByteIsAnErrorNamingFileAndOffset) {
  const std::string path = fixtureEventFile("flipped");
  EXPECT_EQ(readError(path), path +
                                 ": record at byte 290: the CRC of its 96 data bytes does not "
                                 "match (the file is damaged, or not a TensorBoard event file)");
}

TEST(TfRecordReader, FlippedLengthByteIsAnErrorBeforeTheLengthIsUsed) {
  std::string bytes = readBytes(fixtureEventFile("scalars"));
  bytes[178 + 6] = '\x7f';  // the length's high bytes: 0x7f000000000000 + 96
  const std::string path = writeEventFile("flipped-length", bytes);
  const std::string error = readError(path);
  EXPECT_NE(error.find(path + ": record at byte 178: the CRC of its length field does not match"),
            std::string::npos)
      << error;
}

// A length of 2^62 with a valid CRC: were it allocated, std::string would throw length_error or
// bad_alloc instead of this message, which is given before any allocation.
TEST(TfRecordReader, HugeLengthBeyondTheFileIsRefusedWithoutAllocating) {
  const std::string path = fixtureEventFile("huge-length");
  EXPECT_EQ(readError(path),
            path +
                ": record at byte 40: its length 4611686018427387904 bytes goes beyond the "
                "end of the file (64 bytes follow its header) (the file is damaged, or not a "
                "TensorBoard event file)");
}

TEST(TfRecordReader, RecordLargerThanTheLimitIsCheckedInPiecesAndSkipped) {
  const std::string path = fixtureEventFile("scalars");
  TfRecordReader reader(path, 50);  // the file version (24 bytes) and the last (40) fit
  EXPECT_EQ(recordOffsets(reader), (std::vector<std::uint64_t>{0, 402}));
  ASSERT_EQ(reader.notes().size(), 3u);
  EXPECT_EQ(reader.notes()[0], path +
                                   ": record at byte 40 skipped: 122 bytes, more than the 50 a "
                                   "record of scalars may have");
  // Skipped records are still checked: a flipped byte in one is found.
  EXPECT_NE(readError(fixtureEventFile("flipped"), 50).find("record at byte 290: the CRC"),
            std::string::npos);
}

TEST(TfRecordReader, MissingFileAndFolderAreNamed) {
  EXPECT_NE(readError("/nonexistent/events.out.tfevents.1")
                .find("/nonexistent/events.out."
                      "tfevents.1: no such file"),
            std::string::npos);
  EXPECT_NE(readError(testing::kTensorBoardFixtures).find("is a directory"), std::string::npos);
}

}  // namespace
}  // namespace paritylab::study
