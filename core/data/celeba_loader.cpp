#include "core/data/celeba_loader.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/data/byte_reader.h"
#include "core/data/image_decode.h"

namespace paritylab::data {
namespace {

struct Entry {
  std::string file;
  long identity;
};

std::vector<Entry> readIdentityFile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
    throwDataError(path, "not a regular file (a pipe, device or socket)");
  std::ifstream in(path);
  if (!in) throwDataError(path, "missing or unreadable (CelebA identity list)");
  std::vector<Entry> entries;
  std::string line;
  for (long lineNo = 1; std::getline(in, line); ++lineNo) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    std::istringstream fields(line);
    Entry e;
    std::string extra;
    if (!(fields >> e.file >> e.identity) || (fields >> extra) || e.identity < 0)
      throwDataError(path, "line " + std::to_string(lineNo) + ": expected \"<image> <identity>\" " +
                               "(e.g. \"000001.jpg 2880\"), got \"" + line + "\"");
    entries.push_back(std::move(e));
  }
  if (entries.empty()) throwDataError(path, "is empty (no \"<image> <identity>\" lines)");
  return entries;
}

}  // namespace

SourceData loadCelebaIdentities(const std::string& dirName, int identities, int imageSize) {
  namespace fs = std::filesystem;
  const int size = imageSize > 0 ? imageSize : kDefaultCelebaImageSize;
  std::error_code ec;
  if (!fs::is_directory(dirName, ec)) throwDataError(dirName, "missing (no such directory)");
  if (identities < 2)
    throwDataError(dirName, "celebaIdentities = " + std::to_string(identities) +
                                ": at least 2 identities are needed");
  const fs::path dir(dirName);
  const std::string listPath = (dir / "identity_CelebA.txt").string();
  const fs::path imageDir = dir / "img_align_celeba";
  const std::vector<Entry> entries = readIdentityFile(listPath);
  if (!fs::is_directory(imageDir, ec))
    throwDataError(imageDir.string(), "missing (the folder of aligned CelebA images)");

  std::map<long, long> counts;
  for (const Entry& e : entries) ++counts[e.identity];
  std::vector<std::pair<long, long>> ranked(counts.begin(), counts.end());  // (id, count)
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  if (ranked.size() < std::size_t(identities))
    throwDataError(listPath, "has " + std::to_string(ranked.size()) + " identities, fewer than " +
                                 "the " + std::to_string(identities) + " requested");
  std::map<long, int> label;
  std::vector<std::string> names;
  for (int i = 0; i < identities; ++i) {
    label[ranked[std::size_t(i)].first] = i;
    names.push_back("identity " + std::to_string(ranked[std::size_t(i)].first));
  }

  SourceData s;
  Dataset& d = s.train;
  d.channels = 3;
  d.height = d.width = size;
  d.numClasses = identities;
  d.classNames = names;
  for (const Entry& e : entries) {
    const auto it = label.find(e.identity);
    if (it == label.end()) continue;
    const cv::Mat image = decodeImage((imageDir / e.file).string(), size, true);
    appendImage(image, 3, d);
    d.labels.push_back(it->second);
  }
  s.test = d;
  s.test.images.clear();
  s.test.labels.clear();
  s.hasSplit = false;
  return s;
}

}  // namespace paritylab::data
