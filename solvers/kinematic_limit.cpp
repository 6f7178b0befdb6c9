#include "crbench/solvers/kinematic_limit.hpp"

#include <Eigen/Cholesky>
#include <chrono>
#include <cmath>

#include "crbench/solvers/dopri5.hpp"
#include "crbench/solvers/dynamics.hpp"
#include "crbench/solvers/phase.hpp"

namespace crbench {
// Named, and anonymous inside: the unity build compiles this file in one unit with other
// solvers whose helpers have the same names (Options, Run, OdeState).
namespace kinematic_limit_detail {
namespace {

using OdeState = std::vector<double>;

class KinematicLimit {
 public:
  KinematicLimit(const Model& model, const RunSettings& settings, double alpha, double beta,
                 RunRecord& record)
      : model_(model),
        settings_(settings),
        alpha_(alpha),
        beta_(beta),
        rec_(record),
        n_(model.dof()),
        k_(model.kinematic_count()),
        modes_(model.modes_at(model.initial_state())) {}

  void execute() {
    State x = model_.initial_state();
    OdeState y(static_cast<std::size_t>(2 * n_ + (alpha_ > 0.0 ? k_ : 0)), 0.0);
    for (int i = 0; i < n_; ++i) {
      y[static_cast<std::size_t>(i)] = x.q(i);
      y[static_cast<std::size_t>(n_ + i)] = x.v(i);
    }
    const double t_end = settings_.t_end, span = t_end - x.t;
    // The limit solver's bounds (solvers/solver.hpp: kMaxStepFractionSpec, kMaxStepsSpec).
    const double max_dt = settings_.solver_params.at("max_step_fraction") * span;
    const double max_steps = settings_.solver_params.at("max_steps");
    // The system on the stepper's arrays.
    auto system = [this](double t, const double* s, double* ds) {
      ++rhs_evaluations_;
      derivative(s, ds, t);
    };
    // Odeint's dense-output dopri5, step for step (solvers/dopri5.hpp).
    Dopri5Dense stepper(settings_.atol, settings_.rtol, max_dt);
    stepper.initialize(y.data(), y.size(), x.t, std::min(max_dt, 1e-6 * span));
    track(stepper.current_state(), x.t);
    const auto at = [&](double t) {
      OdeState s(y.size());
      stepper.calc_state(t, s.data());
      return s;
    };
    end_run_on_failure(rec_, [&] {
      while (stepper.current_time() < t_end) {
        if (stepper.current_time() + stepper.step_size() > t_end) {
          const OdeState current = stepper.current_state();
          stepper.initialize(current.data(), current.size(), stepper.current_time(),
                             t_end - stepper.current_time());
        }
        checked_step(stepper, system);
        ++rec_.steps;
        if (static_cast<double>(rec_.steps) > max_steps) {
          throw RunFailure{Status::too_many_steps,
                           "more than max_steps = " + format_number(max_steps) + " steps"};
        }
        if (wall_time_.exceeded(stepper.current_time())) {
          throw RunFailure{Status::wall_time_exceeded,
                           wall_time_.stop_reason(stepper.current_time())};
        }
        const double t = stepper.current_time();
        for (const double value : stepper.current_state()) {
          if (!std::isfinite(value)) {
            throw RunFailure{Status::non_finite, "non-finite state at t = " + format_number(t)};
          }
        }
        track(stepper.current_state(), t);
        emit_until(at, t, t >= t_end);
      }
    });
    rec_.final_state = state_of(stepper.current_state().data(), stepper.current_time());
    rec_.rhs_evaluations = rhs_evaluations_;
    rec_.diagnostics["max_kinematic_drift"] = drift_;
    rec_.diagnostics["member"] = alpha_ == 0.0 ? "nonholonomic (alpha = 0)"
                                 : beta_ == 0.0
                                     ? "vakonomic (beta = 0)"
                                     : "mu = beta/alpha = " + format_number(beta_ / alpha_);
  }

  double output_seconds() const { return output_.seconds(); }

 private:
  // (q, q̇) of the stepper's state array s = (q, q̇, λ).
  State state_of(const double* s, double t) const { return to_state(t, s, n_); }

  // q̈ and λ (the limit of N g) at a state; fills λ̇ when α > 0.
  struct Motion {
    Eigen::VectorXd qdd, lambda, lambda_rate;
  };
  Motion motion(const double* s, double t) {
    const State x = state_of(s, t);
    model_.evaluate(x, modes_, point_);
    Motion out;
    if (alpha_ == 0.0) {
      // λ algebraic: the nonholonomic motion, reaction aᵀν = −β λ aᵀ.
      const ConstrainedAcceleration acc = constrained_acceleration(point_, {});
      if (!acc.ok) throw RunFailure{acc.status, acc.reason};
      out.qdd = acc.qdd;
      out.lambda = -acc.kinematic_lambda / beta_;
      return out;
    }
    out.lambda.resize(k_);
    for (int r = 0; r < k_; ++r) out.lambda(r) = s[2 * n_ + r];
    const Eigen::LDLT<Eigen::MatrixXd> A_ldlt(point_.A);
    const Eigen::MatrixXd Ainv_at = A_ldlt.solve(point_.a.transpose());
    const Eigen::LDLT<Eigen::MatrixXd> S_ldlt(point_.a * Ainv_at);
    if (!(reciprocal_condition(S_ldlt) >= kActiveSetMinRcond)) {
      throw RunFailure{Status::singular_active_set,
                       "a A^-1 a^T is singular at t = " + format_number(t) +
                           ": the member is not defined there"};
    }
    const Eigen::VectorXd force =
        point_.free_force() + alpha_ * point_.curl.transpose() * out.lambda;
    const Eigen::VectorXd Ainv_force = A_ldlt.solve(force);
    // α λ̇ + β λ = (a A⁻¹ aᵀ)⁻¹ [a A⁻¹ (F + α Ωᵀλ) + g_rate]: the reaction that keeps a q̈ + g_rate =
    // 0.
    const Eigen::VectorXd push = S_ldlt.solve(point_.a * Ainv_force + point_.g_rate);
    out.lambda_rate = (push - beta_ * out.lambda) / alpha_;
    out.qdd = Ainv_force - Ainv_at * push;
    return out;
  }

  void derivative(const double* s, double* ds, double t) {
    const Motion mo = motion(s, t);
    for (int i = 0; i < n_; ++i) {
      ds[i] = s[n_ + i];
      ds[n_ + i] = mo.qdd(i);
    }
    if (alpha_ > 0.0) {
      for (int r = 0; r < k_; ++r) ds[2 * n_ + r] = mo.lambda_rate(r);
    }
  }

  void track(const OdeState& s, double t) {
    model_.evaluate(state_of(s.data(), t), modes_, point_);
    drift_ = std::max(drift_, point_.g.lpNorm<Eigen::Infinity>());
  }

  template <class At>
  void emit_until(const At& at, double t_limit, bool inclusive) {
    if (!output_.wanted()) return;
    const auto sample_at = [&](double t) {
      const OdeState s = at(t);
      TrajectorySample sample;
      sample.x = state_of(s.data(), t);
      sample.f = Eigen::VectorXd();
      sample.lambda = Eigen::VectorXd();
      sample.mu = Eigen::VectorXd();
      sample.impulse = Eigen::VectorXd();
      sample.extra = motion(s.data(), t).lambda;
      return sample;
    };
    // SampleOutput asks for the state at each grid time; the sample is built from the dense
    // output there.
    struct Grid {
      void at(double t, State& x) const { x.t = t; }
    } grid;
    output_.grid(grid, t_limit, inclusive, [&](const State& x) { return sample_at(x.t); });
  }

  const Model& model_;
  const RunSettings& settings_;
  const WallTimeBudget wall_time_{std::chrono::steady_clock::now(), settings_.max_wall_time,
                                  settings_.on_progress};
  const double alpha_, beta_;
  RunRecord& rec_;
  const int n_, k_;
  std::vector<int> modes_;
  Point point_;
  SampleOutput output_{settings_, model_.initial_state().t};
  long rhs_evaluations_ = 0;
  double drift_ = 0.0;
};

}  // namespace
}  // namespace kinematic_limit_detail

void run_kinematic_limit(const Model& model, const RunSettings& settings, double alpha, double beta,
                         RunRecord& record) {
  const auto started = std::chrono::steady_clock::now();
  record.tolerances = {{"rtol", settings.rtol}, {"atol", settings.atol}};
  record.episode_definition = "none: the case has no unilateral constraint";
  kinematic_limit_detail::KinematicLimit run(model, settings, alpha, beta, record);
  run.execute();
  finish_record(record, model, started, run.output_seconds());
}

}  // namespace crbench
