// The table of dataset kinds: the sources it accepts are the ones loadDataset reads, and a kind
// that needs a folder is refused without one.

#include "core/data/dataset_kinds.h"

#include <gtest/gtest.h>

#include "core/data/dataset.h"
#include "data_test_support.h"

namespace paritylab::data {
namespace {

using testing::expectDataError;

TEST(DatasetKinds, SourceFormsNameEveryKindWithTheFolderItTakes) {
  EXPECT_EQ(datasetSourceForms(),
            "fashion-mnist, fashion-mnist:DIR, mnist:DIR, cifar10:DIR, celeba:DIR, folder:DIR, "
            "synthetic, text:FILE");
}

TEST(DatasetKinds, OnlyKindsWithoutAnInstalledOrGeneratedSetNeedAFolder) {
  for (const char* kind : {"mnist", "cifar10", "celeba", "folder", "text"})
    EXPECT_TRUE(datasetNeedsFolder(kind)) << kind;
  for (const char* kind : {"fashion-mnist", "synthetic", "imagenet", ""})
    EXPECT_FALSE(datasetNeedsFolder(kind)) << kind;
}

TEST(DatasetKinds, EveryKindThatNeedsAFolderIsRefusedWithoutOne) {
  for (const DatasetKind& kind : kDatasetKinds) {
    if (kind.folder != DatasetFolder::Required) continue;
    DatasetSpec spec;
    spec.source = kind.name;
    expectDataError([&] { loadDataset(spec); },
                    {kind.name, kind.readsFile ? "needs a file" : "needs a directory"});
  }
}

TEST(DatasetKinds, AGeneratedKindRefusesAFolder) {
  DatasetSpec spec;
  spec.source = "synthetic:/data";
  expectDataError([&] { loadDataset(spec); }, {"unknown dataset source", "synthetic:/data"});
}

}  // namespace
}  // namespace paritylab::data
