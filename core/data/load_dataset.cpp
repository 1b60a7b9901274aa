// loadDataset: source parsing and the pipeline read -> classes -> re-split -> subsets -> normalise.

#include <filesystem>

#include "core/data/celeba_loader.h"
#include "core/data/cifar10_loader.h"
#include "core/data/dataset.h"
#include "core/data/dataset_kinds.h"
#include "core/data/idx_loader.h"
#include "core/data/image_folder_loader.h"
#include "core/data/shuffle.h"
#include "core/data/stratified_split.h"
#include "core/data/synthetic_source.h"
#include "core/data/text_split.h"

namespace paritylab::data {
namespace {

constexpr double kDefaultTestFraction = 0.2;  // sources without a split of their own

// Seed streams, so that the split, subsets and sources draw independently.
enum Stream : std::uint64_t { kSplit = 101, kTrainSubset = 102, kTestSubset = 103, kGen = 104 };

SourceData readSource(const DatasetSpec& spec, bool& generated) {
  const std::string& source = spec.source;
  const std::size_t colon = source.find(':');
  const std::string kind = source.substr(0, colon);
  const std::string dir = colon == std::string::npos ? std::string() : source.substr(colon + 1);
  const bool hasDir = colon != std::string::npos;
  if (hasDir && dir.empty())
    throw DataError("source \"" + source + "\": the directory after ':' is empty");
  // Whether a folder may, must or must not follow is the kinds table's rule.
  const DatasetKind* known = findDatasetKind(kind);
  const auto unknown = [&source] {
    return DataError("unknown dataset source \"" + source + "\" (valid: " + datasetSourceForms() +
                     ")");
  };
  if (!known || (known->folder == DatasetFolder::None && hasDir)) throw unknown();
  if (known->folder == DatasetFolder::Required && !hasDir)
    throw DataError("source \"" + source + "\": needs a " +
                    (known->readsFile ? "file, e.g. \"" + kind + ":/path/to/input.txt\""
                                      : "directory, e.g. \"" + kind + ":/path/to/data\""));
  generated = false;
  if (kind == "fashion-mnist")
    return loadIdxDirectory(hasDir ? dir : kDefaultFashionMnistDir, IdxFlavor::FashionMnist);
  if (kind == "mnist") return loadIdxDirectory(dir, IdxFlavor::Mnist);
  if (kind == "cifar10") return loadCifar10Directory(dir);
  if (kind == "celeba") return loadCelebaIdentities(dir, spec.celebaIdentities, spec.imageSize);
  if (kind == "folder") return loadImageFolder(dir, spec.imageSize);
  if (kind == "synthetic") {
    generated = true;  // generated for exactly these classes, at exactly these sizes
    return generateSynthetic(spec.trainSize, spec.testSize, mixSeed(spec.seed, kGen), spec.classes);
  }
  throw unknown();  // a kind of the table without a reader here
}

void checkSpec(const DatasetSpec& spec) {
  if (spec.trainSize < 0)
    throw DataError("trainSize = " + std::to_string(spec.trainSize) + " is negative");
  if (spec.testSize < 0)
    throw DataError("testSize = " + std::to_string(spec.testSize) + " is negative");
  if (!(spec.testFraction >= 0.0 && spec.testFraction < 1.0))
    throw DataError("testFraction = " + std::to_string(spec.testFraction) + " is not in [0, 1)");
  if (spec.imageSize < 0 || spec.imageSize > 1024)
    throw DataError("imageSize = " + std::to_string(spec.imageSize) + " is not in 0..1024");
}

}  // namespace

DataSplit loadDataset(const DatasetSpec& spec) {
  if (datasetIsText(datasetKindOf(spec.source)) && spec.source.find(':') != std::string::npos)
    return loadTextSplit(spec);
  checkSpec(spec);
  bool generated = false;  // synthetic: classes and sizes were applied while generating
  SourceData source = readSource(spec, generated);
  if (!spec.classes.empty() && !generated) {
    source.train = keepClasses(source.train, spec.classes, spec.source);
    if (source.hasSplit) source.test = keepClasses(source.test, spec.classes, spec.source);
  }

  DataSplit split;
  if (spec.testFraction > 0.0 || !source.hasSplit) {
    const Dataset all =
        source.hasSplit ? concatenate(source.train, source.test) : std::move(source.train);
    const double fraction = spec.testFraction > 0.0 ? spec.testFraction : kDefaultTestFraction;
    split = stratifiedSplit(all, fraction, mixSeed(spec.seed, kSplit));
  } else {
    split.train = std::move(source.train);
    split.test = std::move(source.test);
  }

  if (spec.trainSize > 0 && !generated)
    split.train = stratifiedSubset(split.train, std::size_t(spec.trainSize),
                                   mixSeed(spec.seed, kTrainSubset), spec.source + ": trainSize");
  if (spec.testSize > 0 && !generated)
    split.test = stratifiedSubset(split.test, std::size_t(spec.testSize),
                                  mixSeed(spec.seed, kTestSubset), spec.source + ": testSize");
  if (split.train.size() == 0) throw DataError(spec.source + ": the training split is empty");
  normalizeWithTrainStatistics(split, spec.normalize);
  return split;
}

}  // namespace paritylab::data
