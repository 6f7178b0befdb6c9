// A crbench case as the Siconos bridge's LagrangianProblem (solvers/siconos_bridge.hpp), shared by
// the solvers backed by the Siconos kernel: M = A(q); F = Q − ∂V/∂q − c and its AD Jacobians; f,
// ∇f (and ∂f/∂t where f depends on t) of the unilateral constraints. The modes of a piecewise force
// are either those of the state each evaluation is at (Modes::of_state: a time-stepping scheme,
// which steps across a switch) or a discrete state flipped at the roots of the switching functions
// where the event-driven scheme stops (Modes::switched, as crbench's event-driven: nothing is
// integrated across a discontinuity).
#pragma once

#include <Eigen/Core>
#include <chrono>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "crbench/solvers/siconos_bridge.hpp"
#include "crbench/solvers/solver.hpp"

namespace crbench {

// The Siconos kernel keeps global state (object counters, the plugin registry, EventDriven's
// event tolerance, LsodarOSI's step counters) that is not guarded for threads: one Siconos solve
// at a time in a process (a study's other points still run beside it on the other threads).
std::mutex& siconos_mutex();

// Loads the plugin siconos_kernel (solvers/plugin.hpp) if it is not yet: an InputError naming its
// file when it cannot be, so that a solve fails before its record begins.
void require_siconos_kernel();

// The status of a run whose kernel call threw `e` at the solver's time t: wall_time_exceeded for
// SiconosCase::DeadlinePassed, step_failure with the kernel's message otherwise.
void record_kernel_failure(RunRecord& record, const std::exception& e, double t,
                           double max_wall_time);

// Ends the record with status non_finite and returns true when the kernel cannot start from x
// (non_finite_start: Debian's kernel keeps its assertions and aborts the process on a NaN gap).
bool ended_at_non_finite_start(RunRecord& record, const Model& model, const State& x,
                               std::chrono::steady_clock::time_point started);

class SiconosCase {
 public:
  enum class Modes { of_state, switched };
  // `time_dependent`: the relations are rheonomous (constraints_depend_on_time).
  SiconosCase(const Model& model, const State& start, double t_end, double restitution, Modes modes,
              bool time_dependent);
  SiconosCase(const SiconosCase&) = delete;
  SiconosCase& operator=(const SiconosCase&) = delete;

  const siconos::LagrangianProblem& problem() const { return problem_; }
  // Liu, Zhao & Brogliato's law at the impacts (LagrangianProblem::multiple_impact) in place of
  // Newton's; `restitution` becomes the energetic one.
  void use_multiple_impact(const siconos::LagrangianProblem::MultipleImpactLaw& law) {
    problem_.multiple_impact = law;
  }
  // Evaluations of the case's forces by the kernel.
  long force_evaluations() const { return evaluations_; }
  // Past the deadline of a solve that started at `started` and may take `max_wall_time` seconds
  // (none when that is infinite), checked at every 64th force evaluation, the next evaluation
  // throws DeadlinePassed: the kernel's integrators (DLSODAR) do not return between two stops,
  // and a stop may be far away.
  struct DeadlinePassed : std::runtime_error {
    DeadlinePassed() : std::runtime_error("the wall-time bound passed inside a kernel call") {}
  };
  void set_wall_time_bound(std::chrono::steady_clock::time_point started, double max_wall_time);

  // The modes the forces are evaluated with (Modes::switched).
  const std::vector<int>& modes() const { return modes_; }

 private:
  void set_state(double t, const double* q, const double* v);

  const Model& model_;
  Modes rule_;
  siconos::LagrangianProblem problem_;
  State at_;
  std::vector<int> modes_;
  Eigen::VectorXd switching_, force_;
  Eigen::MatrixXd dF_dq_, dF_dv_;
  Point relation_point_;
  Eigen::VectorXd values_at_, values_, jacobian_at_, rate_t_;
  double values_time_ = 0.0, jacobian_time_ = 0.0;
  Eigen::MatrixXd jacobian_;
  std::vector<int> slip_row_of_;  // each constraint's Coulomb row (−1: none)
  // The slip rows' evaluation buffers (called per contact and step by the kernel).
  Eigen::VectorXd slip_q_, slip_b_;
  Eigen::MatrixXd slip_a_;
  long evaluations_ = 0;
  std::chrono::steady_clock::time_point deadline_ = std::chrono::steady_clock::time_point::max();
};

}  // namespace crbench
