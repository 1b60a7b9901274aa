// Corpus replay: runs one fuzz target over every file of the given corpus directories (and the
// inputs the target generates), without libFuzzer, so any compiler builds it and CTest runs it.
// Prints what it replayed; a crash or an unexpected exception fails the test.

#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz_target.h"

namespace paritylab::fuzz {
__attribute__((weak)) std::vector<std::string> generatedInputs() {
  return {};
}
}  // namespace paritylab::fuzz

namespace {

void replay(const std::string& name, const std::string& bytes) {
  try {
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: unexpected exception: %s\n", name.c_str(), e.what());
    throw;
  }
}

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    if (!fs::exists(argv[i])) {  // a corpus that is not there must not pass as one empty input
      std::fprintf(stderr, "%s: no such corpus file or folder\n", argv[i]);
      return 1;
    }
    if (fs::is_directory(argv[i])) {
      for (const auto& entry : fs::recursive_directory_iterator(argv[i]))
        if (entry.is_regular_file()) files.push_back(entry.path());
    } else {
      files.emplace_back(argv[i]);
    }
  }
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    replay(file.string(), std::string(std::istreambuf_iterator<char>(in), {}));
  }
  const auto generated = paritylab::fuzz::generatedInputs();
  for (std::size_t i = 0; i < generated.size(); ++i)
    replay("generated input " + std::to_string(i), generated[i]);
  std::printf("replayed %zu corpus files and %zu generated inputs\n", files.size(),
              generated.size());
  return files.empty() && generated.empty() ? 1 : 0;
}
