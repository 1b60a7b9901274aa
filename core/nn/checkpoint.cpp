#include "core/nn/checkpoint.h"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>

namespace paritylab::nn {

namespace {

constexpr char kMagic[8] = {'P', 'L', 'C', 'K', 'P', 'T', '0', '1'};

std::string shapeText(const Shape& s) {
  std::string t = "[";
  for (int i = 0; i < s.rank; ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + "]";
}

template <class T>
void put(std::ofstream& out, T value) {
  out.write(reinterpret_cast<const char*>(&value), sizeof(T));
}

struct Reader {
  std::ifstream in;
  std::string path;
  template <class T>
  T get(const char* what) {
    T value{};
    if (!in.read(reinterpret_cast<char*>(&value), sizeof(T)))
      throw CheckpointError("checkpoint '" + path + "': truncated while reading " + what);
    return value;
  }
};

struct Entry {
  Shape shape;
  std::vector<float> values;
};

}  // namespace

void saveCheckpoint(const std::string& path, const ParamStore& params) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw CheckpointError("checkpoint '" + path + "': cannot open for writing");
  out.write(kMagic, sizeof kMagic);
  put<std::uint32_t>(out, std::uint32_t(params.infos().size()));
  for (std::size_t id = 0; id < params.infos().size(); ++id) {
    const ParamInfo& p = params.infos()[id];
    put<std::uint32_t>(out, std::uint32_t(p.name.size()));
    out.write(p.name.data(), std::streamsize(p.name.size()));
    put<std::uint32_t>(out, std::uint32_t(p.shape.rank));
    for (int i = 0; i < p.shape.rank; ++i) put<std::int32_t>(out, p.shape[i]);
    out.write(reinterpret_cast<const char*>(params.master(int(id))),
              std::streamsize(p.size * sizeof(float)));
  }
  if (!out.flush()) throw CheckpointError("checkpoint '" + path + "': write failed");
  out.close();  // a full disk may only show when the last buffer is written
  if (out.fail()) throw CheckpointError("checkpoint '" + path + "': write failed on close");
}

CheckpointLoad loadCheckpoint(const std::string& path, ParamStore& params) {
  Reader r;
  r.path = path;
  r.in.open(path, std::ios::binary);
  if (!r.in) throw CheckpointError("checkpoint '" + path + "': cannot open (missing file?)");
  char magic[8];
  if (!r.in.read(magic, sizeof magic) || std::memcmp(magic, kMagic, sizeof magic) != 0)
    throw CheckpointError("checkpoint '" + path + "': not a ParityLab checkpoint (bad magic)");
  const auto count = r.get<std::uint32_t>("the tensor count");
  std::map<std::string, Entry> entries;
  for (std::uint32_t t = 0; t < count; ++t) {
    const auto len = r.get<std::uint32_t>("a tensor name");
    if (len > 4096) throw CheckpointError("checkpoint '" + path + "': corrupt tensor name");
    std::string name(len, '\0');
    if (!r.in.read(name.data(), len))
      throw CheckpointError("checkpoint '" + path + "': truncated in a tensor name");
    Entry e;
    const auto rank = r.get<std::uint32_t>("a tensor rank");
    if (rank > 4)
      throw CheckpointError("checkpoint '" + path + "': tensor '" + name + "' has rank " +
                            std::to_string(rank));
    e.shape.rank = int(rank);
    for (std::uint32_t i = 0; i < rank; ++i) e.shape.dims[i] = r.get<std::int32_t>("a dimension");
    e.values.resize(e.shape.numel());
    if (!r.in.read(reinterpret_cast<char*>(e.values.data()),
                   std::streamsize(e.values.size() * sizeof(float))))
      throw CheckpointError("checkpoint '" + path + "': truncated in tensor '" + name + "'");
    entries.emplace(std::move(name), std::move(e));
  }
  CheckpointLoad result;
  for (std::size_t id = 0; id < params.infos().size(); ++id) {
    const ParamInfo& p = params.infos()[id];
    auto it = entries.find(p.name);
    const bool fits = it != entries.end() && it->second.shape == p.shape;
    if (!fits && !p.backbone) {
      ++result.headKeptFresh;
      continue;
    }
    if (it == entries.end())
      throw CheckpointError("checkpoint '" + path + "': missing tensor '" + p.name + "'");
    if (!fits)
      throw CheckpointError("checkpoint '" + path + "': tensor '" + p.name + "' has shape " +
                            shapeText(it->second.shape) + ", the model expects " +
                            shapeText(p.shape));
    std::copy(it->second.values.begin(), it->second.values.end(), params.master(int(id)));
    ++result.loaded;
  }
  return result;
}

}  // namespace paritylab::nn
