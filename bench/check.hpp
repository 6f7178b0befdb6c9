// `crbench check --case C`: the self-test of a case, for a case of one's own before it is trusted.
// Its AD derivatives against finite differences, its closed-form facts of the classical model
// against the event-driven solver, its metric positive definite along that trajectory, and each
// unilateral constraint's round-off floor at the initial state with the largest N whose depth in
// the medium stays above it.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "crbench/cases/case.hpp"
#include "crbench/cases/params.hpp"
#include "crbench/solvers/realization_dynamics.hpp"

namespace crbench {

struct CheckRequest {
  std::string case_name;
  std::vector<Assignment> case_assignments;
  // The realization's settings (--preset, --alpha, --N, ...) of the medium whose depth is set
  // against the round-off floors.
  std::vector<Assignment> realization_assignments;
  bool json = false;
};

// The largest relative difference |AD − FD|∞ / max(1, |FD|∞) of one quantity over the states.
struct DerivativeCheck {
  std::string quantity;
  double error = 0.0;
  bool ok = true;
};

struct FactCheck {
  std::string what;  // "lift-off", "lift-off of wall", "trajectory"
  std::string source;
  std::optional<double> fact;  // the closed form's number (a trajectory has none)
  std::optional<double> run;   // event-driven's (a trajectory: nothing)
  double difference = 0.0;     // |run − fact|, or the largest |q − q_exact|∞ on the grid
  double bound = 0.0;
  bool ok = false;
};

struct MetricCheck {
  std::string path;  // whose trajectory: event-driven's, or the realization's where it refuses
  long states = 0;
  double smallest_eigenvalue = 0.0;
  double smallest_at = 0.0;
  double largest_condition = 0.0;  // largest/smallest eigenvalue
  double condition_at = 0.0;
  bool ok = false;
};

struct FloorCheck {
  std::string constraint;
  double f = 0.0;
  double round_off = 0.0;  // constraint_round_off, the realization's own estimate
  double noise = 0.0;      // the measured noise of f's evaluation
  double floor = 0.0;      // the larger of the two
  bool touching = false;   // f within its round-off of 0 or below (solvers/dynamics.hpp)
  std::vector<DepthTerm> terms;
  double depth = 0.0;      // the depth estimate at the realization's N (terms non-empty)
  double largest_N = 0.0;  // where the depth falls to kDepthResolution · floor
};

// The bound on the AD derivatives' relative difference from the finite differences (whose own
// error, O(h⁴) with h = 1e-3 and round-off over h, is some 1e-10 on cases of order 1).
inline constexpr double kCheckDerivativeBound = 1e-6;

struct CheckReport {
  std::string case_name;
  std::vector<DerivativeCheck> derivatives;
  std::string derivatives_note;  // why a part was not checked (empty: all was)
  // The event-driven run's status (and its reason if not ok), or why it refused the case.
  std::string reference_status;
  bool reference_ok = false;
  std::vector<FactCheck> facts;
  std::vector<std::string> facts_not_checked;
  MetricCheck metric;
  double N = 0.0;
  std::string medium;  // "alpha = …, beta = …, gamma = …"
  // Why the realization refuses the case (empty: it runs it); then the floors have no depth.
  std::string realization_refusal;
  std::vector<FloorCheck> floors;
  bool passed() const;
};

// Every quantity the dynamics take by AD from the case's metric, potential, forces and constraints
// (∂V/∂q, ∂f/∂q, ∂f/∂t, c, d, ∂F/∂q, ∂F/∂q̇) against Richardson-extrapolated central differences
// of those functions at x: each quantity's name and its relative difference
// |AD − FD|∞ / max(1, |FD|∞).
std::vector<std::pair<std::string, double>> derivative_differences(const Model& model,
                                                                   const State& x, Modes modes);
// The dual evaluation's derivatives over (q, q̇, t), from which the realization's Jacobian is
// built, against central differences of the plain evaluation of point_entries: the largest
// relative difference over the 2n + 1 directions. std::runtime_error where the model has no dual
// evaluation (n > kMaxDualDof).
double dual_difference(const Model& model, const State& x, Modes modes);

// A, c, grad V, Q, f, J, f_t of a point as one column (d is left out: its dual derivatives are
// third derivatives of f, not computed).
template <class S>
Eigen::Matrix<S, Eigen::Dynamic, 1> point_entries(const PointT<S>& p) {
  std::vector<S> all;
  const auto add = [&](const auto& m) {
    for (Eigen::Index j = 0; j < m.cols(); ++j) {
      for (Eigen::Index i = 0; i < m.rows(); ++i) all.push_back(m(i, j));
    }
  };
  add(p.A);
  add(p.c);
  add(p.grad_V);
  add(p.Q);
  add(p.f);
  add(p.J);
  add(p.f_t);
  Eigen::Matrix<S, Eigen::Dynamic, 1> out(static_cast<Eigen::Index>(all.size()));
  for (std::size_t i = 0; i < all.size(); ++i) out(static_cast<Eigen::Index>(i)) = all[i];
  return out;
}

CheckReport check_model(const Model& model, const std::vector<Assignment>& realization_assignments);
nlohmann::ordered_json to_json(const CheckReport& report);
void print_check(const CheckReport& report, std::ostream& out);
// Exit status: 0 every check passed, 1 one failed; InputError (exit 2) for bad input.
int run_check(const CheckRequest& request, std::ostream& out);

}  // namespace crbench
