#pragma once
// The records of a TFRecord file (TensorBoard's events.out.tfevents.* files), one at a time. Each
// record is framed as: uint64 length, masked CRC-32C of those 8 bytes, `length` bytes of data,
// masked CRC-32C of the data (all little-endian). Every length and both CRCs of every record are
// checked:
// - a record cut short at the end of the file (a job killed while writing) is skipped with a note;
// - a damaged record (a CRC that does not match, a length beyond the file's end that no event
//   record has) is an EventFileError naming the file and the byte offset of the record.
// Memory stays bounded: a record is read into memory only when the file holds all of it and it is
// at most `maxRecordBytes`; a larger record is checked piece by piece and skipped with a note.

#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/input/error.h"

namespace paritylab::study {

// An event file that cannot be read as one: the message names the file and, for a damaged
// record, its byte offset ("run/events.out.tfevents.1: record at byte 512: ...").
class EventFileError : public ErrorOf<std::runtime_error> {
 public:
  using ErrorOf::ErrorOf;
};

// Far beyond a record of scalars (tens of bytes); a graph or an image may be larger and is skipped.
inline constexpr std::uint64_t kMaxTfRecordBytes = std::uint64_t(64) << 20;  // 64 MiB

struct TfRecord {
  std::uint64_t offset = 0;  // where its length field starts
  std::string data;
};

class TfRecordReader {
 public:
  // Throws EventFileError when `path` is not a regular file or cannot be opened.
  explicit TfRecordReader(const std::string& path,
                          std::uint64_t maxRecordBytes = kMaxTfRecordBytes);
  // The next record; false at the end of the file (or at a record cut short there, with a note).
  bool next(TfRecord& record);
  // What the reader skipped and why, one sentence each, naming the file.
  const std::vector<std::string>& notes() const { return notes_; }
  const std::string& path() const { return path_; }

 private:
  [[noreturn]] void damaged(std::uint64_t offset, const std::string& what) const;
  void readExactly(char* into, std::uint64_t size, std::uint64_t offset);
  std::uint32_t streamedCrc(std::uint64_t size, std::uint64_t offset);

  std::string path_;
  std::uint64_t maxRecordBytes_;
  std::ifstream in_;
  std::uint64_t size_ = 0;
  std::uint64_t position_ = 0;
  std::vector<std::string> notes_;
};

}  // namespace paritylab::study
