#pragma once
// Whether this process was started by an MPI launcher, whichever way ParityLab was
// built, and what to say when this build cannot share a study's runs among MPI ranks.

#include <string>

namespace paritylab::study {

// The MPI launcher's variable in this process's environment as "VARIABLE=value": Open MPI's
// mpirun sets OMPI_COMM_WORLD_SIZE, MPICH's Hydra and Slurm's srun --mpi=pmi2 PMI_SIZE, PMIx
// launchers (srun --mpi=pmix, prun) PMIX_RANK. "" when none is set.
std::string mpiLauncherVariable();

// Why `run` cannot share its runs among MPI ranks in a build without MPI, and how to get it (the
// Debian packages, the CMake option). launcherVariable: as mpiLauncherVariable returns it, or ""
// when MPI was asked for with a flag (`flag`, e.g. "--mpi").
std::string mpiNotBuiltMessage(const std::string& launcherVariable, const std::string& flag);

}  // namespace paritylab::study
