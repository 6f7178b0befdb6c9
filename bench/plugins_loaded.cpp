// The crbench program's own choice of back-ends (solvers/plugin.hpp): none linked in, each loaded
// as a plugin by the command that needs it. These definitions keep the archive members that link
// the back-ends (solvers/plugins_linked.cpp, bench/plugins_linked.cpp) out of the program.
#include <string>

#include "crbench/solvers/plugin.hpp"

namespace crbench {

const void* linked_model_plugin(const std::string&) { return nullptr; }
const void* linked_bench_plugin(const std::string&) { return nullptr; }

}  // namespace crbench
