// libFuzzer target: the number and parameter parsers behind --set, the solver options and the
// study fields. Any text must give a value or an InputError; a value that is accepted must be
// finite and inside its spec's range.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "crbench/cases/params.hpp"
#include "crbench/cases/registry.hpp"
#include "crbench/solvers/solver.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const double x = crbench::parse_finite("fuzz", text);
    if (!std::isfinite(x)) std::abort();
  } catch (const crbench::InputError&) {
  }
  // KEY=VALUE assignments against a case's and a solver's parameter specs.
  const auto& specs = crbench::find_case("dk-plane").info.params;
  const auto solver_specs = crbench::find_solver("moreau-jean").parameters();
  try {
    const crbench::Assignment a = crbench::parse_assignment(text, "--set");
    for (const auto* list : {&specs, &solver_specs}) {
      try {
        const crbench::ParamValues values = crbench::resolve_params(*list, {a}, "fuzz");
        for (const auto& spec : *list) {
          const double v = values.at(spec.name);
          if (!std::isfinite(v) && std::isfinite(spec.default_value)) std::abort();
          if (v == spec.default_value) continue;
          if (!spec.admits(v)) std::abort();
        }
      } catch (const crbench::InputError&) {
      }
    }
  } catch (const crbench::InputError&) {
  }
  return 0;
}
