// Fuzz target: a results database as `report`, `compare`, `xray` and the app read it. Opened
// read-only, then every table is loaded and the divergence analysis run for the first two
// backends. A damaged file must be refused with StoreError naming it (or SpecError for a stored
// study that does not parse); the file is never changed (compared byte for byte).
#include <cstdio>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

#include "core/study/analysis/divergence_analysis.h"
#include "core/study/spec/study_spec.h"
#include "core/study/store/results_store.h"
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace paritylab;
  const std::string path = fuzz::scratchFile("results.db", fuzz::asText(data, size));
  try {
    const auto store = study::ResultsStore::openReadOnly(path);
    const std::vector<study::RunRecord> runs = store->loadRuns();
    store->loadAllEpochs();
    store->loadAllSteps();
    store->loadXray();
    store->loadTestSet();
    store->loadPredictions();
    if (store->hasStudy()) store->loadStudySpec();
    for (const study::RunRecord& r : runs) store->loadWeightSnapshots(r.id);
    std::string a, b;
    for (const study::RunRecord& r : runs) {
      if (a.empty())
        a = r.backend;
      else if (b.empty() && r.backend != a)
        b = r.backend;
    }
    if (!b.empty()) {
      study::DivergenceOptions options;
      options.a = a;
      options.b = b;
      study::analyseDivergence(*store, options);
    }
  } catch (const study::StoreError&) {
  } catch (const study::SpecError&) {
  }
  // Readers never change a database, damaged or not.
  std::ifstream after(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(after)), {});
  if (bytes != fuzz::asText(data, size))
    throw std::logic_error(path + ": a reader changed the file");
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((path + suffix).c_str());
  return 0;
}
