// `export-init` writes a run's start so that another engine can train the same model from the same
// weights on the same batches. Checked through the files alone: a model given the exported
// parameters and the first exported batch (indices into the exported split) takes the run's first
// step with the very loss the study stored for it, bit for bit; both backends of a seed start from
// the same parameters and batches, and the chaos floor's nudged run from the same except one
// weight one fp32 ulp up. The .npy files are read by a parser written here from NumPy's format
// description. The export never writes into a folder that holds anything, and names what is wrong.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/nn/optimizer.h"
#include "core/nn/run_start.h"
#include "core/study/spec/study_spec.h"
#include "core/study/store/results_store.h"
#include "tests/cli/cli_runner.h"

namespace paritylab::cli {
namespace {

using nlohmann::json;
using testing::runCli;
using testing::TempFolder;

// A .npy file as NumPy's format description has it: "\x93NUMPY", version 1.0, a little-endian
// uint16 header length, a dict literal padded with spaces and ended by '\n' so that the data starts
// at a multiple of 64 bytes.
struct Npy {
  std::string descr;
  std::vector<std::size_t> shape;
  std::string bytes;

  template <typename T>
  std::vector<T> values() const {
    std::vector<T> v(bytes.size() / sizeof(T));
    std::memcpy(v.data(), bytes.data(), v.size() * sizeof(T));
    return v;
  }
};

Npy readNpy(const std::string& path) {
  const std::string file = testing::readAll(path);
  EXPECT_GE(file.size(), 10U) << path;
  EXPECT_EQ(file.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8)) << path;
  const std::size_t headerLength =
      std::size_t(std::uint8_t(file[8])) | std::size_t(std::uint8_t(file[9])) << 8;
  const std::string dict = file.substr(10, headerLength);
  EXPECT_EQ((10 + headerLength) % 64, 0U) << path;
  EXPECT_EQ(dict.back(), '\n') << path;
  EXPECT_NE(dict.find("'fortran_order': False"), std::string::npos) << dict;
  Npy npy;
  const std::size_t d = dict.find("'descr': '") + 10;
  npy.descr = dict.substr(d, dict.find('\'', d) - d);
  const std::size_t open = dict.find("'shape': (") + 10;
  std::string dims = dict.substr(open, dict.find(')', open) - open);
  for (std::size_t at = 0; at < dims.size();) {
    const std::size_t comma = dims.find(',', at);
    const std::string dim = dims.substr(at, comma == std::string::npos ? comma : comma - at);
    if (dim.find_first_not_of(' ') != std::string::npos) npy.shape.push_back(std::stoul(dim));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  npy.bytes = file.substr(10 + headerLength);
  std::size_t count = 1;
  for (std::size_t dim : npy.shape) count *= dim;
  const std::size_t width = npy.descr == "<f4" || npy.descr == "<i4" || npy.descr == "<u4" ? 4 : 0;
  EXPECT_EQ(npy.bytes.size(), count * width) << path << " " << dict;
  return npy;
}

const char* kStudy = R"({"version": 1, "name": "export-check",
  "dataset": {"source": "synthetic", "train_size": 300, "test_size": 100},
  "model": "mlp", "epochs": 2, "batch_size": 64, "optimizer": {"kind": "adamw", "lr": 0.002},
  "backends": ["cpu-fp32", "gpu-amp-bf16"], "seeds": 1, "threads": 1,
  "chaos_floor": {"perturbations": ["weight-ulp"]}})";

class ExportInit : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    folder_ = new TempFolder("export-init");
    const auto run = runCli({"run", folder_->write("study.json", kStudy), "--db", db()});
    ASSERT_EQ(run.exitCode, 0) << run.out << run.err;
  }
  static void TearDownTestSuite() {
    delete folder_;
    folder_ = nullptr;
  }
  static std::string db() { return folder_->file("study.db"); }
  static std::int64_t runOf(const std::string& backend) {
    for (const auto& r : study::ResultsStore::openReadOnly(db())->loadRuns())
      if (r.backend == backend) return r.id;
    ADD_FAILURE() << "no run of " << backend;
    return 0;
  }
  // Exports `backend`'s run into the new folder `name`; returns its manifest.
  static json exportOf(const std::string& backend, const std::string& name, bool data = false) {
    std::vector<std::string> args = {
        "export-init", db(), "--run", std::to_string(runOf(backend)), "--out", out(name)};
    if (data) args.push_back("--data");
    const auto r = runCli(args);
    EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("Exported the start of run " + std::to_string(runOf(backend)) + " (" +
                         backend + ", seed 0)"),
              std::string::npos)
        << r.out;
    return json::parse(testing::readAll(out(name) + "/manifest.json"));
  }
  static std::string out(const std::string& name) { return folder_->file(name); }

  static TempFolder* folder_;
};
TempFolder* ExportInit::folder_ = nullptr;

TEST_F(ExportInit, ExportedStartReproducesTheRunsFirstStepBitForBit) {
  const json m = exportOf("cpu-fp32", "with-data", true);
  EXPECT_EQ(m.at("format"), "paritylab-run-start");
  EXPECT_EQ(m.at("run").at("backend"), "cpu-fp32");
  EXPECT_EQ(m.at("model"), "mlp");
  EXPECT_EQ(m.at("epochs"), 2);
  EXPECT_EQ(m.at("batch_size"), 64);
  EXPECT_EQ(m.at("train_examples"), 300);
  const std::string dir = out("with-data") + "/";

  const Npy order = readNpy(dir + "batch_order.npy");
  EXPECT_EQ(order.descr, "<u4");
  EXPECT_EQ(order.shape, (std::vector<std::size_t>{2, 300}));
  const auto orders = order.values<std::uint32_t>();
  for (std::size_t epoch = 0; epoch < 2; ++epoch) {  // each epoch a permutation of the split
    std::vector<std::uint32_t> sorted(orders.begin() + long(epoch * 300),
                                      orders.begin() + long((epoch + 1) * 300));
    std::sort(sorted.begin(), sorted.end());
    for (std::uint32_t i = 0; i < 300; ++i) ASSERT_EQ(sorted[i], i) << "epoch " << epoch + 1;
  }
  const Npy images = readNpy(dir + m.at("data").at("train_images").get<std::string>());
  const Npy labels = readNpy(dir + m.at("data").at("train_labels").get<std::string>());
  ASSERT_EQ(images.shape.size(), 4U);
  EXPECT_EQ(images.shape[0], 300U);
  EXPECT_EQ(labels.descr, "<i4");
  const std::size_t itemSize = images.shape[1] * images.shape[2] * images.shape[3];
  const auto pixels = images.values<float>();
  const auto classes = labels.values<std::int32_t>();

  // A model built with another seed, then given the exported parameters: only the files decide.
  const study::StudySpec spec = study::ResultsStore::openReadOnly(db())->loadStudySpec();
  nn::TrainConfig config = study::trainConfigFor(spec, spec.backends[0]);
  data::Dataset shape;
  shape.channels = int(images.shape[1]);
  shape.height = int(images.shape[2]);
  shape.width = int(images.shape[3]);
  shape.numClasses = m.at("classes");
  nn::TrainingSession session(nn::modelSpecFor(config, shape), spec.backends[0].policy, 12345);
  nn::ParamStore& params = session.model().params;
  ASSERT_EQ(m.at("parameters").size(), params.infos().size());
  for (std::size_t id = 0; id < params.infos().size(); ++id) {
    const json& p = m.at("parameters")[id];
    EXPECT_EQ(p.at("name"), params.infos()[id].name);
    const Npy values = readNpy(dir + p.at("file").get<std::string>());
    EXPECT_EQ(values.shape, p.at("shape").get<std::vector<std::size_t>>());
    const auto v = values.values<float>();
    ASSERT_EQ(v.size(), params.infos()[id].size) << p.at("name");
    std::copy(v.begin(), v.end(), params.master(int(id)));
  }
  session.weightsChanged(0);
  std::vector<float> batch(64 * itemSize);
  std::vector<std::int32_t> batchLabels(64);
  for (std::size_t i = 0; i < 64; ++i) {
    const std::uint32_t src = orders[i];
    std::copy_n(pixels.begin() + long(src * itemSize), itemSize,
                batch.begin() + long(i * itemSize));
    batchLabels[i] = classes[src];
  }
  auto optimizer = nn::makeOptimizer(config.optimizer);
  const nn::StepOutcome first = session.step(batch.data(), batchLabels.data(), 64, 0, *optimizer,
                                             config.optimizer.lr, params.weightRanges(false), 0.0);
  const auto steps = study::ResultsStore::openReadOnly(db())->loadAllSteps();
  const auto& stored = steps.at(runOf("cpu-fp32"));
  ASSERT_FALSE(stored.empty());
  ASSERT_EQ(stored.front().step, 1);
  EXPECT_EQ(std::bit_cast<std::uint64_t>(first.loss),
            std::bit_cast<std::uint64_t>(stored.front().trainLoss))
      << first.loss << " vs the stored " << stored.front().trainLoss;
}

TEST_F(ExportInit, BackendsOfASeedShareTheStartAndTheNudgedRunDiffersByOneUlp) {
  const json m = exportOf("gpu-amp-bf16", "amp");
  exportOf("cpu-fp32", "fp32");
  exportOf("nudged-cpu-fp32", "nudged");
  EXPECT_TRUE(m.at("data").is_null());
  EXPECT_FALSE(std::filesystem::exists(out("amp") + "/train_images.npy"));
  EXPECT_EQ(testing::readAll(out("amp") + "/batch_order.npy"),
            testing::readAll(out("fp32") + "/batch_order.npy"));
  int nudged = 0;
  for (const json& p : m.at("parameters")) {
    const std::string file = "/" + p.at("file").get<std::string>();
    EXPECT_EQ(testing::readAll(out("amp") + file), testing::readAll(out("fp32") + file))
        << p.at("name");
    const auto a = readNpy(out("fp32") + file).values<float>();
    const auto b = readNpy(out("nudged") + file).values<float>();
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i)
      if (a[i] != b[i]) {
        ++nudged;
        EXPECT_EQ(b[i], std::nextafter(a[i], INFINITY)) << p.at("name") << "[" << i << "]";
      }
  }
  EXPECT_EQ(nudged, 1);
}

TEST_F(ExportInit, FolderThatHoldsFilesIsRefusedAndLeftAsItWas) {
  const std::string target = folder_->file("taken");
  std::filesystem::create_directories(target);
  std::ofstream(target + "/results.csv") << "keep me\n";
  const auto r =
      runCli({"export-init", db(), "--run", std::to_string(runOf("cpu-fp32")), "--out", target});
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.err.find(target + ": the folder holds files"), std::string::npos) << r.err;
  EXPECT_EQ(testing::readAll(target + "/results.csv"), "keep me\n");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(target), {}), 1);

  const std::string file = folder_->write("a-file", "data\n");
  const auto onFile = runCli({"export-init", db(), "--run", "1", "--out", file});
  EXPECT_NE(onFile.exitCode, 0);
  EXPECT_NE(onFile.err.find("exists and is not a folder"), std::string::npos) << onFile.err;
  EXPECT_EQ(testing::readAll(file), "data\n");
  // Nothing was left beside them (no half-built folder).
  for (const auto& entry : std::filesystem::directory_iterator(folder_->file("")))
    EXPECT_EQ(entry.path().filename().string().find(".building-"), std::string::npos)
        << entry.path();
}

TEST_F(ExportInit, UnknownRunIsNamedWithTheRunsTheDatabaseHas) {
  const auto r = runCli({"export-init", db(), "--run", "99", "--out", folder_->file("none")});
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.err.find(db() + ": no run 99 (its runs are 1 to 3)"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(folder_->file("none")));
}

}  // namespace
}  // namespace paritylab::cli
