#pragma once
// Where the runs of a TensorBoard log tree are: every events.out.tfevents.* file under the path a
// user names (a single event file, a folder with one subfolder per run, or any tree of them).
// The folder that holds an event file is a run; several event files in one folder belong to the
// same run (a job restarted into its log folder), read in the order of their names.

#include <cstddef>
#include <string>
#include <vector>

namespace paritylab::study {

struct EventRunFolder {
  std::string relative;    // to the named folder, '/'-separated; "." for the folder itself
  std::string name;        // the run folder's own name
  std::string parentName;  // the name of the folder that holds it ("" at the file system root)
  std::vector<std::string> files;  // its event files, by name
};

// More event files than this under one path is not a set of training runs (a wrong path).
inline constexpr std::size_t kMaxEventFiles = 100'000;

// "events.out.tfevents.1700000000.host" and the like.
bool isEventFileName(const std::string& fileName);
// A folder, or a file whose name is an event file's: what `import` reads as TensorBoard logs.
bool looksLikeTensorBoardPath(const std::string& path);

// The run folders under `path`, sorted by their relative path. Throws EventFileError when the path
// does not exist, names a file that is no event file, or holds no event file (or too many).
std::vector<EventRunFolder> findEventRuns(const std::string& path);

}  // namespace paritylab::study
