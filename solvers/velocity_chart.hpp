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
#include <Eigen/LU>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "crbench/cases/case.hpp"

namespace crbench {

class VelocityChart {
 public:
  // The chart of a k×n matrix a of full row rank whose constrained columns are a's pivot columns,
  // with ν = σ g (σ = N in the realization); with k = 0 the identity chart (w = q̇).
  static VelocityChart best_for(const Eigen::MatrixXd& a, double scale = 1.0) {
    VelocityChart chart;
    chart.scale_ = scale;
    const auto n = static_cast<int>(a.cols());
    const auto k = static_cast<int>(a.rows());
    std::vector<char> constrained(static_cast<std::size_t>(n), 0);
    if (k > 0) {
      const Eigen::FullPivLU<Eigen::MatrixXd> lu(a);
      if (lu.rank() < k) {
        throw std::runtime_error("the kinematic constraints' rows a(q,t) are linearly dependent");
      }
      for (int r = 0; r < k; ++r)
        constrained[static_cast<std::size_t>(lu.permutationQ().indices()(r))] = 1;
    }
    for (int j = 0; j < n; ++j) {
      (constrained[static_cast<std::size_t>(j)] ? chart.constrained_ : chart.free_).push_back(j);
    }
    return chart;
  }

  static VelocityChart identity(int n) { return best_for(Eigen::MatrixXd(0, n)); }

  int rows() const { return static_cast<int>(constrained_.size()); }
  double scale() const { return scale_; }
  const std::vector<int>& constrained_columns() const { return constrained_; }

  // |det a_C| of this chart over that of the best chart for a: 1 at best, → 0 as it degenerates.
  double relative_quality(const Eigen::MatrixXd& a) const {
    if (constrained_.empty()) return 1.0;
    const double best = std::abs(best_for(a).block(a).determinant());
    return best > 0.0 ? std::abs(block(a).determinant()) / best : 0.0;
  }

  // w = (σ(a q̇ + b), q̇_F).
  Eigen::VectorXd coordinates(const Eigen::MatrixXd& a, const Eigen::VectorXd& b,
                              const Eigen::VectorXd& v) const {
    Eigen::VectorXd w(v.size());
    w.head(rows()) = scale_ * (a * v + b);
    for (std::size_t i = 0; i < free_.size(); ++i)
      w(rows() + static_cast<Eigen::Index>(i)) = v(free_[i]);
    return w;
  }

  // q̇ from w: q̇_F = w_F and a_C q̇_C = ν/σ − b − a_F q̇_F.
  Eigen::VectorXd velocity(const Eigen::MatrixXd& a, const Eigen::VectorXd& b,
                           const Eigen::VectorXd& w) const {
    Eigen::VectorXd v = Eigen::VectorXd::Zero(w.size());
    for (std::size_t i = 0; i < free_.size(); ++i)
      v(free_[i]) = w(rows() + static_cast<Eigen::Index>(i));
    if (rows() == 0) return v;
    const Eigen::VectorXd rhs = w.head(rows()) / scale_ - b - a * v;
    const Eigen::VectorXd v_c = block(a).partialPivLu().solve(rhs);
    for (int r = 0; r < rows(); ++r) v(constrained_[static_cast<std::size_t>(r)]) = v_c(r);
    return v;
  }

  // (q, q̇) at the chart's point y = (q, w); a and b receive a(q,t) and b(q,t).
  State state(const Model& model, double t, const Eigen::VectorXd& y, Eigen::MatrixXd& a,
              Eigen::VectorXd& b) const {
    const Eigen::Index n = y.size() / 2;
    State x;
    x.t = t;
    x.q = y.head(n);
    if (rows() == 0) {
      x.v = y.tail(n);
      return x;
    }
    model.kinematic_affine(t, x.q, a, b);
    x.v = velocity(a, b, y.tail(n));
    return x;
  }

  // y = (q, w) of a state.
  Eigen::VectorXd point(const Model& model, const State& x) const {
    const Eigen::Index n = x.q.size();
    Eigen::VectorXd y(2 * n);
    y.head(n) = x.q;
    if (rows() == 0) {
      y.tail(n) = x.v;
      return y;
    }
    Eigen::MatrixXd a;
    Eigen::VectorXd b;
    model.kinematic_affine(x.t, x.q, a, b);
    y.tail(n) = coordinates(a, b, x.v);
    return y;
  }

  // T = ∂w/∂q̇ = [σ a; E_F] (E_F: the unit rows of the free columns).
  Eigen::MatrixXd transform(const Eigen::MatrixXd& a) const {
    const Eigen::Index n = a.cols();
    Eigen::MatrixXd T = Eigen::MatrixXd::Zero(n, n);
    T.topRows(rows()) = scale_ * a;
    for (std::size_t i = 0; i < free_.size(); ++i)
      T(rows() + static_cast<Eigen::Index>(i), free_[i]) = 1.0;
    return T;
  }

  // ẇ = (ν̇, q̈_F).
  template <class S>
  Eigen::Matrix<S, Eigen::Dynamic, 1> rate(const Eigen::Matrix<S, Eigen::Dynamic, 1>& nu_dot,
                                           const Eigen::Matrix<S, Eigen::Dynamic, 1>& qdd) const {
    Eigen::Matrix<S, Eigen::Dynamic, 1> w_dot(qdd.size());
    w_dot.head(rows()) = nu_dot;
    for (std::size_t i = 0; i < free_.size(); ++i) {
      w_dot(rows() + static_cast<Eigen::Index>(i)) = qdd(free_[i]);
    }
    return w_dot;
  }

 private:
  Eigen::MatrixXd block(const Eigen::MatrixXd& a) const {
    Eigen::MatrixXd a_c(a.rows(), rows());
    for (int r = 0; r < rows(); ++r) a_c.col(r) = a.col(constrained_[static_cast<std::size_t>(r)]);
    return a_c;
  }

  std::vector<int> constrained_, free_;
  double scale_ = 1.0;
};

}  // namespace crbench
