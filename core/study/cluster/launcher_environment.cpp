#include "core/study/cluster/launcher_environment.h"

#include <cstdlib>

namespace paritylab::study {

std::string mpiLauncherVariable() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (const char* value = std::getenv(name)) return std::string(name) + "=" + value;
  return {};
}

std::string mpiNotBuiltMessage(const std::string& launcherVariable, const std::string& flag) {
  const std::string why =
      launcherVariable.empty()
          ? flag + ": this paritylab-cli was built without MPI"
          : "run was started by an MPI launcher (" + launcherVariable +
                ") but this paritylab-cli was built without MPI, so every process would train "
                "the whole study on its own";
  return why +
         ". To share the runs among MPI ranks, install Open MPI (Debian: apt-get install "
         "openmpi-bin libopenmpi-dev) and build again: the CMake option PARITYLAB_MPI is on "
         "when CMake finds MPI (cmake -S . -B build -DPARITYLAB_MPI=ON); see docs/cluster.md";
}

}  // namespace paritylab::study
