// A paritylab-cli built without MPI, started by an MPI launcher or with
// --mpi, says how to get MPI and exits non-zero before it touches the database (with MPI,
// tests/mpi runs it under mpirun).

#include <gtest/gtest.h>

#include <filesystem>

#include "tests/cli/cli_runner.h"

namespace paritylab::cli::testing {
namespace {

TEST(RunWithoutMpi, UnderALauncherOrWithMpiFlagSaysHowToGetIt) {
  if (PARITYLAB_CLI_HAS_MPI) GTEST_SKIP() << "this paritylab-cli is built with MPI (tests/mpi)";
  const TempFolder dir("nompi");
  const std::string db = dir.file("r.db");
  for (const char* launcher : {"OMPI_COMM_WORLD_SIZE=3", "PMI_SIZE=2", "PMIX_RANK=0"}) {
    const CliResult r =
        runCli({"run", "--dataset", "synthetic", "--seeds", "1", "--db", db}, {}, {launcher});
    EXPECT_EQ(r.exitCode, 2) << launcher;
    EXPECT_NE(r.err.find(launcher), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("openmpi-bin libopenmpi-dev"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("PARITYLAB_MPI"), std::string::npos) << r.err;
  }
  const CliResult flagged = runCli({"run", "--mpi", "--dataset", "synthetic", "--db", db});
  EXPECT_EQ(flagged.exitCode, 2);
  EXPECT_NE(flagged.err.find("--mpi: this paritylab-cli was built without MPI"), std::string::npos)
      << flagged.err;
  EXPECT_FALSE(std::filesystem::exists(db));
}

}  // namespace
}  // namespace paritylab::cli::testing
