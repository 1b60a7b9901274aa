#include "core/study/files/tensorboard_events.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <optional>

#include "core/study/files/import_checks.h"
#include "core/study/files/tensorboard_event.pb.h"

namespace paritylab::study {
namespace {

namespace wire = tensorboard_wire;

// The shortest decimal that reads back as `f`, read as a double: what the writer logged (a Python
// float rounded to float32) without the float32's binary tail.
double shortestDecimal(float f) {
  if (!std::isfinite(f)) return double(f);
  char text[64];
  const auto written = std::to_chars(text, text + sizeof text, f);
  double value = 0.0;
  std::from_chars(text, written.ptr, value);
  return value;
}

template <typename T>
T fromLittleEndian(const std::string& bytes) {
  std::uint64_t raw = 0;
  for (std::size_t i = sizeof(T); i-- > 0;) raw = (raw << 8) | static_cast<unsigned char>(bytes[i]);
  T value;
  if constexpr (sizeof(T) == 4) {
    const auto narrow = std::uint32_t(raw);
    std::memcpy(&value, &narrow, sizeof value);
  } else {
    std::memcpy(&value, &raw, sizeof value);
  }
  return value;
}

// The one number a tensor holds, or nothing (another dtype, more than one value, no value).
std::optional<double> scalarOf(const wire::TensorProto& t) {
  if (t.tensor_shape().unknown_rank()) return std::nullopt;
  for (const auto& dim : t.tensor_shape().dim())
    if (dim.size() != 1) return std::nullopt;  // rank 0, or every dimension 1
  const std::string& content = t.tensor_content();
  switch (t.dtype()) {
    case wire::DT_FLOAT:
      if (t.float_val_size() == 1 && content.empty()) return shortestDecimal(t.float_val(0));
      if (t.float_val_size() == 0 && content.size() == 4)
        return shortestDecimal(fromLittleEndian<float>(content));
      return std::nullopt;
    case wire::DT_DOUBLE:
      if (t.double_val_size() == 1 && content.empty()) return t.double_val(0);
      if (t.double_val_size() == 0 && content.size() == 8) return fromLittleEndian<double>(content);
      return std::nullopt;
    case wire::DT_INT32:
      if (t.int_val_size() == 1 && content.empty()) return double(t.int_val(0));
      if (t.int_val_size() == 0 && content.size() == 4)
        return double(fromLittleEndian<std::int32_t>(content));
      return std::nullopt;
    case wire::DT_INT64:
      if (t.int64_val_size() == 1 && content.empty()) return double(t.int64_val(0));
      if (t.int64_val_size() == 0 && content.size() == 8)
        return double(fromLittleEndian<std::int64_t>(content));
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

// Reads the values of one Summary into `out`; `plugins` remembers each tag's plugin, which a
// writer records only with the tag's first value in a file.
void readSummary(const wire::Event& event, std::map<std::string, std::string>& plugins,
                 std::set<std::string>& oddTags, EventFileScalars& out) {
  for (const wire::Value& v : event.summary().value()) {
    if (v.has_metadata()) plugins.try_emplace(v.tag(), v.metadata().plugin_data().plugin_name());
    if (v.value_case() == wire::Value::kSimpleValue) {
      out.scalars[v.tag()].push_back(
          {event.step(), event.wall_time(), shortestDecimal(v.simple_value())});
      continue;
    }
    const auto plugin = plugins.find(v.tag());
    const bool scalarPlugin =
        plugin == plugins.end() || plugin->second.empty() || plugin->second == "scalars";
    if (v.value_case() != wire::Value::kTensor || !scalarPlugin) {
      out.otherTags.insert(v.tag());
      continue;
    }
    if (const auto value = scalarOf(v.tensor())) {
      out.scalars[v.tag()].push_back({event.step(), event.wall_time(), *value});
    } else if (plugin != plugins.end() && plugin->second == "scalars") {
      if (oddTags.insert(v.tag()).second) {
        out.notes.push_back(out.path + ": tag " + import_checks::shownValue(v.tag()) + " (step " +
                            std::to_string(event.step()) + "): a 'scalars' tensor of dtype " +
                            std::to_string(v.tensor().dtype()) +
                            " that is not one number; such values of the tag are not read");
      }
    } else {
      out.otherTags.insert(v.tag());  // a tensor of no plugin that is not one number
    }
  }
}

}  // namespace

EventFileScalars readEventFileScalars(const std::string& path) {
  EventFileScalars out;
  out.path = path;
  TfRecordReader reader(path);
  std::map<std::string, std::string> plugins;
  std::set<std::string> oddTags;
  TfRecord record;
  wire::Event event;
  while (reader.next(record)) {
    if (!event.ParseFromString(record.data)) {
      throw EventFileError(path + ": record at byte " + std::to_string(record.offset) + ": its " +
                           std::to_string(record.data.size()) +
                           " bytes are not a TensorBoard event (they do not parse as one)");
    }
    ++out.events;
    if (event.what_case() == wire::Event::kSummary) readSummary(event, plugins, oddTags, out);
  }
  for (const auto& [tag, points] : out.scalars) out.otherTags.erase(tag);
  out.notes.insert(out.notes.end(), reader.notes().begin(), reader.notes().end());
  return out;
}

}  // namespace paritylab::study
