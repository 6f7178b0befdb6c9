// The registry entry of a Case type: for register_case (a user's own case, or a test's) and the
// built-in list.
#pragma once

#include <memory>

#include "crbench/cases/registry.hpp"
#include "crbench/solvers/chain_model.hpp"
#include "crbench/solvers/dynamics.hpp"

namespace crbench {

template <Case C>
CaseEntry case_entry() {
  return {case_info<C>(), [](const ParamValues& p) { return std::make_unique<CaseModel<C>>(p); }};
}

// The registry entry of a chain case (solvers/chain_model.hpp); its CaseInfo gives the sizes at
// the default parameters.
template <class C>
CaseEntry chain_entry() {
  return {C::info(), [](const ParamValues& p) { return std::make_unique<ChainModel<C>>(p); }};
}

}  // namespace crbench
