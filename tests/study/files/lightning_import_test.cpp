// PyTorch Lightning CSVLogger folders imported as measured runs: each version_N/metrics.csv a
// run, its sparse rows merged by epoch, the backend and seed from hparams.yaml beside it (read with
// yaml-cpp, nested keys named with dots), and the torchprime reference runs
// rewritten as Lightning logs give the Welch test of their CSV.

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>

#include "core/input/csv.h"
#include "core/stats/statistics.h"
#include "core/study/files/import_input.h"
#include "core/study/files/lightning_csv.h"
#include "tests/study/files/tracker_fixtures.h"

namespace paritylab::study {
namespace {

using testing::freshTempPath;
using testing::hasNote;
using testing::kTrackerFixtures;
using testing::runNamed;

const std::string kLogs = kTrackerFixtures + "/lightning";
const std::string kReferenceCsv = PARITYLAB_REFERENCE_DIR "/torchprime-resnet18-metrics.csv";

TEST(LightningImport, VersionFoldersAreRunsWithBackendAndSeedFromHparams) {
  const ImportInput input = readImportInput(kLogs);
  EXPECT_EQ(input.format, ImportFormat::Lightning);
  EXPECT_EQ(input.metrics, "accuracy 'val_acc', test loss 'val_loss', train loss 'train_loss'");
  ASSERT_EQ(input.runs.size(), 4u);
  const ImportedRun* run = runNamed(input, "tpu/lightning_logs/version_0");
  ASSERT_NE(run, nullptr);
  EXPECT_EQ(run->run.backend, "xla");
  EXPECT_EQ(run->run.seed, 0u);
  EXPECT_EQ(run->run.runName, "version_0");
  ASSERT_EQ(run->epochs.size(), 3u);
  EXPECT_EQ(run->epochs[0].epoch, 1);
  EXPECT_EQ(run->epochs[0].testAccuracy, 0.412);
  EXPECT_EQ(run->epochs[0].testLoss, 2.011);
  EXPECT_EQ(run->epochs[0].trainLoss, 1.6803);  // the last of the epoch's train losses
  EXPECT_EQ(run->run.finalAccuracy, 0.601);
  EXPECT_EQ(runNamed(input, "tpu/lightning_logs/version_1")->run.backend, "xla");   // 'xla'
  EXPECT_EQ(runNamed(input, "gpu/lightning_logs/version_0")->run.backend, "cuda");  // "cuda"
  EXPECT_TRUE(hasNote(input.notes,
                      "tpu/lightning_logs/version_0: 3 values logged again at an "
                      "epoch already logged; the last one in the file is kept"));
  EXPECT_TRUE(hasNote(input.notes, "the epochs of metric 'val_acc' count from 0"));
}

TEST(LightningImport, HparamsYamlReadsNestedMappingsAsDottedNames) {
  const std::string folder = testing::writeTree("hparams", "hparams.yaml",
                                                "# a comment\n"
                                                "---\n"
                                                "device: 'tpu v5'\n"
                                                "optimizer:\n"
                                                "  device: nested\n"
                                                "  betas:\n"
                                                "  - 0.9\n"
                                                "  schedule:\n"
                                                "    warmup: 100  # steps\n"
                                                "seed: ~\n"
                                                "name: \"run: 1\"\n");
  const auto h = readHparamsYaml(
      folder + "/hparams.yaml",
      {"device", "seed", "name", "lr", "optimizer.device", "optimizer.schedule.warmup"});
  ASSERT_EQ(h.count("device"), 1u);
  EXPECT_EQ(h.at("device").value, "tpu v5");
  EXPECT_EQ(h.at("device").place, folder + "/hparams.yaml:3: device");
  EXPECT_EQ(h.at("optimizer.device").value, "nested");
  EXPECT_EQ(h.at("optimizer.device").place, folder + "/hparams.yaml:5: optimizer.device");
  EXPECT_EQ(h.at("optimizer.schedule.warmup").value, "100");  // the comment cut
  EXPECT_EQ(h.at("seed").value, "");                          // null
  EXPECT_EQ(h.at("name").value, "run: 1");
  EXPECT_EQ(h.count("lr"), 0u);
  EXPECT_TRUE(readHparamsYaml(folder + "/none.yaml", {"device"}).empty());
}

// Quoted values as YAML reads them: '' in single quotes, escapes in double quotes (yaml.dump
// writes a non-ASCII character as \xE9 or \u2028 unless allow_unicode).
TEST(LightningImport, HparamsYamlUnquotesAndUnescapesValuesAsYamlDoes) {
  const std::string folder = testing::writeTree("hparams-quoted", "hparams.yaml",
                                                "a: 'it''s'\n"
                                                "b: \"caf\\xE9 \\u00e9\\t\\\"x\\\"\"\n"
                                                "'c d': plain text # comment\n"
                                                "e: url://host:80/x#frag\n"
                                                "f:\n"
                                                "g: Null\n");
  const auto h = readHparamsYaml(folder + "/hparams.yaml", {"a", "b", "c d", "e", "f", "g"});
  EXPECT_EQ(h.at("a").value, "it's");
  EXPECT_EQ(h.at("b").value, "caf\xC3\xA9 \xC3\xA9\t\"x\"");
  EXPECT_EQ(h.at("c d").value, "plain text");
  EXPECT_EQ(h.at("e").value, "url://host:80/x#frag");
  EXPECT_EQ(h.at("f").value, "");  // no value: an empty mapping
  EXPECT_EQ(h.at("g").value, "");
}

// Anchors, aliases, tags and block scalars are read as YAML reads them; a key asked for whose value
// is a list or a mapping, and a file that is not YAML, are refused naming the file and line.
TEST(LightningImport, HparamsYamlReadsAllOfYamlAndRefusesAListOrAMappingAskedFor) {
  const std::string folder = testing::writeTree("hparams-yaml", "hparams.yaml",
                                                "layers:\n"
                                                "- 64\n"
                                                "- 128\n"
                                                "trainer: {accelerator: gpu}\n"
                                                "base: &defaults\n"
                                                "  device: gpu\n"
                                                "copy: *defaults\n"
                                                "args: !!python/object:argparse.Namespace\n"
                                                "  device: tpu\n"
                                                "notes: |\n"
                                                "  device: not a key\n"
                                                "description: a long line\n"
                                                "  continued\n"
                                                "model:\n"
                                                "  device: xla\n");
  const std::string file = folder + "/hparams.yaml";
  const auto h =
      readHparamsYaml(file, {"model.device", "trainer.accelerator", "base.device", "copy.device",
                             "args.device", "notes", "description", "seed"});
  ASSERT_EQ(h.size(), 7u);
  EXPECT_EQ(h.at("model.device").value, "xla");
  EXPECT_EQ(h.at("model.device").place, file + ":15: model.device");
  EXPECT_EQ(h.at("trainer.accelerator").value, "gpu");
  EXPECT_EQ(h.at("base.device").value, "gpu");
  EXPECT_EQ(h.at("copy.device").value, "gpu");
  EXPECT_EQ(h.at("args.device").value, "tpu");
  EXPECT_EQ(h.at("notes").value, "device: not a key\n");
  EXPECT_EQ(h.at("description").value, "a long line continued");
  const auto refusal = [&](const std::string& key) {
    return testing::errorOf([&] { readHparamsYaml(file, {key}); });
  };
  EXPECT_EQ(refusal("layers"), file + ":1: hyperparameter 'layers' is a list, not one value");
  EXPECT_EQ(refusal("model"), file +
                                  ":14: hyperparameter 'model' is a mapping of keys, not a value "
                                  "(name one of its keys: model.KEY)");
  const std::string broken =
      testing::writeTree("hparams-broken", "hparams.yaml", "a: 1\nb: [2\n") + "/hparams.yaml";
  EXPECT_TRUE(testing::errorOf([&] {
                readHparamsYaml(broken, {"a"});
              }).starts_with(broken + ":3: not YAML ("))
      << testing::errorOf([&] { readHparamsYaml(broken, {"a"}); });
  EXPECT_TRUE(readHparamsYaml(broken, {}).empty());  // nothing asked for: not read
}

// yaml.dump of nested hyperparameters (lists and a long description among them, as PyYAML writes
// them): hparam:model.device names each run's backend.
TEST(LightningImport, ANestedHyperparameterNamesTheBackend) {
  TensorBoardImportOptions o;
  o.backendRule = "hparam:model.device";
  const ImportInput input =
      readImportInput(kTrackerFixtures + "/nested-hparams", ImportFormat::Auto, {}, o);
  ASSERT_EQ(input.runs.size(), 4u);
  const ImportedRun* run = runNamed(input, "tpu/lightning_logs/version_1");
  ASSERT_NE(run, nullptr);
  EXPECT_EQ(run->run.backend, "xla");
  EXPECT_EQ(run->run.seed, 1u);  // the top-level seed
  EXPECT_TRUE(run->run.seedGiven);
  EXPECT_EQ(runNamed(input, "gpu/lightning_logs/version_0")->run.backend, "cuda");
  EXPECT_EQ(run->run.finalAccuracy, 0.58);
  o.backendRule = "hparam:data.augment";
  const std::string e = testing::errorOf(
      [&] { readImportInput(kTrackerFixtures + "/nested-hparams", ImportFormat::Auto, {}, o); });
  EXPECT_NE(e.find("hparams.yaml:2: hyperparameter 'data.augment' is a list"), std::string::npos)
      << e;
}

// resources/reference/torchprime-resnet18-metrics.csv written as Lightning logs, one
// <backend>/lightning_logs/<run>/ folder per run: metrics.csv with a train row and a
// validation row per epoch (epochs from 0, as Lightning counts them) and hparams.yaml.
std::string writeReferenceAsLightning() {
  const std::string root = freshTempPath("lightning-reference");
  std::ifstream in(kReferenceCsv, std::ios::binary);
  input::CsvReader reader(in, kReferenceCsv);
  input::CsvRow row;
  reader.next(row);  // run_name,datetime,hyperparameters,epoch,train_loss,test_loss,accuracy_top1
  std::map<std::string, std::string> metrics, devices;
  while (reader.next(row)) {
    std::string run = row.fields[0] + "_" + row.fields[1];
    std::replace(run.begin(), run.end(), ' ', 'T');
    std::replace(run.begin(), run.end(), ':', '-');
    const bool xla = row.fields[2].find("'device': 'xla'") != std::string::npos;
    const std::string folder = std::string(xla ? "xla" : "cuda") + "/lightning_logs/" + run;
    devices[folder] = xla ? "xla" : "cuda";
    const std::string epoch = std::to_string(std::stoi(row.fields[3]) - 1);
    const std::string step = std::to_string((std::stoi(row.fields[3])) * 100 - 1);
    std::string& text = metrics[folder];
    if (text.empty()) text = "epoch,step,train_loss,val_loss,val_acc\n";
    text += epoch + "," + step + "," + row.fields[4] + ",,\n";
    text += epoch + "," + step + ",," + row.fields[5] + "," + row.fields[6] + "\n";
  }
  for (const auto& [folder, text] : metrics) {
    testing::addFile(root, folder + "/metrics.csv", text);
    testing::addFile(root, folder + "/hparams.yaml",
                     "batch_size: 2048\ndevice: " + devices[folder] + "\nlr: 0.01\n");
  }
  return root;
}

TEST(LightningImport, ReferenceRunsAsLightningLogsGiveTheWelchTestOfTheirCsv) {
  const ImportInput input = readImportInput(writeReferenceAsLightning());
  ASSERT_EQ(input.runs.size(), 28u);
  std::vector<double> xla, cuda;
  for (const ImportedRun& r : input.runs) {
    EXPECT_EQ(r.epochs.size(), 25u);
    (r.run.backend == "xla" ? xla : cuda).push_back(r.run.finalAccuracy);
  }
  ASSERT_EQ(xla.size(), 14u);
  const auto t = stats::tTest(xla, cuda);
  EXPECT_NEAR(t.p_value, 0.1734, 5e-5);
  EXPECT_NEAR(t.p_value, 0.17344679058804213, 1e-9);
  std::vector<double> csvXla, csvCuda;
  const auto csv = readResultsCsv(kReferenceCsv, {});
  for (const ImportedRun& r : csv)
    (r.run.backend == "xla" ? csvXla : csvCuda).push_back(r.run.finalAccuracy);
  for (auto* v : {&xla, &cuda, &csvXla, &csvCuda}) std::sort(v->begin(), v->end());
  EXPECT_EQ(xla, csvXla);
  EXPECT_EQ(cuda, csvCuda);
  EXPECT_EQ(identicalRunNotes(input.runs).size(), identicalRunNotes(csv).size());
}

}  // namespace
}  // namespace paritylab::study
