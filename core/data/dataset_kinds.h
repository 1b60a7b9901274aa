#pragma once
// The dataset kinds a study's `dataset.source` names ("KIND", "KIND:DIR" or "KIND:FILE") and
// whether each needs a folder (or a file). This table is the one place the kinds and that rule are
// written: loadDataset, the Study dialog and the command line's help read them from here, in this
// order (the order a chooser offers them).

#include <array>
#include <string>
#include <string_view>

namespace paritylab::data {

// Where a kind's files come from, i.e. what may follow the ':' of its source.
enum class DatasetFolder {
  None,      // generated, no files: "KIND" only
  Optional,  // installed in a known place: "KIND", or "KIND:DIR" to read DIR instead
  Required,  // only where the user says: "KIND:DIR" (or "KIND:FILE" for a kind that reads a file)
};

// What a kind's data is: images for the classifiers, or text for a language model.
enum class DatasetContent { Images, Text };

struct DatasetKind {
  const char* name;   // the source's part before ':' ("cifar10")
  const char* label;  // how a chooser names it ("CIFAR-10 (folder)")
  DatasetFolder folder;
  DatasetContent content = DatasetContent::Images;
  bool readsFile = false;  // what follows ':' is one file, not a directory
};

inline constexpr std::array<DatasetKind, 7> kDatasetKinds = {{
    // The Debian package's files (/usr/share/datasets/fashion-mnist), or Fashion-MNIST IDX files
    // (gz or raw) in DIR.
    {"fashion-mnist", "Fashion-MNIST (installed)", DatasetFolder::Optional},
    // MNIST IDX files in DIR.
    {"mnist", "MNIST (folder)", DatasetFolder::Required},
    // CIFAR-10 binary batches in DIR.
    {"cifar10", "CIFAR-10 (folder)", DatasetFolder::Required},
    // DIR/img_align_celeba/ + DIR/identity_CelebA.txt.
    {"celeba", "CelebA (folder)", DatasetFolder::Required},
    // One subfolder per class in DIR, images decoded and resized with OpenCV.
    {"folder", "Image folder", DatasetFolder::Required},
    // A small generated set (deterministic in the dataset's seed).
    {"synthetic", "Synthetic", DatasetFolder::None},
    // Any file of bytes (gzip allowed), a character-level corpus for the language model
    // (core/data/text_corpus.h).
    {"text", "Text file (language model)", DatasetFolder::Required, DatasetContent::Text, true},
}};

// The kind called `name`; nullptr when there is none.
const DatasetKind* findDatasetKind(std::string_view name);

// Whether the kind called `name` reads only a folder the user gives (DatasetFolder::Required);
// false for the other kinds and for an unknown name.
bool datasetNeedsFolder(std::string_view name);

// Whether the kind called `name` is text (a language model's source); false for an unknown name.
bool datasetIsText(std::string_view name);

// The kind part of a source: "text" of "text:/data/input.txt", the whole of "synthetic".
std::string_view datasetKindOf(std::string_view source);

// Every form a source may take, in the table's order:
// "fashion-mnist, fashion-mnist:DIR, mnist:DIR, ..., synthetic, text:FILE".
std::string datasetSourceForms();

}  // namespace paritylab::data
