#include "core/input/npy_file.h"

#include <bit>
#include <cstring>
#include <fstream>
#include <functional>
#include <numeric>
#include <regex>
#include <stdexcept>

#include "core/input/atomic_file.h"
#include "core/input/number_input.h"

namespace paritylab::input {
namespace {

static_assert(std::endian::native == std::endian::little,
              "the .npy files say little-endian and are written as the values lie in memory");

template <typename T>
void writeArray(const std::string& path, const char* descr, std::span<const T> values,
                const std::vector<std::size_t>& shape) {
  const std::size_t count =
      std::accumulate(shape.begin(), shape.end(), std::size_t(1), std::multiplies<>());
  if (count != values.size())
    throw std::invalid_argument(path + ": " + std::to_string(values.size()) +
                                " values for a shape of " + std::to_string(count));
  const std::string header = npyHeader(descr, shape);
  writeFileAtomically(path, [&](std::ostream& out) {
    out.write(header.data(), std::streamsize(header.size()));
    out.write(reinterpret_cast<const char*>(values.data()),
              std::streamsize(values.size() * sizeof(T)));
  });
}

}  // namespace

std::string npyHeader(const std::string& descr, const std::vector<std::size_t>& shape) {
  std::string dims;
  for (std::size_t d : shape) dims += std::to_string(d) + ", ";
  if (shape.size() > 1) dims.resize(dims.size() - 2);  // "(2, 3)"; one dimension keeps "(5,)"
  if (shape.size() == 1) dims.resize(dims.size() - 1);
  std::string dict =
      "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  // Magic (6) + version (2) + length (2) + dict + padding + '\n', a multiple of 64 bytes.
  const std::size_t unpadded = 10 + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict += '\n';
  std::string header = "\x93NUMPY";
  header += '\x01';
  header += '\x00';
  header += char(dict.size() & 0xff);
  header += char(dict.size() >> 8);
  return header + dict;
}

void writeNpy(const std::string& path, std::span<const float> values,
              const std::vector<std::size_t>& shape) {
  writeArray(path, "<f4", values, shape);
}

void writeNpy(const std::string& path, std::span<const std::int32_t> values,
              const std::vector<std::size_t>& shape) {
  writeArray(path, "<i4", values, shape);
}

void writeNpy(const std::string& path, std::span<const std::uint32_t> values,
              const std::vector<std::size_t>& shape) {
  writeArray(path, "<u4", values, shape);
}

namespace {

// The value of `key` in a .npy header dict ("'descr': '<i8'" -> "<i8"; the shape's tuple text
// for 'shape'); "" when absent.
std::string headerField(const std::string& dict, const std::string& key) {
  const std::regex pattern(key == "shape" ? "'shape'\\s*:\\s*\\(([^)]*)\\)"
                                          : "'" + key + "'\\s*:\\s*'?([^,'}]*)'?");
  std::smatch m;
  return std::regex_search(dict, m, pattern) ? m[1].str() : std::string();
}

template <typename T>
std::int64_t valueAt(const char* bytes) {
  T v;
  std::memcpy(&v, bytes, sizeof v);
  if constexpr (std::is_same_v<T, std::uint64_t>)
    if (v > std::uint64_t(INT64_MAX)) throw std::out_of_range("beyond int64");
  return std::int64_t(v);
}

}  // namespace

std::vector<std::int64_t> readNpyIntegers(const std::string& path, std::size_t maxCount) {
  const auto fail = [&path](const std::string& what) { throw InputError(path + ": " + what); };
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("cannot be opened");
  char magic[8] = {};
  in.read(magic, 8);
  if (in.gcount() != 8 || std::memcmp(magic, "\x93NUMPY", 6) != 0)
    fail("not a .npy file (it does not start with the magic string \\x93NUMPY)");
  const int major = static_cast<unsigned char>(magic[6]);
  if (major < 1 || major > 3) fail("a .npy file of format version " + std::to_string(major));
  std::uint32_t headerLength = 0;
  unsigned char length[4] = {};
  in.read(reinterpret_cast<char*>(length), major == 1 ? 2 : 4);
  headerLength = length[0] | (std::uint32_t(length[1]) << 8) | (std::uint32_t(length[2]) << 16) |
                 (std::uint32_t(length[3]) << 24);
  if (!in || headerLength > 65536) fail("its header is cut short or longer than 64 KiB");
  std::string dict(headerLength, '\0');
  in.read(dict.data(), std::streamsize(headerLength));
  if (std::size_t(in.gcount()) != headerLength) fail("its header is cut short");
  const std::string descr = headerField(dict, "descr");
  if (headerField(dict, "fortran_order") == "True")
    fail("stored in Fortran order: save a C-order array (numpy.ascontiguousarray)");
  struct Kind {
    const char* descr;
    std::size_t size;
    std::int64_t (*read)(const char*);
  };
  static const Kind kinds[] = {
      {"|i1", 1, valueAt<std::int8_t>},   {"<i2", 2, valueAt<std::int16_t>},
      {"<i4", 4, valueAt<std::int32_t>},  {"<i8", 8, valueAt<std::int64_t>},
      {"|u1", 1, valueAt<std::uint8_t>},  {"<u2", 2, valueAt<std::uint16_t>},
      {"<u4", 4, valueAt<std::uint32_t>}, {"<u8", 8, valueAt<std::uint64_t>},
      {"|b1", 1, valueAt<std::uint8_t>}};
  const Kind* kind = nullptr;
  for (const Kind& k : kinds)
    if (descr == k.descr ||
        (descr.size() == 3 && descr[0] == '=' && descr.substr(1) == std::string(k.descr + 1)))
      kind = &k;
  if (!kind)
    fail("dtype '" + descr.substr(0, 16) +
         "': expected little-endian integers (numpy.save of an int array, e.g. '<i8')");
  const std::string shape = headerField(dict, "shape");
  std::size_t count = 0;
  {
    std::string digits = shape;
    while (!digits.empty() && (digits.back() == ' ' || digits.back() == ',')) digits.pop_back();
    if (digits.empty() || digits.find_first_not_of("0123456789 ") != std::string::npos ||
        digits.size() > 18)
      fail("shape (" + shape.substr(0, 32) + "): expected one dimension, (n,)");
    count = std::stoull(digits);
  }
  if (count > maxCount)
    fail(std::to_string(count) + " values, more than the " + std::to_string(maxCount) +
         " accepted");
  std::vector<char> bytes(count * kind->size);
  in.read(bytes.data(), std::streamsize(bytes.size()));
  if (std::size_t(in.gcount()) != bytes.size())
    fail("cut short: its header says " + std::to_string(count) + " values, it holds " +
         std::to_string(std::size_t(in.gcount()) / kind->size));
  if (in.peek() != std::char_traits<char>::eof())
    fail("longer than its header says (" + std::to_string(count) + " values)");
  std::vector<std::int64_t> values(count);
  for (std::size_t i = 0; i < count; ++i) {
    try {
      values[i] = kind->read(bytes.data() + i * kind->size);
    } catch (const std::out_of_range&) {
      fail("value " + std::to_string(i) + " is beyond int64");
    }
  }
  return values;
}

}  // namespace paritylab::input
