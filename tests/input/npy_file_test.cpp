// .npy files as NumPy reads them. The header dicts are the ones numpy.save writes for the same
// dtypes and shapes (NumPy 1.24, copied from its output); NumPy pads them with more spaces for
// in-place growth, which its format description leaves free: what it requires is the magic string,
// version 1.0, a little-endian uint16 length and a dict ended by '\n' whose end falls on a
// multiple of 64 bytes.
#include "core/input/npy_file.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace paritylab::input {
namespace {

// The dict of `header` without its padding and newline.
std::string dictOf(const std::string& header) {
  EXPECT_EQ(header.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  const std::size_t length =
      std::size_t(std::uint8_t(header[8])) | std::size_t(std::uint8_t(header[9])) << 8;
  EXPECT_EQ(header.size(), 10 + length);
  EXPECT_EQ(header.size() % 64, 0U);
  EXPECT_EQ(header.back(), '\n');
  std::string dict = header.substr(10, length - 1);
  dict.erase(dict.find_last_not_of(' ') + 1);
  return dict;
}

TEST(NpyFile, HeaderSaysWhatNumpySaysForEachShape) {
  EXPECT_EQ(dictOf(npyHeader("<f4", {2, 3})),
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }");
  EXPECT_EQ(dictOf(npyHeader("<u4", {5})),
            "{'descr': '<u4', 'fortran_order': False, 'shape': (5,), }");
  EXPECT_EQ(dictOf(npyHeader("<i4", {})),
            "{'descr': '<i4', 'fortran_order': False, 'shape': (), }");
  EXPECT_EQ(dictOf(npyHeader("<u4", {2, 300})),
            "{'descr': '<u4', 'fortran_order': False, 'shape': (2, 300), }");
  EXPECT_EQ(dictOf(npyHeader("<f4", {60000, 1, 28, 28})),
            "{'descr': '<f4', 'fortran_order': False, 'shape': (60000, 1, 28, 28), }");
}

TEST(NpyFile, ValuesFollowTheHeaderAsTheyLieInMemory) {
  const auto path = std::filesystem::temp_directory_path() / "paritylab-npy-test.npy";
  const std::vector<float> values = {1.5f, -0.0f, 3.0e-41f, 65504.0f, -2.25f, 7.0f};
  writeNpy(path.string(), std::span<const float>(values), {2, 3});
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  const std::string file = bytes.str();
  const std::string header = npyHeader("<f4", {2, 3});
  ASSERT_EQ(file.size(), header.size() + sizeof(float) * values.size());
  EXPECT_EQ(file.substr(0, header.size()), header);
  EXPECT_EQ(std::memcmp(file.data() + header.size(), values.data(), sizeof(float) * values.size()),
            0);
  std::filesystem::remove(path);
}

TEST(NpyFile, CountThatDisagreesWithTheShapeIsRefusedBeforeWriting) {
  const auto path = std::filesystem::temp_directory_path() / "paritylab-npy-refused.npy";
  std::filesystem::remove(path);
  const std::vector<std::int32_t> values = {1, 2, 3};
  EXPECT_THROW(writeNpy(path.string(), std::span<const std::int32_t>(values), {2, 2}),
               std::invalid_argument);
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace paritylab::input
