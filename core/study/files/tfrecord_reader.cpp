#include "core/study/files/tfrecord_reader.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "core/input/crc32c.h"
#include "core/input/number_input.h"
#include "core/input/text_file.h"

namespace paritylab::study {
namespace {

constexpr std::uint64_t kHeaderBytes = 12;  // length + its masked CRC
constexpr std::uint64_t kFooterBytes = 4;   // the data's masked CRC

std::uint64_t littleEndian(const char* bytes, int count) {
  std::uint64_t value = 0;
  for (int i = count - 1; i >= 0; --i) value = (value << 8) | static_cast<unsigned char>(bytes[i]);
  return value;
}

}  // namespace

TfRecordReader::TfRecordReader(const std::string& path, std::uint64_t maxRecordBytes)
    : path_(path), maxRecordBytes_(maxRecordBytes) {
  try {
    input::requireRegularFile(path, "TensorBoard event file");
  } catch (const input::InputError& e) {
    throw EventFileError(e.what());
  }
  std::error_code error;
  size_ = std::filesystem::file_size(path, error);
  if (error) throw EventFileError(path + ": cannot read its size (" + error.message() + ")");
  in_.open(path, std::ios::binary);
  if (!in_) throw EventFileError(path + ": cannot open");
}

void TfRecordReader::damaged(std::uint64_t offset, const std::string& what) const {
  throw EventFileError(path_ + ": record at byte " + std::to_string(offset) + ": " + what +
                       " (the file is damaged, or not a TensorBoard event file)");
}

void TfRecordReader::readExactly(char* into, std::uint64_t size, std::uint64_t offset) {
  in_.read(into, std::streamsize(size));
  if (std::uint64_t(in_.gcount()) != size)
    throw EventFileError(path_ + ": record at byte " + std::to_string(offset) +
                         ": cannot be read (the file shrank while it was read?)");
}

// The CRC of the next `size` bytes, read in pieces (a record too large to hold).
std::uint32_t TfRecordReader::streamedCrc(std::uint64_t size, std::uint64_t offset) {
  std::string piece(std::size_t(1) << 16, '\0');
  std::uint32_t crc = 0;
  for (std::uint64_t left = size; left > 0;) {
    const std::uint64_t n = std::min<std::uint64_t>(left, piece.size());
    readExactly(piece.data(), n, offset);
    crc = input::crc32c(piece.data(), std::size_t(n), crc);
    left -= n;
  }
  return crc;
}

bool TfRecordReader::next(TfRecord& record) {
  for (;;) {
    const std::uint64_t offset = position_;
    const std::uint64_t left = size_ - position_;
    if (left == 0) return false;
    const auto cutShort = [&](const std::string& what) {
      notes_.push_back(path_ + ": the last record (at byte " + std::to_string(offset) +
                       ") is cut short: " + what +
                       " (a job stopped while writing leaves this); skipped");
      position_ = size_;
      return false;
    };
    if (left < kHeaderBytes)
      return cutShort(std::to_string(left) + " of its 12 header bytes are in the file");
    char header[kHeaderBytes];
    readExactly(header, kHeaderBytes, offset);
    const std::uint64_t length = littleEndian(header, 8);
    const auto lengthCrc = std::uint32_t(littleEndian(header + 8, 4));
    if (input::maskedCrc32c(input::crc32c(header, 8)) != lengthCrc)
      damaged(offset, "the CRC of its length field does not match (length read: " +
                          std::to_string(length) + ")");
    const std::uint64_t body = left - kHeaderBytes;  // bytes after the header
    if (length > body || body - length < kFooterBytes) {
      // Checked before anything is allocated: the length may be a lie that passed its CRC.
      if (length > maxRecordBytes_) {
        damaged(offset, "its length " + std::to_string(length) +
                            " bytes goes beyond the end of the file (" + std::to_string(body) +
                            " bytes follow its header)");
      }
      return cutShort(std::to_string(std::min(body, length + kFooterBytes)) + " of its " +
                      std::to_string(length + kFooterBytes) +
                      " bytes after the header are in the file");
    }
    const bool held = length <= maxRecordBytes_;
    std::uint32_t crc = 0;
    if (held) {
      record.data.resize(std::size_t(length));
      readExactly(record.data.data(), length, offset);
      crc = input::crc32c(record.data.data(), record.data.size());
    } else {
      crc = streamedCrc(length, offset);
    }
    char footer[kFooterBytes];
    readExactly(footer, kFooterBytes, offset);
    if (input::maskedCrc32c(crc) != std::uint32_t(littleEndian(footer, 4)))
      damaged(offset, "the CRC of its " + std::to_string(length) + " data bytes does not match");
    position_ += kHeaderBytes + length + kFooterBytes;
    if (!held) {
      notes_.push_back(path_ + ": record at byte " + std::to_string(offset) +
                       " skipped: " + std::to_string(length) + " bytes, more than the " +
                       std::to_string(maxRecordBytes_) + " a record of scalars may have");
      continue;
    }
    record.offset = offset;
    return true;
  }
}

}  // namespace paritylab::study
