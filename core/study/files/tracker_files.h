#pragma once
// Where the files of a tracker's export are: the file named, or every *.csv file under a folder
// (a folder of per-run downloads, a tree of Lightning version_N/ folders). Symbolic links to
// folders are not followed.

#include <cstddef>
#include <string>
#include <vector>

namespace paritylab::study {

struct TrackerFile {
  std::string path;      // as it can be opened (and is named in messages)
  std::string relative;  // to the folder named, '/'-separated; the file's name when one is named
};

// More CSV files than this under one path is not one study's export (a wrong path).
inline constexpr std::size_t kMaxTrackerFiles = 100'000;

// The file named, or the *.csv files under the folder (only those named `onlyName` when it is
// not ""), sorted by relative path. Throws input::CsvError: no such path, a folder that cannot be
// listed, more than kMaxTrackerFiles.
std::vector<TrackerFile> findTrackerFiles(const std::string& path,
                                          const std::string& onlyName = "");

// "version_0/metrics" of "version_0/metrics.csv": a run's path made of its file's.
std::string withoutCsvSuffix(const std::string& relative);
// "seed0" of "tpu/seed0.csv": a file's own name without .csv.
std::string fileStem(const std::string& relative);
// "runs/" for a file in a subfolder of the folder named, "" else: what a run's name is prefixed
// with, so that runs of files in different folders stay apart.
std::string folderPrefix(const TrackerFile& file);
// The folder part of a relative path ("" for a file in the folder named).
std::string folderOf(const std::string& relative);

// Whether a folder holds a TensorBoard event file anywhere under it.
bool holdsEventFiles(const std::string& folder);

}  // namespace paritylab::study
