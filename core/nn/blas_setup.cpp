#include "core/nn/blas_setup.h"

#include <cblas.h>
#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <string_view>

namespace paritylab::nn {

namespace {

// OpenBLAS's generic fallbacks: what its CPU detection returns for a CPU it does not know.
bool isGenericCore(std::string_view core) {
  return core == "Prescott" || core == "Core2" || core == "Katmai" || core == "Northwood" ||
         core == "Banias" || core == "Penryn" || core == "Dunnington" || core == "Nehalem";
}

// The best OpenBLAS kernel set this CPU can run, or null when the detected one is as good.
const char* betterCore() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
    return "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
  return nullptr;
}

// A DYNAMIC_ARCH OpenBLAS (Debian's) exports these; re-running the init with OPENBLAS_CORETYPE
// set selects that kernel table. Looked up at run time so a single-arch OpenBLAS still links.
void reselectCore(const char* core) {
  using Fn = void (*)();
  const auto quit = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, "gotoblas_dynamic_quit"));
  const auto init = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, "gotoblas_dynamic_init"));
  if (!quit || !init) return;
  setenv("OPENBLAS_CORETYPE", core, 0);
  quit();
  init();
}

}  // namespace

void configureBlas() {
  static std::once_flag once;
  std::call_once(once, [] {
    openblas_set_num_threads(1);
    if (std::getenv("OPENBLAS_CORETYPE")) return;
    const char* name = openblas_get_corename();
    if (name && isGenericCore(name))
      if (const char* core = betterCore()) reselectCore(core);
  });
}

std::string blasCoreName() {
  configureBlas();
  const char* name = openblas_get_corename();
  return name ? name : "unknown";
}

}  // namespace paritylab::nn
