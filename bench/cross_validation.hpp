// The cross-validation of the main job (`crbench report`, results/cross-validation/): every case
// through each pair of a crbench solver and the Siconos kernel's solver of the same model —
// event-driven beside siconos-event-driven (rtol 1e-12, atol 1e-14), moreau-jean beside
// siconos-moreau-jean (the same h, θ and restitution) — with the difference of their lift-off
// times and of their final states, and a verdict: agree within the pair's bound, differ for a
// reason the study states (with the bound the difference must stay under), or DISAGREE.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "crbench/cases/case.hpp"

namespace crbench {

// A model to cross-validate: a registered case, or (in a test) a model made to differ between the
// two codes.
struct CrossValidationSubject {
  std::string name;
  std::function<std::unique_ptr<Model>()> make;
};

// Every registered case.
std::vector<CrossValidationSubject> registered_subjects();

// The deterministic record: per subject and pair, both runs' status, lift-off, events, steps and
// tolerances, the differences, the bounds and the verdict ("agree", "differ, explained",
// "DISAGREE", "failed", "not run"). Without the Siconos solvers (CRBENCH_SICONOS off) every pair
// is "not run".
nlohmann::ordered_json cross_validate(const std::vector<CrossValidationSubject>& subjects,
                                      std::ostream& progress);

struct CrossValidationSummary {
  int pairs = 0;  // case × pair run by both codes
  int agree = 0;
  int explained = 0;
  int disagree = 0;      // DISAGREE or failed
  std::string markdown;  // the verdict table, for the results README
};

// Writes cross_validation.json (cross_validate's record) and README.md into `dir`.
CrossValidationSummary write_cross_validation(const std::filesystem::path& dir,
                                              const std::vector<CrossValidationSubject>& subjects,
                                              std::ostream& progress);

}  // namespace crbench
