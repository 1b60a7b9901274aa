// The layering of docs/architecture.md, checked on every project #include of core/, ui/ and app/:
// a floor of core uses only the floors below it, a role folder of core/study or ui/ only the
// folders below it, a panel no other panel, core neither ui/ nor app/, ui/ not app/. A violation
// is reported with the file, the line and what the folder may use.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace paritylab {
namespace {

namespace fs = std::filesystem;

// A folder and the level it sits at within its group; a folder may include its own files and any
// folder of a lower level in the same group. Groups: core floors, core/study roles, ui roles.
struct Place {
  std::string group;   // "core", "study", "ui", "app"
  std::string folder;  // "nn", "store", "panels/xray", ...
  int level = 0;
};

const std::map<std::string, int> kCoreFloors = {{"input", 0}, {"numerics", 1},  {"stats", 1},
                                                {"data", 2},  {"backends", 3},  {"nn", 4},
                                                {"study", 5}, {"playground", 5}};
// run sits above analysis: a sequential study's runner plans each round from the looks at what
// is stored.
const std::map<std::string, int> kStudyRoles = {{"spec", 0}, {"store", 1},   {"analysis", 2},
                                                {"run", 3},  {"cluster", 4}, {"files", 3}};
// ui: session (what is shown and what runs), the chart kit over it, the panels, the shell on top.
const std::map<std::string, int> kUiRoles = {
    {"session", 0}, {"charts", 1}, {"panels", 2}, {"shell", 3}};

std::optional<Place> placeOf(const std::string& path) {
  std::vector<std::string> parts;
  for (const auto& p : fs::path(path)) parts.push_back(p.string());
  if (parts.size() < 2) return std::nullopt;
  if (parts[0] == "app") return Place{"app", "app", 0};
  if (parts[0] == "core") {
    const auto floor = kCoreFloors.find(parts[1]);
    if (floor == kCoreFloors.end()) return std::nullopt;
    return Place{"core", parts[1], floor->second};
  }
  if (parts[0] == "ui" && parts.size() >= 3) {
    const auto role = kUiRoles.find(parts[1]);
    if (role == kUiRoles.end()) return std::nullopt;
    const std::string folder =
        parts[1] == "panels" && parts.size() >= 4 ? "panels/" + parts[2] : parts[1];
    return Place{"ui", folder, role->second};
  }
  return std::nullopt;
}

std::optional<Place> studyRoleOf(const std::string& path) {
  std::vector<std::string> parts;
  for (const auto& p : fs::path(path)) parts.push_back(p.string());
  if (parts.size() < 4 || parts[0] != "core" || parts[1] != "study") return std::nullopt;
  const auto role = kStudyRoles.find(parts[2]);
  if (role == kStudyRoles.end()) return std::nullopt;
  return Place{"study", parts[2], role->second};
}

// "" when `from` may include `to`, else why not.
std::string violation(const std::string& from, const std::string& to) {
  const auto a = placeOf(from), b = placeOf(to);
  if (!a) return "is in no folder of the layering (docs/architecture.md)";
  if (!b) return "includes " + to + ", which is in no folder of the layering";
  if (a->group == "app") return "";
  if (a->group == "core" && b->group != "core") return "core must not use ui/ or app/";
  if (a->group == "ui" && b->group == "app") return "ui/ must not use app/";
  if (a->group == "ui" && b->group == "core") return "";
  if (a->folder == b->folder) {
    if (a->group == "core" && a->folder == "study") {
      const auto ra = studyRoleOf(from), rb = studyRoleOf(to);
      if (!ra || !rb) return "core/study files live in a role folder";
      if (ra->folder != rb->folder && rb->level >= ra->level)
        return "core/study/" + ra->folder + " may use only the study folders below it";
    }
    return "";
  }
  if (b->level < a->level) return "";
  return a->group + " folder " + a->folder + " may use only the folders below it";
}

TEST(Layering, EveryIncludeGoesDownTheFloorsAndRoleFolders) {
  const fs::path root = PARITYLAB_SOURCE_DIR;
  const std::regex include(R"(^\s*#\s*include\s+"((core|ui|app)/[^"]+)\")");
  std::vector<std::string> problems;
  std::size_t checked = 0;
  for (const char* top : {"core", "ui", "app"}) {
    for (const auto& entry : fs::recursive_directory_iterator(root / top)) {
      const std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".h" && ext != ".cpp")) continue;
      const std::string from = fs::relative(entry.path(), root).string();
      std::ifstream in(entry.path());
      std::string line;
      for (int number = 1; std::getline(in, line); ++number) {
        std::smatch m;
        if (!std::regex_search(line, m, include)) continue;
        ++checked;
        const std::string why = violation(from, m[1].str());
        if (!why.empty())
          problems.push_back(from + ":" + std::to_string(number) + ": " + m[1].str() + ": " + why);
      }
    }
  }
  EXPECT_GT(checked, 500u);
  std::string all;
  for (const std::string& p : problems) all += p + "\n";
  EXPECT_TRUE(problems.empty()) << problems.size() << " includes against the layering:\n" << all;
}

// The checker itself: what it must refuse.
TEST(Layering, UpwardAndSidewaysIncludesAreRefused) {
  EXPECT_EQ(violation("core/nn/gemm.cpp", "core/backends/precision_policy.h"), "");
  EXPECT_NE(violation("core/backends/x.cpp", "core/nn/gemm.h"), "");
  EXPECT_NE(violation("core/numerics/x.cpp", "core/stats/y.h"), "");
  EXPECT_NE(violation("core/playground/x.cpp", "core/study/store/results_store.h"), "");
  EXPECT_NE(violation("core/study/store/x.cpp", "core/study/files/y.h"), "");
  EXPECT_EQ(violation("core/study/run/x.cpp", "core/study/analysis/y.h"), "");
  EXPECT_NE(violation("core/study/analysis/x.cpp", "core/study/run/y.h"), "");
  EXPECT_NE(violation("core/study/run/x.cpp", "core/study/files/y.h"), "");
  EXPECT_EQ(violation("core/study/files/x.cpp", "core/study/analysis/y.h"), "");
  EXPECT_NE(violation("core/nn/x.cpp", "ui/charts/chart_view.h"), "");
  EXPECT_NE(violation("ui/panels/xray/x.cpp", "ui/panels/formats/y.h"), "");
  EXPECT_NE(violation("ui/session/x.cpp", "ui/shell/main_window.h"), "");
  EXPECT_NE(violation("ui/charts/x.cpp", "ui/panels/curves/y.h"), "");
  EXPECT_NE(violation("ui/session/x.cpp", "ui/charts/y.h"), "");
  EXPECT_EQ(violation("ui/shell/main_window.cpp", "ui/panels/xray/xray_panel.h"), "");
  EXPECT_EQ(violation("app/cli/cmd_run.cpp", "core/study/run/study_runner.h"), "");
}

}  // namespace
}  // namespace paritylab
