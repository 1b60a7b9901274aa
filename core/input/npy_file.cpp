#include "core/input/npy_file.h"

#include <bit>
#include <functional>
#include <numeric>
#include <stdexcept>

#include "core/input/atomic_file.h"

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

}  // namespace paritylab::input
