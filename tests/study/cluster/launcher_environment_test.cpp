// A process started by an MPI launcher is recognised by the variable its
// launcher sets (Open MPI, PMI-2, PMIx), and a build without MPI says how to get it.

#include "core/study/cluster/launcher_environment.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace paritylab::study {
namespace {

// Clears the launcher variables for the test and restores them after it.
class LauncherEnvironment : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : kNames) {
      const char* value = std::getenv(name);
      saved_.emplace_back(name, value ? std::optional<std::string>(value) : std::nullopt);
      ::unsetenv(name);
    }
  }
  void TearDown() override {
    for (const auto& [name, value] : saved_)
      value ? (void)::setenv(name, value->c_str(), 1) : (void)::unsetenv(name);
  }
  static constexpr const char* kNames[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"};

 private:
  std::vector<std::pair<const char*, std::optional<std::string>>> saved_;
};

TEST_F(LauncherEnvironment, EachLaunchersVariableIsRecognised) {
  EXPECT_EQ(mpiLauncherVariable(), "");
  ::setenv("PMIX_RANK", "0", 1);  // srun --mpi=pmix
  EXPECT_EQ(mpiLauncherVariable(), "PMIX_RANK=0");
  ::setenv("PMI_SIZE", "4", 1);  // srun --mpi=pmi2, MPICH's Hydra
  EXPECT_EQ(mpiLauncherVariable(), "PMI_SIZE=4");
  ::setenv("OMPI_COMM_WORLD_SIZE", "3", 1);  // Open MPI's mpirun
  EXPECT_EQ(mpiLauncherVariable(), "OMPI_COMM_WORLD_SIZE=3");
}

TEST_F(LauncherEnvironment, WithoutMpiTheMessageSaysWhyAndHowToGetIt) {
  const std::string launched = mpiNotBuiltMessage("OMPI_COMM_WORLD_SIZE=3", "--mpi");
  for (const char* part : {"OMPI_COMM_WORLD_SIZE=3", "built without MPI",
                           "apt-get install openmpi-bin libopenmpi-dev", "-DPARITYLAB_MPI=ON"})
    EXPECT_NE(launched.find(part), std::string::npos) << part << " not in: " << launched;
  const std::string flagged = mpiNotBuiltMessage("", "--mpi");
  EXPECT_EQ(flagged.rfind("--mpi: this paritylab-cli was built without MPI", 0), 0u) << flagged;
  EXPECT_NE(flagged.find("openmpi-bin libopenmpi-dev"), std::string::npos) << flagged;
}

}  // namespace
}  // namespace paritylab::study
