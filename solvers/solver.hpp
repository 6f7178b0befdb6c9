// The one small interface every solver implements, and the solver registry.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cases/case.hpp"
#include "solvers/record.hpp"

namespace crbench {

// One row of a trajectory: the state and what the model says there.
struct TrajectorySample {
  State x;
  Eigen::VectorXd f;        // constraint values
  Eigen::VectorXd lambda;   // multipliers of the given f (0 for inactive constraints)
  Eigen::VectorXd mu;       // μ = λ·|∇f|_{A⁻¹}
  Eigen::VectorXd impulse;  // impulse P per constraint applied at this row (impacts, time steps)
  // "" on the output grid; "<kinds>-" / "<kinds>+" just before / just after an event, where
  // <kinds> joins the event kinds with '&' (e.g. "switch-", "impact+").
  std::string label;
};

struct RunSettings {
  double rtol = 1e-12;
  double atol = 1e-14;
  double t_end = 0.0;         // horizon
  ParamValues solver_params;  // validated against Solver::parameters()
  // Sorted times at which to report samples (may be empty); samples at events are reported too.
  std::vector<double> output_times;
  std::function<void(const TrajectorySample&)> on_sample;
};

class Solver {
 public:
  virtual ~Solver() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  virtual std::vector<ParamSpec> parameters() const = 0;
  // The model whose analytic facts (Facts::lift_off, Facts::trajectories) this solver's run
  // approximates with these parameters: "classical", "viscous", ...
  virtual std::string limit_model(const ParamValues& solver_params) const = 0;
  virtual RunRecord run(const Model& model, const RunSettings& settings) const = 0;
};

const std::vector<std::unique_ptr<Solver>>& solver_registry();
// InputError naming the known solvers when there is none of that name.
const Solver& find_solver(std::string_view name);

}  // namespace crbench
