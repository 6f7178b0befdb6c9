// The registry entry of a Case type: for register_case (a user's own case, or a test's) and the
// built-in list.
#pragma once

#include <memory>

#include "cases/registry.hpp"
#include "solvers/dynamics.hpp"

namespace crbench {

template <Case C>
CaseEntry case_entry() {
  return {case_info<C>(), [](const ParamValues& p) { return std::make_unique<CaseModel<C>>(p); }};
}

}  // namespace crbench
