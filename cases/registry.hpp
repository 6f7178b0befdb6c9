// The case registry: every case by name, with a factory that binds its parameters.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <string_view>

#include "crbench/cases/case.hpp"

namespace crbench {

struct CaseEntry {
  CaseInfo info;
  std::function<std::unique_ptr<Model>(const ParamValues&)> make;
  // The case plugin it was loaded from (cases/case_plugin.hpp); empty for a case compiled in.
  std::string plugin = {};
};

// The built-in cases in the order of crbench_builtin_cases (CMakeLists.txt), then those added by
// register_case. A deque, so that a reference from find_case stays valid when a case is added.
const std::deque<CaseEntry>& case_registry();
// The built-in cases' entries, each compiled in a translation unit of its own generated from
// crbench_builtin_cases (CMakeLists.txt, cmake/crbenchCases.cmake), so that editing one case
// recompiles that case alone.
std::deque<CaseEntry> builtin_case_entries();
// Adds a case (a user's own, or a test's; cases/register_case.hpp makes the entry from a Case
// type). Call it before any thread looks a case up. InputError when the name is taken, except that
// a case loaded from a plugin replaces one loaded from another plugin under its name.
void register_case(CaseEntry entry);
// InputError naming the known cases when there is none of that name.
const CaseEntry& find_case(std::string_view name);
// What identifies a bound model's case-level results (its horizon, its facts) within a process:
// the case's name, the plugin it came from (a case rebuilt from a plugin under the same name is
// another case) and its parameter values.
std::string model_key(const Model& model);
// Finds the case, validates the assignments against its parameters, binds them.
std::unique_ptr<Model> make_model(std::string_view name,
                                  const std::vector<Assignment>& assignments);

}  // namespace crbench
