// Velocity coordinates in which the realized kinematic constraints are coordinates themselves.
//
// The realization of kinematic constraints g = a(q,t) q̇ + b(q,t) by added mass αN g²/2 and
// friction βN g²/2 (Kozlov 1992 §2–3) keeps the motion within O(1/N) of g = 0, with the
// multiplier ν = N g of order 1. In the variables (q, q̇) both ways of computing it lose digits:
// - with α = 0 the manifold g = 0 is curved wherever a turns with q (the knife edge's blade turns
//   with φ), and a linearly implicit step (Rosenbrock: one Jacobian per step) sees the curvature
//   multiplied by βN: the step size shrinks as N grows (knife-edge-incline at rtol 1e-12: 9.6e3
//   steps at N = 1e2, 1.3e6 at N = 1e12);
// - with α > 0 the mass matrix A + αN aᵀa has condition number of order N, and q̈ loses that many
//   digits (at N = 1e8 the (1,0) realization ends farther from its limit than at N = 1e7).
// In the chart y = (q, w),
//   w = (ν, q̇_F) = (N(a q̇ + b), the velocity components of the n − k free columns F),
// the manifold is the flat ν = O(1), the equations are well conditioned
// (solvers/realization_dynamics.hpp, kinematic_dynamics), and with α = 0 the stiff part is the
// linear friction term of ν̇: the standard singularly perturbed form ε ż = G(y, z) with G_z
// invertible, for which stiffly accurate methods keep their step size as ε = 1/N → 0 (Hairer &
// Wanner 1996, Solving Ordinary Differential Equations II, chapter VI). ν is a coordinate rather
// than N(a q̇ + b) recomputed from q̇, whose round-off (relative 1e-16 of |q̇|) N would multiply.
// The constrained columns C (k of them) are where a_C is best conditioned (full pivoting); as a
// turns, the integrator moves to a better chart between two steps
// (VelocityChart::relative_quality).
#pragma once

#include <Eigen/Core>
#include <vector>

#include "crbench/cases/case.hpp"

namespace crbench {

// A row joins a chart over a subset of the rows (VelocityChart::independent_rows) where its pivot
// is above a tenth of the largest: closer to the others, dividing by the difference would cost
// more digits of q̇ than N g computed from q̇ costs of ν.
inline constexpr double kIndependentRowMargin = 0.1;

class VelocityChart {
 public:
  // The chart of a k×n matrix a of full row rank whose constrained columns are a's pivot columns,
  // with ν = σ g (σ = N in the realization); with k = 0 the identity chart (w = q̇).
  static VelocityChart best_for(const Eigen::MatrixXd& a, double scale = 1.0);

  static VelocityChart identity(int n) { return best_for(Eigen::MatrixXd(0, n)); }

  // The chart of a subset of a's rows: of `candidates`, those that are independent with a margin
  // (each a pivot of a's rows above `margin` times the largest), the best conditioned first. The
  // other rows of a are not coordinates: their ν is σ(a q̇ + b) computed from q̇ (all_nu). Made for
  // rows that coincide where several constraints touch together (a block on two corners), where a
  // chart over all of them would divide by their difference.
  static VelocityChart independent_rows(const Eigen::MatrixXd& a,
                                        const std::vector<int>& candidates, double scale,
                                        double margin);

  int rows() const { return static_cast<int>(constrained_.size()); }
  // Which of a's rows the chart's ν are, in order (all of them, but for independent_rows).
  const std::vector<int>& row_indices() const { return rows_; }
  // Whether every row of a (`count` of them) is a coordinate of the chart.
  bool all_rows(int count) const { return static_cast<int>(rows_.size()) == count; }
  double scale() const { return scale_; }
  const std::vector<int>& constrained_columns() const { return constrained_; }

  // |det a_C| of this chart over that of the best chart for a: 1 at best, → 0 as it degenerates.
  double relative_quality(const Eigen::MatrixXd& a) const;

  // w = (σ(a q̇ + b), q̇_F).
  Eigen::VectorXd coordinates(const Eigen::MatrixXd& a, const Eigen::VectorXd& b,
                              const Eigen::VectorXd& v) const;

  // ν of all of a's rows at (q̇, w): the chart's from w, the others σ(a q̇ + b).
  Eigen::VectorXd all_nu(const Eigen::MatrixXd& a, const Eigen::VectorXd& b,
                         const Eigen::VectorXd& v, const Eigen::VectorXd& w) const;

  // q̇ from w: q̇_F = w_F and a_C q̇_C = ν/σ − b − a_F q̇_F.
  Eigen::VectorXd velocity(const Eigen::MatrixXd& a, const Eigen::VectorXd& b,
                           const Eigen::VectorXd& w) const;

  // (q, q̇) at the chart's point y = (q, w); a and b receive a(q,t) and b(q,t).
  State state(const Model& model, double t, const Eigen::VectorXd& y, Eigen::MatrixXd& a,
              Eigen::VectorXd& b) const;

  // y = (q, w) of a state.
  Eigen::VectorXd point(const Model& model, const State& x) const;

  // T = ∂w/∂q̇ = [σ a; E_F] (E_F: the unit rows of the free columns).
  Eigen::MatrixXd transform(const Eigen::MatrixXd& a) const;

  // ẇ = (ν̇, q̈_F), from the ν̇ of all of a's rows.
  template <class S>
  Eigen::Matrix<S, Eigen::Dynamic, 1> rate(const Eigen::Matrix<S, Eigen::Dynamic, 1>& nu_dot,
                                           const Eigen::Matrix<S, Eigen::Dynamic, 1>& qdd) const {
    Eigen::Matrix<S, Eigen::Dynamic, 1> w_dot(qdd.size());
    for (int r = 0; r < rows(); ++r) w_dot(r) = nu_dot(rows_[static_cast<std::size_t>(r)]);
    for (std::size_t i = 0; i < free_.size(); ++i) {
      w_dot(rows() + static_cast<Eigen::Index>(i)) = qdd(free_[i]);
    }
    return w_dot;
  }

 private:
  Eigen::MatrixXd block(const Eigen::MatrixXd& a) const;

  // The chart's rows of a and b.
  Eigen::MatrixXd chart_rows(const Eigen::MatrixXd& a) const;
  Eigen::VectorXd chart_rows(const Eigen::VectorXd& b) const;
  // The chart of a's rows `rows` (independent), its constrained columns their pivot columns.
  static VelocityChart of_rows(const Eigen::MatrixXd& a, std::vector<int> rows, double scale);

  std::vector<int> rows_;
  std::vector<int> constrained_, free_;
  double scale_ = 1.0;
};

}  // namespace crbench
