// Cases loaded at run time: a case compiled on its own into a shared library (a case plugin, as
// `crbench case build` and the Python module's `Case.build()` make), which crbench, its Python
// module and any program on crbench::model register by the case's name. The plugin holds the
// whole CaseModel of its case type, instantiated from the same headers as the program's built-in
// cases, so a plugin case runs at the speed of a built-in one.
#pragma once

#include <string>
#include <vector>

#include "crbench/cases/registry.hpp"
#include "crbench/header_digest.hpp"
#include "crbench/solvers/plugin.hpp"

// The interface a case plugin is built against: the program's plugin interface and the digest of
// the headers that make a CaseModel (another layout of Model, CaseInfo or the dynamics would be
// undefined behaviour across the boundary, so a plugin of other headers is refused).
#define CRBENCH_CASE_PLUGIN_ABI CRBENCH_PLUGIN_ABI " case headers " CRBENCH_HEADER_DIGEST

// The entry of a case plugin for the case type TYPE (a Case, cases/case.hpp), in one source file
// of the plugin after TYPE's header and cases/register_case.hpp.
// The two entries are the plugin's only visible symbols where it is compiled with
// -fvisibility=hidden (as crbench_case.py compiles it).
#define CRBENCH_CASE_PLUGIN(TYPE)                                                    \
  extern "C" __attribute__((visibility("default"))) const char* crbench_case_abi() { \
    return CRBENCH_CASE_PLUGIN_ABI;                                                  \
  }                                                                                  \
  extern "C" __attribute__((visibility("default"))) const crbench::CaseEntry*        \
  crbench_case_entry() {                                                             \
    static const crbench::CaseEntry entry = crbench::case_entry<TYPE>();             \
    return &entry;                                                                   \
  }

namespace crbench {

// The file names a case plugin has: libcrbench_case_<anything>.so.
bool is_case_plugin_name(const std::string& file_name);

// Loads the case plugin FILE and registers its case; returns the case's name. A plugin of the
// same file loaded before is not loaded again; a case loaded from another plugin under the same
// name is replaced (a case rebuilt in one Python session); a built-in case's or a registered
// case's name is refused. InputError naming `field`, the file and the reason when FILE is not a
// loadable case plugin of this crbench (damaged, foreign, built against other headers).
// Not concurrent with any other use of the registry.
std::string load_case_plugin(const std::string& file, const std::string& field);

// Loads every libcrbench_case_*.so in FOLDER (in the order of their names); their case names.
// InputError naming `field` when FOLDER is not a readable folder or a plugin in it cannot be
// loaded.
std::vector<std::string> load_case_folder(const std::string& folder, const std::string& field);

// The folders of $CRBENCH_CASE_PATH (separated by ':'; empty entries skipped), in order.
std::vector<std::string> case_path_folders();

}  // namespace crbench
