// Shared helpers for the tests: build a model, run a solver with overrides, finite differences
// (defined in tests/support.cpp, compiled once for every test program).
#pragma once

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "crbench/bench/cli.hpp"
#include "crbench/bench/convergence.hpp"
#include "crbench/bench/finite_difference.hpp"
#include "crbench/bench/impacts.hpp"
#include "crbench/cases/registry.hpp"
#include "crbench/solvers/dynamics.hpp"
#include "crbench/solvers/realization_dynamics.hpp"
#include "crbench/solvers/solver.hpp"

namespace crbench::testing {

// Least-squares slope of log y against log x (bench/convergence.hpp's fit); NaN when an entry of
// y is not positive and finite, so that a test cannot pass by losing a point of its fit.
double fitted_slope(const std::vector<double>& x, const std::vector<double>& y);

template <Case C>
std::unique_ptr<Model> model_of(const ParamValues& params = {}) {
  ParamValues p = resolve_params(C::info().params, {}, "test");
  for (const auto& [k, v] : params) p[k] = v;
  return std::make_unique<CaseModel<C>>(p);
}

// Another model seen through every virtual of Model but its sparse form (sparse_terms,
// sparse_hessians): a test derives from it and overrides what it plants or hides.
class ModelView : public Model {
 public:
  explicit ModelView(const Model& inner) : inner_(inner) {}
  const CaseInfo& info() const override { return inner_.info(); }
  const ParamValues& params() const override { return inner_.params(); }
  double slip_restitution(int r) const override { return inner_.slip_restitution(r); }
  ContactLaw contact_law(int k) const override { return inner_.contact_law(k); }
  void evaluate(const State& x, Modes modes, Point& out) const override {
    inner_.evaluate(x, modes, out);
  }
  void evaluate_dual(const State& x, Modes modes, PointT<Dual>& out) const override {
    inner_.evaluate_dual(x, modes, out);
  }
  using Model::constraint_values;
  using Model::free_force;
  using Model::switching_values;
  void free_force(const State& x, Modes modes, Eigen::VectorXd& out) const override {
    inner_.free_force(x, modes, out);
  }
  void force_jacobians(const State& x, Modes modes, Eigen::MatrixXd& dF_dq,
                       Eigen::MatrixXd& dF_dv) const override {
    inner_.force_jacobians(x, modes, dF_dq, dF_dv);
  }
  void constraint_values(double t, const Eigen::VectorXd& q, Eigen::VectorXd& out) const override {
    inner_.constraint_values(t, q, out);
  }
  void kinematic_affine(double t, const Eigen::VectorXd& q, Eigen::MatrixXd& a,
                        Eigen::VectorXd& b) const override {
    inner_.kinematic_affine(t, q, a, b);
  }
  void switching_values(const State& x, Eigen::VectorXd& out) const override {
    inner_.switching_values(x, out);
  }
  Eigen::MatrixXd metric(const Eigen::VectorXd& q) const override { return inner_.metric(q); }
  double potential(double t, const Eigen::VectorXd& q) const override {
    return inner_.potential(t, q);
  }
  Eigen::VectorXd force(const State& x, Modes modes) const override {
    return inner_.force(x, modes);
  }
  State initial_state() const override { return inner_.initial_state(); }
  double horizon() const override { return inner_.horizon(); }
  Facts facts() const override { return inner_.facts(); }

 protected:
  const Model& inner_;
};

struct SolveOptions {
  std::string solver = "event-driven";
  std::vector<Assignment> solver_params;
  double t_end = std::numeric_limits<double>::quiet_NaN();  // NaN: the case's horizon
  std::vector<double> output_times;
  std::function<void(const TrajectorySample&)> on_sample;
  double rtol = 1e-12;
  double atol = 1e-14;
};

RunRecord solve(const Model& model, const SolveOptions& o = {});

std::vector<double> grid(double t0, double t1, int count);

// Richardson-extrapolated central differences (bench/finite_difference.hpp).
using crbench::derivative;
using crbench::second_derivative;

// |a − b| ≤ rel·max(1, |b|), elementwise on the max norm.
bool close(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b, double rel);

// Each column j of jac against Richardson-extrapolated central differences of rhs in y(j), at
// relative `rel` (a CHECK per column).
void check_jacobian_columns(const Eigen::MatrixXd& jac,
                            const std::function<Eigen::VectorXd(const Eigen::VectorXd&)>& rhs,
                            const Eigen::VectorXd& y, double rel);

// The realization's AD Jacobian ∂(q̇, q̈)/∂(q, q̇) and ∂/∂t at x against Richardson-extrapolated
// central differences of acceleration<double>, column by column, at relative 1e-7.
void check_realization_jacobian(const Model& model, const State& x, Modes modes,
                                const std::vector<char>& in_medium,
                                const std::vector<char>& pushing, const Medium& medium);

// The unit step response of α z'' + β z' + γ z = 1 from rest (α > 0, γ > 0).
double step_response(double a, double b, double c, double t);

// The final velocities of a run that must end with status ok (REQUIRE).
Eigen::VectorXd final_velocity(const Model& model, const std::string& solver,
                               std::vector<Assignment> params = {});
// The penalty realization's final velocities at N = 1e4, 1e6, 1e8, in that order.
std::vector<Eigen::VectorXd> penalty_outcomes(const Model& model);

// Unit point masses (q'' = force) under penalty contacts on the linear gaps f = G q + c: contact
// k, while pressed, pushes with G_kᵀ scale_k (−f_k)^eta (continued as sign(−f)|f|^eta), at
// N = 1. Integrated apart from the suite: Boost.Odeint's Runge–Kutta–Fehlberg 7(8) on each smooth
// phase (a fixed set of pressed contacts), the phase's end found by bisection in time to 1e-15,
// until every contact is open and separating (f > 0, ḟ ≥ 0); returns the final velocities. A
// step across the kink of the force at f = 0 misleads the error estimate: without the phases a
// three-ball cradle came out wrong by 3e-6.
Eigen::VectorXd penalty_contacts_by_odeint(const Eigen::MatrixXd& G, const Eigen::VectorXd& c,
                                           const Eigen::VectorXd& scale, double eta,
                                           const Eigen::VectorXd& q0, const Eigen::VectorXd& v0);

// dk-plane: λ = g on [0, 1), −g after, so by superposition z = g (2 s(t − 1) − s(t)); its first
// zero after 1 (z < 0 before) is the predicted lift-off.
double dk_plane_lift_off(double a, double b, double c);

// The whole file as text (empty when it cannot be read).
std::string read_text_file(const std::filesystem::path& p);

// An empty temporary folder path for a test (removed if it was there).
std::filesystem::path fresh_dir(const std::string& name);

// An impact study of one row (`solver` with `set`) of bouncing-ball-siconos starting at the
// surface (h0 = 0) over the speeds v0 and the steps, window 0.5, named "test".
ImpactStudy impact_study_of(const std::string& solver, const std::vector<Assignment>& set,
                            std::vector<double> speeds, std::vector<double> steps,
                            double restitution = 0.0);

// `crbench ARGS...` in-process: its exit status and what it wrote.
struct CliResult {
  int status;
  std::string out;
  std::string err;
};
CliResult cli(std::vector<std::string> args);

// Exactly one line, ending in a newline (the form of every input error).
bool one_line(const std::string& s);

// `crbench ARGS...` is refused: exit 2 and one line that contains `expected`.
void check_refused(const std::vector<std::string>& args, const std::string& expected);

}  // namespace crbench::testing
