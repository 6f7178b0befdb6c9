#include "crbench/solvers/plugin.hpp"

#include <dlfcn.h>
#include <elf.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
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
  const fs::path build = fs::path(CRBENCH_BUILD_PLUGIN_DIR).lexically_normal();
  // A program of the build tree takes the plugins built with it: an install-layout folder beside
  // it (../lib/crbench) lies outside the tree and may hold another build's.
  if (!error && (program.parent_path() / "plugins").lexically_normal() == build) {
    return {build.string()};
  }
  if (!error) {
    folders.push_back((program.parent_path() / CRBENCH_PLUGIN_FROM_BIN).lexically_normal());
  }
  folders.push_back(build.string());
  return folders;
}

std::string shared_library_problem(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::error_code error;
  const auto size = std::filesystem::file_size(file, error);
  if (!in || error) return "it cannot be read";
  Elf64_Ehdr header{};
  if (size < sizeof header || !in.read(reinterpret_cast<char*>(&header), sizeof header) ||
      std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0) {
    return "it is not an ELF file";
  }
#if defined(__x86_64__)
  const int machine = EM_X86_64;
#elif defined(__aarch64__)
  const int machine = EM_AARCH64;
#else
  const int machine = header.e_machine;  // not checked here; dlopen does
#endif
  if (header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_ident[EI_DATA] != ELFDATA2LSB ||
      header.e_machine != machine || header.e_type != ET_DYN) {
    return "it is not a shared library for this machine (ELF class, byte order, machine or type)";
  }
  const auto within = [size](std::uint64_t offset, std::uint64_t bytes) {
    return offset <= size && bytes <= size - offset;
  };
  const auto truncated = [size](const std::string& what, std::uint64_t end) {
    return "it is truncated or damaged: its " + what + " ends at byte " + std::to_string(end) +
           " of a file of " + std::to_string(size) + " bytes";
  };
  if (header.e_phentsize != sizeof(Elf64_Phdr) || header.e_shentsize != sizeof(Elf64_Shdr)) {
    return "it is damaged: its ELF header gives table entries of the wrong size";
  }
  if (!within(header.e_phoff, std::uint64_t{header.e_phnum} * sizeof(Elf64_Phdr))) {
    return truncated("program header table",
                     header.e_phoff + std::uint64_t{header.e_phnum} * sizeof(Elf64_Phdr));
  }
  if (!within(header.e_shoff, std::uint64_t{header.e_shnum} * sizeof(Elf64_Shdr))) {
    return truncated("section table",
                     header.e_shoff + std::uint64_t{header.e_shnum} * sizeof(Elf64_Shdr));
  }
  for (int i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr segment{};
    in.seekg(static_cast<std::streamoff>(header.e_phoff + i * sizeof segment));
    if (!in.read(reinterpret_cast<char*>(&segment), sizeof segment)) return "it cannot be read";
    if (!within(segment.p_offset, segment.p_filesz)) {
      return truncated("segment " + std::to_string(i), segment.p_offset + segment.p_filesz);
    }
  }
  for (int i = 0; i < header.e_shnum; ++i) {
    Elf64_Shdr section{};
    in.seekg(static_cast<std::streamoff>(header.e_shoff + i * sizeof section));
    if (!in.read(reinterpret_cast<char*>(&section), sizeof section)) return "it cannot be read";
    if (section.sh_type != SHT_NOBITS && !within(section.sh_offset, section.sh_size)) {
      return truncated("section " + std::to_string(i), section.sh_offset + section.sh_size);
    }
  }
  return "";
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
    if (const std::string problem = shared_library_problem(path); !problem.empty()) {
      reasons += "; " + path.string() + ": " + problem;
      continue;
    }
    // RTLD_NOW: a symbol the plugin misses is reported here, not at some later call.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* reason = dlerror();
      reasons += std::string("; ") + (reason ? reason : path.string() + " did not load");
      continue;
    }
    const std::string abi_name = "crbench_plugin_abi_" + name;
    void* abi = dlsym(handle, abi_name.c_str());
    if (abi == nullptr) {
      reasons += "; " + path.string() + " is not a crbench plugin (it has no " + abi_name + ")";
      continue;
    }
    const std::string its = function_of<const char* (*)()>(abi)();
    if (its != CRBENCH_PLUGIN_ABI) {
      reasons += "; " + path.string() + " was built for another crbench (its interface is '" + its +
                 "', this program's '" + CRBENCH_PLUGIN_ABI + "')";
      continue;
    }
    const std::string entry_name = "crbench_plugin_" + name;
    void* entry = dlsym(handle, entry_name.c_str());
    if (entry == nullptr) {
      reasons += "; " + path.string() + " has no " + entry_name;
      continue;
    }
    const void* table = function_of<const void* (*)()>(entry)();
    loaded[name] = table;
    return table;
  }
  throw InputError(what + ": its plugin " + file + " could not be loaded from " + searched +
                   (reasons.empty() ? " (not there)" : reasons) +
                   "; build crbench with it, or set CRBENCH_PLUGIN_DIR to its folder");
}

}  // namespace crbench
