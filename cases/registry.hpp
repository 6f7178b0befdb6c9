// The case registry: every case by name, with a factory that binds its parameters.
#pragma once

#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "cases/case.hpp"

namespace crbench {

struct CaseEntry {
  CaseInfo info;
  std::function<std::unique_ptr<Model>(const ParamValues&)> make;
};

const std::vector<CaseEntry>& case_registry();
// InputError naming the known cases when there is none of that name.
const CaseEntry& find_case(std::string_view name);
// Finds the case, validates the assignments against its parameters, binds them.
std::unique_ptr<Model> make_model(std::string_view name,
                                  const std::vector<Assignment>& assignments);

}  // namespace crbench
