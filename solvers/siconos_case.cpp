#include "crbench/solvers/siconos_case.hpp"

#include <Eigen/Cholesky>
#include <cmath>
#include <string>

#include "crbench/cases/params.hpp"
#include "crbench/solvers/plugin.hpp"

namespace crbench {

std::mutex& siconos_mutex() {
  static std::mutex m;
  return m;
}

void record_kernel_failure(RunRecord& record, const std::exception& e, double t,
                           double max_wall_time) {
  if (dynamic_cast<const SiconosCase::DeadlinePassed*>(&e) != nullptr) {
    record.status = Status::wall_time_exceeded;
    record.reason = "the solve took more than max_wall_time = " + format_number(max_wall_time) +
                    " s; stopped at t = " + format_number(t) +
                    " (the last stop before the kernel call that passed it)";
  } else {
    record.status = Status::step_failure;
    record.reason = std::string(e.what()) + " (at t = " + format_number(t) + ")";
  }
}

bool ended_at_non_finite_start(RunRecord& record, const Model& model, const State& x,
                               std::chrono::steady_clock::time_point started) {
  const auto why = non_finite_start(model, x);
  if (!why) return false;
  end_before_start(record, Status::non_finite, *why, x, model, started);
  return true;
}

void SiconosCase::set_wall_time_bound(std::chrono::steady_clock::time_point started,
                                      double max_wall_time) {
  if (!std::isfinite(max_wall_time)) return;
  deadline_ = started + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(max_wall_time));
}

SiconosCase::SiconosCase(const Model& model, const State& start, double t_end, double restitution,
                         Modes modes, bool time_dependent)
    : model_(model), rule_(modes), at_(start) {
  model.modes_at(start, modes_, switching_);
  const int n = model.dof(), m = model.constraint_count();
  const double t0 = start.t;
  using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  problem_.dof = n;
  problem_.constraints = m;
  problem_.t0 = t0;
  problem_.t_end = t_end;
  problem_.q0.assign(start.q.data(), start.q.data() + n);
  problem_.v0.assign(start.v.data(), start.v.data() + n);
  problem_.restitution = restitution;
  problem_.bilateral.assign(static_cast<std::size_t>(m), 0);
  for (int k = 0; k < m; ++k)
    problem_.bilateral[static_cast<std::size_t>(k)] = model.is_bilateral(k);
  problem_.mass = [this, n](const double* q, double* out) {
    Eigen::Map<RowMajor>(out, n, n) = model_.metric(Eigen::Map<const Eigen::VectorXd>(q, n));
  };
  problem_.force = [this, n](double t, const double* q, const double* v, double* out) {
    set_state(t, q, v);
    if (++evaluations_ % 64 == 0 && std::chrono::steady_clock::now() > deadline_) {
      throw DeadlinePassed();
    }
    model_.free_force(at_, modes_, force_);
    Eigen::Map<Eigen::VectorXd>(out, n) = force_;
  };
  problem_.force_jacobians = [this, n](double t, const double* q, const double* v, double* dq,
                                       double* dv) {
    set_state(t, q, v);
    model_.force_jacobians(at_, modes_, dF_dq_, dF_dv_);
    Eigen::Map<RowMajor>(dq, n, n) = dF_dq_;
    Eigen::Map<RowMajor>(dv, n, n) = dF_dv_;
  };
  // The kernel asks each constraint's relation for its row at the same q: f and ∇f are computed
  // once per q (the last one kept), not once per constraint (ball-chain's 99 relations made this
  // O(m² n) a step).
  problem_.time_dependent = time_dependent;
  // The kernel asks each constraint's relation for its row at the same (t, q): f, ∇f and ∂f/∂t
  // are computed once per (t, q) (the last one kept), not once per constraint (ball-chain's 99
  // relations made this O(m² n) a step).
  problem_.constraint_value = [this, n](double t, const double* q, int k) {
    const Eigen::Map<const Eigen::VectorXd> position(q, n);
    if (values_at_.size() != n || values_time_ != t || values_at_ != position) {
      values_at_ = position;
      values_time_ = t;
      values_ = model_.constraint_values(t, position);
    }
    return values_(k);
  };
  const auto relation_at = [this, n](double t, const double* q) {
    const Eigen::Map<const Eigen::VectorXd> position(q, n);
    if (jacobian_at_.size() != n || jacobian_time_ != t || jacobian_at_ != position) {
      set_state(t, q, nullptr);
      model_.evaluate(at_, modes_, relation_point_);
      jacobian_at_ = position;
      jacobian_time_ = t;
      jacobian_ = relation_point_.J;
      rate_t_ = relation_point_.f_t;
    }
  };
  problem_.constraint_gradient = [this, n, relation_at](double t, const double* q, int k,
                                                        double* out) {
    relation_at(t, q);
    Eigen::Map<Eigen::RowVectorXd>(out, n) = jacobian_.row(k);
  };
  problem_.constraint_rate_t = [this, relation_at](double t, const double* q, int k) {
    relation_at(t, q);
    return rate_t_(k);
  };
  problem_.closed_forces = [this, n, m](double t, const double* q, const double* v,
                                        const char* closed, double* out) {
    set_state(t, q, v);
    model_.evaluate(at_, modes_, relation_point_);
    std::vector<int> rows;
    for (int k = 0; k < m; ++k) {
      if (closed[k] != 0) rows.push_back(k);
    }
    const auto r = static_cast<Eigen::Index>(rows.size());
    Eigen::MatrixXd J(r, n);
    Eigen::VectorXd d(r);
    for (Eigen::Index i = 0; i < r; ++i) {
      J.row(i) = relation_point_.J.row(rows[static_cast<std::size_t>(i)]);
      d(i) = relation_point_.d(rows[static_cast<std::size_t>(i)]);
    }
    // A q̈ = F + Jᵀλ and J q̈ + d = 0: (J A⁻¹ Jᵀ) λ = −(J A⁻¹ F + d).
    const Eigen::LDLT<Eigen::MatrixXd> mass(relation_point_.A);
    const Eigen::MatrixXd inverse_mass_Jt = mass.solve(J.transpose());
    const Eigen::VectorXd lambda =
        (J * inverse_mass_Jt).ldlt().solve(-(J * mass.solve(relation_point_.free_force()) + d));
    for (Eigen::Index i = 0; i < r; ++i) out[rows[static_cast<std::size_t>(i)]] = lambda(i);
  };
  // Coulomb friction: each constraint's μ and the row a_r of its Coulomb row r (a slip a_r q̇,
  // its b_r = 0: SiconosMoreauJeanSolver::refusal checks both at the start), at the kernel's q.
  const auto& coulomb = model.info().coulomb_rows;
  if (!coulomb.empty()) {
    problem_.friction.assign(static_cast<std::size_t>(m), 0.0);
    slip_row_of_.assign(static_cast<std::size_t>(m), -1);
    for (const int r : coulomb) {
      const auto k = static_cast<std::size_t>(model.kinematic_condition(r));
      problem_.friction[k] = model.friction_coefficient(r);
      slip_row_of_[k] = r;
    }
    problem_.slip_row = [this, n, t0](const double* q, int k, double* out) {
      slip_q_ = Eigen::Map<const Eigen::VectorXd>(q, n);
      model_.kinematic_affine(t0, slip_q_, slip_a_, slip_b_);
      Eigen::Map<Eigen::RowVectorXd>(out, n) =
          slip_a_.row(slip_row_of_[static_cast<std::size_t>(k)]);
    };
  }
  if (rule_ == Modes::switched) {
    problem_.switches = model.switch_count();
    problem_.switching = [this](double t, const double* q, const double* v, double* out) {
      set_state(t, q, v);
      model_.switching_values(at_, switching_);
      Eigen::Map<Eigen::VectorXd>(out, switching_.size()) = switching_;
    };
    problem_.on_switch = [this](const std::vector<int>& roots) {
      for (const int j : roots) {
        auto& mode = modes_[static_cast<std::size_t>(j)];
        mode = -mode;
      }
    };
  }
}

void SiconosCase::set_state(double t, const double* q, const double* v) {
  const int n = model_.dof();
  at_.t = t;
  at_.q = Eigen::Map<const Eigen::VectorXd>(q, n);
  if (v != nullptr) {
    at_.v = Eigen::Map<const Eigen::VectorXd>(v, n);
  } else {
    at_.v.setZero(n);
  }
  if (rule_ == Modes::of_state) model_.modes_at(at_, modes_, switching_);
}

}  // namespace crbench

namespace crbench::siconos {
namespace {

const SiconosKernelPlugin& kernel_plugin() {
  static const auto* plugin = static_cast<const SiconosKernelPlugin*>(plugin_interface(
      "siconos_kernel", linked_model_plugin("siconos_kernel"), "the Siconos kernel's solvers"));
  return *plugin;
}

}  // namespace

std::unique_ptr<MoreauJeanTimeStepping> MoreauJeanTimeStepping::create(
    const LagrangianProblem& problem, double theta, const std::vector<double>& times) {
  return kernel_plugin().moreau_jean(problem, theta, times);
}

std::unique_ptr<EventDrivenSimulation> EventDrivenSimulation::create(
    const LagrangianProblem& problem, const Tolerances& tolerances,
    const std::vector<double>& times) {
  return kernel_plugin().event_driven(problem, tolerances, times);
}

}  // namespace crbench::siconos

namespace crbench {

void require_siconos_kernel() { siconos::kernel_plugin(); }

}  // namespace crbench
