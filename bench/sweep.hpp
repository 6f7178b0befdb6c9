// Sweeps: the limit model of Deryabin & Kozlov 1995 Theorem 1 over a grid of (α, β, γ) — directly
// or through the damping ratio ζ = β/(2√(αγ)) and the natural frequency ω₀ = √(γ/α) of the
// z-equation α z'' + β z' + γ z = −λ — and of case parameters, with the lift-off delay
// τ − τ_classical, the proposition that guarantees it, and where Theorem 1 does not apply
// (`crbench sweep`; the file schema is in bench/studies/README.md). Scaling (α, β, γ) by c > 0
// gives the same model (Deryabin & Kozlov 1995, after Theorem 1), so two axes cover it.
#pragma once

#include <functional>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "crbench/bench/points.hpp"
#include "crbench/cases/params.hpp"

namespace crbench {

struct SweepAxis {
  // zeta, omega0, alpha, beta or gamma (the model), or "case.NAME" (a parameter of the case).
  std::string name;
  std::string spacing;  // linear or log
  std::vector<double> values;
};

struct SweepCheck {
  double N = 1e6;  // the realization's N at the check points
  int stride = 4;  // every stride-th grid point along each axis
};

struct Sweep {
  std::string name;
  std::string description;
  std::string case_name;
  std::vector<Assignment> case_assignments;
  std::vector<SweepAxis> axes;          // one, two or three
  std::map<std::string, double> model;  // fixed alpha, beta, gamma (or alpha with zeta/omega0)
  double rtol = 1e-12;
  double atol = 1e-14;
  std::optional<SweepCheck> check;
  double max_wall_time = std::numeric_limits<double>::infinity();
  std::optional<double> t_end;  // the horizon of every solve (default: the case's)
};

Sweep parse_sweep(const nlohmann::json& j);
Sweep parse_sweep_text(std::string_view text, const std::string& origin);
Sweep load_sweep(const std::string& path);

struct SweepResult;

struct SweepOptions : FolderRunOptions {
  // Called with the final result once the folder is finished (after its figures): before
  // run_sweep returns, or on the figure queue's thread where there is one (figure_queue).
  std::function<void(const SweepResult&)> on_finished;
};

struct SweepResult {
  nlohmann::ordered_json summary;  // what sweep.json holds
  int points_total = 0;
  int points_computed = 0;
  int lines_discarded = 0;  // lines of points.jsonl that --resume did not reuse (other settings)
  int points_internal_error = 0;
  bool figures_written = false;
  std::string figures_message;
};

// Every grid point not already in out_dir/points.jsonl (with resume), appended as it completes;
// then grid.csv, grid.json, sweep.json and (optionally) the phase-map figure.
SweepResult run_sweep(const Sweep& sweep, const SweepOptions& options);

}  // namespace crbench
