// The steppers of the smooth phases as one concept, Odeint's dense-output stepper category:
// initialize(y0, t0, dt0), do_step(system) -> (t_old, t_new), calc_state(t, y) on [t_old, t_new],
// current_time(), current_state(), step_size(). The suite's ports (Dopri5Dense, Dop853Dense,
// RosenbrockDense) and Boost.Odeint's own dense-output dopri5 (OdeintDopri5 below) satisfy it, so
// that a solver's phase takes any of them through one adapter (DensePhase), and a stepper's
// failure ends a run in one way: status step_failure, reason "integrator: <its message> at t =
// <the step's start>" (checked_step).
#pragma once

#include <Eigen/Core>
#include <boost/numeric/odeint/stepper/generation.hpp>
#include <boost/numeric/odeint/stepper/runge_kutta_dopri5.hpp>
#include <boost/numeric/odeint/util/odeint_error.hpp>
#include <concepts>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "crbench/solvers/record.hpp"

namespace crbench {

// A failure that ends a run with a status (not an input error, not a crash).
struct RunFailure {
  Status status;
  std::string reason;
};

template <class S, class System>
concept DenseStepper = requires(S& stepper, const S& done, System& system,
                                const Eigen::VectorXd& y0, Eigen::VectorXd& y, double t) {
  stepper.initialize(y0, t, t);
  { stepper.do_step(system) } -> std::same_as<std::pair<double, double>>;
  done.calc_state(t, y);
  { done.current_time() } -> std::convertible_to<double>;
  { done.step_size() } -> std::convertible_to<double>;
  done.current_state().data();
  done.current_state().size();
};

// The current state of any dense stepper as an Eigen vector (a view, no copy).
template <class S>
Eigen::Map<const Eigen::VectorXd> current_state_of(const S& stepper) {
  const auto& y = stepper.current_state();
  return {y.data(), static_cast<Eigen::Index>(y.size())};
}

// One accepted step. A stepper that finds no step size (Odeint's step_adjustment_error, which the
// ports throw too: too many rejections, a step below the resolution of t) ends the run; what the
// system throws (a RunFailure of its own) passes through.
template <class S, class System>
requires DenseStepper<S, System> std::pair<double, double> checked_step(S& stepper,
                                                                        System& system) {
  const double t = stepper.current_time();
  try {
    return stepper.do_step(system);
  } catch (const boost::numeric::odeint::odeint_error& e) {
    throw RunFailure{Status::step_failure,
                     std::string("integrator: ") + e.what() + " at t = " + format_number(t)};
  }
}

// Boost.Odeint's make_dense_output(atol, rtol, max_dt, runge_kutta_dopri5<std::vector<double>>()),
// the reference implementation of Dopri5Dense (which gives its numbers bit for bit,
// tests/test_dopri5.cpp), behind the same interface: the system is
// void (double t, const double* y, double* dydt).
class OdeintDopri5 {
 public:
  OdeintDopri5(double atol, double rtol, double max_dt)
      : stepper_(boost::numeric::odeint::make_dense_output(
            atol, rtol, max_dt, boost::numeric::odeint::runge_kutta_dopri5<Values>())) {}

  void initialize(const Eigen::VectorXd& y0, double t0, double dt0) {
    stepper_.initialize(Values(y0.data(), y0.data() + y0.size()), t0, dt0);
  }
  template <class Rhs>
  std::pair<double, double> do_step(Rhs&& rhs) {
    return stepper_.do_step([&rhs](const Values& y, Values& dy, double t) {
      dy.resize(y.size());
      rhs(t, y.data(), dy.data());
    });
  }
  void calc_state(double t, Eigen::VectorXd& y) const {
    dense_.resize(stepper_.current_state().size());
    stepper_.calc_state(t, dense_);
    y = Eigen::Map<const Eigen::VectorXd>(dense_.data(), static_cast<Eigen::Index>(dense_.size()));
  }
  double current_time() const { return stepper_.current_time(); }
  double step_size() const { return stepper_.current_time_step(); }
  const std::vector<double>& current_state() const { return stepper_.current_state(); }

 private:
  using Values = std::vector<double>;
  using Stepper = boost::numeric::odeint::dense_output_runge_kutta<
      boost::numeric::odeint::controlled_runge_kutta<
          boost::numeric::odeint::runge_kutta_dopri5<Values>>>;
  Stepper stepper_;
  mutable Values dense_;
};

// A stepper and its system as the dense output advance_to_event follows (solvers/phase.hpp):
// step() takes one checked step, after `before_step` (which may restart the stepper, e.g. in a
// better chart), point(t, y) is the stepper's dense output, at(t, x) the state there as `to_state`
// reads it from that point. The point lives in `buffer`, so that sampling allocates nothing.
template <class Stepper, class System, class ToState, class BeforeStep>
class DensePhase {
 public:
  DensePhase(Stepper& stepper, System& system, Eigen::VectorXd& buffer, ToState to_state,
             BeforeStep before_step)
      : stepper_(stepper),
        system_(system),
        buffer_(buffer),
        to_state_(std::move(to_state)),
        before_step_(std::move(before_step)) {}

  std::pair<double, double> step() {
    before_step_(stepper_);
    return checked_step(stepper_, system_);
  }
  void point(double t, Eigen::VectorXd& y) const { stepper_.calc_state(t, y); }
  Eigen::VectorXd point(double t) const {
    Eigen::VectorXd y;
    point(t, y);
    return y;
  }
  void at(double t, State& x) const {
    stepper_.calc_state(t, buffer_);
    to_state_(t, buffer_, x);
  }
  Stepper& stepper() const { return stepper_; }

 private:
  Stepper& stepper_;
  System& system_;
  Eigen::VectorXd& buffer_;
  ToState to_state_;
  BeforeStep before_step_;
};

// No hook before a step.
struct NoHookBeforeStep {
  template <class Stepper>
  void operator()(Stepper&) const {}
};

template <class Stepper, class System, class ToState, class BeforeStep = NoHookBeforeStep>
requires DenseStepper<Stepper, System> DensePhase<Stepper, System, ToState, BeforeStep> dense_phase(
    Stepper& stepper, System& system, Eigen::VectorXd& buffer, ToState to_state,
    BeforeStep before_step = {}) {
  return {stepper, system, buffer, std::move(to_state), std::move(before_step)};
}

}  // namespace crbench
