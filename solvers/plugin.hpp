// Back-ends whose libraries are loaded only by the commands that use them. The crbench program
// links none of the Siconos numerics and kernel, MuJoCo, ODE, Bullet or MPI libraries: loading
// all of them (their symbol relocations, OpenBLAS's thread pool) costs a process far more time
// before main than a small solve takes (docs/internals.md measures both). Each back-end is a
// plugin, libcrbench_<name>.so, loaded at the first call that needs it.
//
// Other programs (the tests, the Python module, crbench_perf, a program built on the installed
// crbench::model) link the back-ends in instead: the archive's linked_model_plugin and
// linked_bench_plugin return their entries, and the crbench program replaces those two functions
// by ones that return nothing (bench/plugins_loaded.cpp), so that the archive members holding the
// back-ends, and with them their libraries, are left out of it.
#pragma once

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

// The interface every plugin of this crbench is built against: the loader refuses a plugin whose
// crbench_plugin_abi_<name>() returns another text. Change it with any interface table (a struct
// of function pointers declared by the code that uses it), with any type they pass (RunRecord,
// its Status and EventKind), or with the crbench version.
#define CRBENCH_PLUGIN_ABI "crbench " CRBENCH_VERSION_TEXT " plugin interface 3"

// The entry of a plugin: its interface table as `extern "C" const void* crbench_plugin_<name>()`,
// beside the interface it was built against; CRBENCH_PLUGIN_DECLARE declares the entry alone.
#define CRBENCH_PLUGIN_DECLARE(name) extern "C" const void* crbench_plugin_##name()
#define CRBENCH_PLUGIN_ENTRY(name)                                                  \
  extern "C" const char* crbench_plugin_abi_##name() { return CRBENCH_PLUGIN_ABI; } \
  extern "C" const void* crbench_plugin_##name()

namespace crbench {

// The entry of a back-end linked into this program, or nullptr where it is to be loaded. Names:
// siconos_numerics, siconos_kernel, mujoco, ode, bullet (crbench::model), mpi (crbench::bench).
const void* linked_model_plugin(const std::string& name);
const void* linked_bench_plugin(const std::string& name);

// `linked` when it is not null, otherwise the interface of libcrbench_<name>.so, loaded once per
// process from the first of plugin_folders() that has it. InputError naming the file, the folders
// searched and the loader's reason when it cannot be loaded (the command then exits with status
// 2); `what` says who needs it ("solver mujoco").
const void* plugin_interface(const std::string& name, const void* linked, const std::string& what);

// Where plugins are looked for: $CRBENCH_PLUGIN_DIR alone when it is set; otherwise the installed
// plugin folder relative to the program (lib/crbench beside its bin, however the prefix was moved),
// then the build tree's plugin folder.
std::vector<std::string> plugin_folders();

// What keeps FILE from being a shared object this program can map, or "" when nothing does: its
// ELF header (class, byte order, machine and type of this program's), and its program and section
// tables and every segment and section with content inside the file's own size. A truncated
// library passes dlopen and dies of SIGBUS at its first use of a page past the end; this refuses
// it first.
std::string shared_library_problem(const std::filesystem::path& file);

// A function pointer from dlsym's object pointer (POSIX guarantees the conversion).
template <class Function>
Function function_of(void* symbol) {
  Function function = nullptr;
  static_assert(sizeof(function) == sizeof(symbol));
  std::memcpy(&function, &symbol, sizeof(symbol));
  return function;
}

}  // namespace crbench
