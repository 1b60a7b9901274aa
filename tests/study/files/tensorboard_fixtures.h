#pragma once
// The TensorBoard event files of tests/study/files/fixtures/tensorboard/, written by
// make_tensorboard_fixtures.py (an independent writer: Python, protobuf and TFRecord encoded by
// hand), and copies of them the tests damage.

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "tests/study/test_paths.h"

namespace paritylab::study::testing {

inline const std::string kTensorBoardFixtures =
    PARITYLAB_SOURCE_DIR "/tests/study/files/fixtures/tensorboard";
inline const std::string kEventFileName = "events.out.tfevents.1700000000.fixture";

// fixtures/tensorboard/<folder>/events.out.tfevents.1700000000.fixture
inline std::string fixtureEventFile(const std::string& folder) {
  return kTensorBoardFixtures + "/" + folder + "/" + kEventFileName;
}

inline std::string readBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// `bytes` written to a fresh temporary file named like an event file.
inline std::string writeEventFile(const std::string& name, const std::string& bytes) {
  const std::string folder = freshTempPath(name);
  std::filesystem::create_directories(folder);
  const std::string path = folder + "/" + kEventFileName;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

}  // namespace paritylab::study::testing
