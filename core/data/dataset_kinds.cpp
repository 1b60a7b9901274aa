#include "core/data/dataset_kinds.h"

namespace paritylab::data {

const DatasetKind* findDatasetKind(std::string_view name) {
  for (const DatasetKind& kind : kDatasetKinds)
    if (name == kind.name) return &kind;
  return nullptr;
}

bool datasetNeedsFolder(std::string_view name) {
  const DatasetKind* kind = findDatasetKind(name);
  return kind && kind->folder == DatasetFolder::Required;
}

bool datasetIsText(std::string_view name) {
  const DatasetKind* kind = findDatasetKind(name);
  return kind && kind->content == DatasetContent::Text;
}

std::string_view datasetKindOf(std::string_view source) {
  return source.substr(0, source.find(':'));
}

std::string datasetSourceForms() {
  std::string text;
  const auto add = [&text](const std::string& form) { text += (text.empty() ? "" : ", ") + form; };
  for (const DatasetKind& kind : kDatasetKinds) {
    if (kind.folder != DatasetFolder::Required) add(kind.name);
    if (kind.folder != DatasetFolder::None)
      add(std::string(kind.name) + (kind.readsFile ? ":FILE" : ":DIR"));
  }
  return text;
}

}  // namespace paritylab::data
