#include "crbench/cases/registry.hpp"

#include <utility>

namespace crbench {
namespace {

std::deque<CaseEntry>& registry() {
  static std::deque<CaseEntry> cases = builtin_case_entries();
  return cases;
}

}  // namespace

const std::deque<CaseEntry>& case_registry() { return registry(); }

void register_case(CaseEntry entry) {
  for (auto& c : registry()) {
    if (c.info.name == entry.info.name) {
      if (!c.plugin.empty() && !entry.plugin.empty()) {
        c = std::move(entry);
        return;
      }
      throw InputError("register_case: a case named '" + entry.info.name + "' exists already");
    }
  }
  registry().push_back(std::move(entry));
}

const CaseEntry& find_case(std::string_view name) {
  std::string known;
  for (const auto& c : case_registry()) {
    if (c.info.name == name) return c;
    known += (known.empty() ? "" : ", ") + c.info.name;
  }
  throw InputError("--case: unknown case '" + std::string(name) + "'; known cases: " + known);
}

std::string model_key(const Model& model) {
  std::string key = model.info().name;
  for (const auto& c : case_registry()) {
    if (c.info.name == key && !c.plugin.empty()) key += "@" + c.plugin;
  }
  for (const auto& [name, value] : model.params()) key += "|" + name + "=" + format_number(value);
  return key;
}

std::unique_ptr<Model> make_model(std::string_view name,
                                  const std::vector<Assignment>& assignments) {
  const CaseEntry& c = find_case(name);
  return c.make(resolve_params(c.info.params, assignments, "case " + c.info.name));
}

std::string Model::coordinate_name(int i) const {
  const auto& c = info().coordinates;
  if (i < static_cast<int>(c.size())) return c[static_cast<std::size_t>(i)].name;
  std::string name = "q";
  name.append(std::to_string(i));
  return name;
}

std::string Model::coordinate_unit(int i) const {
  const auto& c = info().coordinates;
  return i < static_cast<int>(c.size()) ? c[static_cast<std::size_t>(i)].unit : std::string();
}

std::string Model::constraint_unit(int k) const {
  const auto& u = info().constraint_units;
  return k < static_cast<int>(u.size()) ? u[static_cast<std::size_t>(k)] : std::string();
}

std::string Model::constraint_name(int k) const {
  const auto& names = info().constraint_names;
  if (k < static_cast<int>(names.size())) return names[static_cast<std::size_t>(k)];
  return "f" + std::to_string(k);
}

int Model::constraint_index(const std::string& name_or_index, const std::string& field) const {
  std::string known;
  for (int k = 0; k < constraint_count(); ++k) {
    const std::string name = constraint_name(k);
    if (name == name_or_index || std::to_string(k) == name_or_index) return k;
    known += (known.empty() ? "" : ", ") + name + " (" + std::to_string(k) + ")";
  }
  throw InputError(
      field + ": '" + name_or_index + "' is not a constraint of " + info().name +
      (known.empty() ? std::string(", which has none") : "; its constraints are " + known));
}

}  // namespace crbench
