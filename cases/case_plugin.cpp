#include "crbench/cases/case_plugin.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>

namespace crbench {

bool is_case_plugin_name(const std::string& file_name) {
  const std::string prefix = "libcrbench_case_", suffix = ".so";
  return file_name.size() > prefix.size() + suffix.size() && file_name.starts_with(prefix) &&
         file_name.ends_with(suffix);
}

namespace {

// The entry of the plugin FILE, or throws naming what keeps it from being one of this crbench.
const CaseEntry& plugin_entry(const std::filesystem::path& file, const std::string& field) {
  const auto refuse = [&](const std::string& why) {
    return InputError(field + ": " + file.string() +
                      " is not a case plugin of this crbench: " + why);
  };
  std::error_code error;
  if (!std::filesystem::is_regular_file(file, error)) throw refuse("there is no such file");
  if (const std::string problem = shared_library_problem(file); !problem.empty()) {
    throw refuse(problem);
  }
  // RTLD_NOW: a symbol the plugin misses is reported here. Never closed: its case's functions
  // live in it for as long as the registry holds the case.
  void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* reason = dlerror();
    throw refuse(reason != nullptr ? reason : "the loader refused it");
  }
  void* abi = dlsym(handle, "crbench_case_abi");
  void* entry = dlsym(handle, "crbench_case_entry");
  if (abi == nullptr || entry == nullptr) {
    throw refuse("it has no crbench_case_abi and crbench_case_entry (cases/case_plugin.hpp)");
  }
  const std::string its = function_of<const char* (*)()>(abi)();
  if (its != CRBENCH_CASE_PLUGIN_ABI) {
    throw refuse("it was built against other crbench headers (its interface is '" + its +
                 "', this program's '" + CRBENCH_CASE_PLUGIN_ABI + "'); build it again");
  }
  const auto* found = function_of<const CaseEntry* (*)()>(entry)();
  if (found == nullptr || !found->make) throw refuse("its entry is empty");
  return *found;
}

}  // namespace

std::string load_case_plugin(const std::string& file, const std::string& field) {
  static std::mutex mutex;
  static std::map<std::string, std::string> loaded;  // canonical file -> case name
  const std::lock_guard<std::mutex> lock(mutex);
  std::error_code error;
  std::filesystem::path path = std::filesystem::weakly_canonical(file, error);
  if (error) path = file;
  if (const auto it = loaded.find(path.string()); it != loaded.end()) return it->second;
  CaseEntry entry = plugin_entry(path, field);
  entry.plugin = path.string();
  const std::string name = entry.info.name;
  try {
    register_case(std::move(entry));
  } catch (const InputError& e) {
    throw InputError(field + ": " + path.string() + ": " + e.what());
  }
  loaded[path.string()] = name;
  return name;
}

std::vector<std::string> load_case_folder(const std::string& folder, const std::string& field) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (!fs::is_directory(folder, error)) {
    throw InputError(field + ": '" + folder + "' is not a folder (a folder of case plugins, " +
                     "libcrbench_case_<name>.so, is expected)");
  }
  std::vector<fs::path> files;
  for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    if (is_case_plugin_name(it->path().filename().string())) files.push_back(it->path());
  }
  if (error) throw InputError(field + ": the folder '" + folder + "' cannot be read");
  std::sort(files.begin(), files.end());
  std::vector<std::string> names;
  for (const auto& file : files) names.push_back(load_case_plugin(file.string(), field));
  return names;
}

std::vector<std::string> case_path_folders() {
  std::vector<std::string> folders;
  const char* path = std::getenv("CRBENCH_CASE_PATH");
  if (path == nullptr) return folders;
  std::string rest = path;
  while (!rest.empty()) {
    const auto colon = rest.find(':');
    const std::string folder = rest.substr(0, colon);
    if (!folder.empty()) folders.push_back(folder);
    if (colon == std::string::npos) break;
    rest.erase(0, colon + 1);
  }
  return folders;
}

}  // namespace crbench
