// The back-end of crbench::bench linked into the program (solvers/plugin.hpp): MPI, where crbench
// is built with it. The crbench program defines linked_bench_plugin itself
// (bench/plugins_loaded.cpp) and loads it as a plugin when an MPI launcher started it.
#include <string>

#include "crbench/solvers/plugin.hpp"

#ifdef CRBENCH_WITH_MPI
CRBENCH_PLUGIN_DECLARE(mpi);
#endif

namespace crbench {

const void* linked_bench_plugin([[maybe_unused]] const std::string& name) {
#ifdef CRBENCH_WITH_MPI
  if (name == "mpi") return crbench_plugin_mpi();
#endif
  return nullptr;
}

}  // namespace crbench
