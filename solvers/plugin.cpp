#include "crbench/solvers/plugin.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>

#include "crbench/cases/params.hpp"

namespace crbench {

std::vector<std::string> plugin_folders() {
  namespace fs = std::filesystem;
  if (const char* set = std::getenv("CRBENCH_PLUGIN_DIR"); set != nullptr && *set != '\0') {
    return {set};
  }
  std::vector<std::string> folders;
  std::error_code error;
  const fs::path program = fs::read_symlink("/proc/self/exe", error);
  if (!error) {
    folders.push_back((program.parent_path() / CRBENCH_PLUGIN_FROM_BIN).lexically_normal());
  }
  folders.emplace_back(CRBENCH_BUILD_PLUGIN_DIR);
  return folders;
}

const void* plugin_interface(const std::string& name, const void* linked, const std::string& what) {
  if (linked != nullptr) return linked;
  static std::mutex mutex;
  static std::map<std::string, const void*> loaded;
  const std::lock_guard<std::mutex> lock(mutex);
  if (const auto it = loaded.find(name); it != loaded.end()) return it->second;
  // OpenBLAS (under Siconos) starts a pool of threads as it loads; crbench's problems are small
  // and its parallelism is over points, so one thread unless the user asked for more.
  setenv("OPENBLAS_NUM_THREADS", "1", 0);
  const std::string file = "libcrbench_" + name + ".so";
  std::string searched, reasons;
  for (const auto& folder : plugin_folders()) {
    searched += (searched.empty() ? "" : ", ") + folder;
    const std::filesystem::path path = std::filesystem::path(folder) / file;
    std::error_code error;
    if (!std::filesystem::exists(path, error)) continue;
    // RTLD_NOW: a symbol the plugin misses is reported here, not at some later call.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* reason = dlerror();
      reasons += std::string("; ") + (reason ? reason : path.string() + " did not load");
      continue;
    }
    const std::string entry_name = "crbench_plugin_" + name;
    void* entry = dlsym(handle, entry_name.c_str());
    if (entry == nullptr) {
      reasons += "; " + path.string() + " has no " + entry_name;
      continue;
    }
    // A function pointer from dlsym's object pointer (POSIX guarantees the conversion).
    using Entry = const void* (*)();
    Entry function = nullptr;
    static_assert(sizeof(function) == sizeof(entry));
    std::memcpy(&function, &entry, sizeof(entry));
    const void* table = function();
    loaded[name] = table;
    return table;
  }
  throw InputError(what + ": its plugin " + file + " could not be loaded from " + searched +
                   (reasons.empty() ? " (not there)" : reasons) +
                   "; build crbench with it, or set CRBENCH_PLUGIN_DIR to its folder");
}

}  // namespace crbench
