// Impact studies: one impact at a given speed, per solver row (an engine at its defaults or at a
// restitution setting, crbench's Moreau–Jean on the ideal model), over a grid of impact speeds ×
// steps h: the restitution, the peak penetration and the contact's duration beside the ideal
// rigid impact (the row's restitution, no penetration, no duration). `crbench impacts --file F`;
// the file schema is in bench/impacts/README.md; docs/engines.md derives what the engines give.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "crbench/bench/points.hpp"
#include "crbench/cases/params.hpp"

namespace crbench {

struct ImpactRow {
  std::string label;
  std::string solver;  // a solver with a fixed step h
  std::vector<Assignment> assignments;
  double restitution = 0.0;        // what the row's settings ask of a rigid impact
  std::string restitution_source;  // where that request is documented
};

struct ImpactStudy {
  std::string name;
  std::string description;
  std::string case_name;
  std::vector<Assignment> case_assignments;  // fixed parameters (the start at contact)
  std::string speed_parameter;               // the case parameter set to each impact speed
  std::vector<double> speeds;
  std::vector<double> steps;
  double t_end = 0.5;  // the window every run covers
  // The step of the README's opening table (one of `steps`), if any.
  std::optional<double> summary_step;
  std::vector<ImpactRow> rows;
};

ImpactStudy parse_impact_study(const nlohmann::json& j);
ImpactStudy parse_impact_study_text(std::string_view text, const std::string& origin);
ImpactStudy load_impact_study(const std::string& path);

struct ImpactResult {
  nlohmann::ordered_json summary;  // what impacts.json holds besides the points
  int points_total = 0;
  int points_computed = 0;
  int lines_discarded = 0;
  int points_not_ok = 0;          // a status other than ok (reasons in points.jsonl)
  int points_internal_error = 0;  // of those, internal_error
  bool figures_written = false;
  std::string figures_message;
};

// Every point not already in out_dir/points.jsonl (with resume), appended as it completes; then
// impacts.json, the tables (restitution, peak_penetration, contact_duration: .md, .csv, .tex),
// README.md and (optionally) the figure.
ImpactResult run_impact_study(const ImpactStudy& study, const FolderRunOptions& options,
                              const std::string& study_file);

}  // namespace crbench
