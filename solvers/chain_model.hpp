// The model of a chain case (cases/ball_chain.hpp): n bodies on a line with a constant diagonal
// metric, no forces, and one unilateral contact f_k = contact(q_k, q_{k+1}) per pair of
// neighbours. n is a parameter (up to 1000), so the sizes are dynamic; the contact's gradient and
// Hessian come from forward AD over its two arguments (nested for the Hessian), so that a row of
// J costs two entries, not n. The dense evaluate fills the same Point as any case (for the
// solvers that work with it, at small n); sparse_terms gives Moreau–Jean the O(n) form.
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <unsupported/Eigen/AutoDiff>
#include <vector>

#include "crbench/cases/case.hpp"
#include "crbench/cases/sparse_terms.hpp"

namespace crbench {

template <class C>
class ChainModel final : public Model {
 public:
  explicit ChainModel(const ParamValues& params)
      : case_(params), info_(C::info()), params_(params), n_(case_.dof()), m_(n_ - 1) {
    info_.dof = n_;
    info_.constraints = m_;
    // One coordinate and one constraint unit for the chain, one of each per body and contact.
    if (info_.coordinates.size() == 1) {
      const CoordinateSpec each = info_.coordinates.front();
      info_.coordinates.clear();
      for (int i = 0; i < n_; ++i) {
        info_.coordinates.push_back({each.name + std::to_string(i), each.unit});
      }
    }
    if (info_.constraint_units.size() == 1) {
      info_.constraint_units.assign(static_cast<std::size_t>(m_), info_.constraint_units.front());
    }
    if (info_.constraint_names.size() == 1) {
      const std::string each = info_.constraint_names.front();
      info_.constraint_names.clear();
      for (int k = 0; k < m_; ++k) info_.constraint_names.push_back(each + std::to_string(k));
    }
  }

  const CaseInfo& info() const override { return info_; }
  const ParamValues& params() const override { return params_; }

  void evaluate(const State& x, Modes, Point& out) const override {
    out.A.setZero(n_, n_);
    for (int i = 0; i < n_; ++i) out.A(i, i) = case_.ball_mass(i);
    out.c.setZero(n_);
    out.grad_V.setZero(n_);
    out.Q.setZero(n_);
    out.f.resize(m_);
    out.J.setZero(m_, n_);
    out.f_t.setZero(m_);
    out.d.resize(m_);
    for (int k = 0; k < m_; ++k) {
      const Local l = local(x.q(k), x.q(k + 1));
      out.f(k) = l.value;
      out.J(k, k) = l.gradient(0);
      out.J(k, k + 1) = l.gradient(1);
      const Eigen::Vector2d w(x.v(k), x.v(k + 1));
      out.d(k) = w.dot(l.hessian * w);
    }
    clear_kinematic(out);
  }

  void evaluate_dual(const State& x, Modes, PointT<Dual>& out) const override {
    if (n_ > kMaxDualDof) {
      throw std::runtime_error("evaluate_dual: " + info_.name + " has " + std::to_string(n_) +
                               " degrees of freedom; derivatives are kept for at most " +
                               std::to_string(kMaxDualDof));
    }
    const int directions = 2 * n_ + 1;
    const auto constant = [directions](double value) {
      return Dual(value, DualDerivatives::Zero(directions));
    };
    out.A.resize(n_, n_);
    for (int i = 0; i < n_; ++i) {
      for (int j = 0; j < n_; ++j) out.A(i, j) = constant(i == j ? case_.ball_mass(i) : 0.0);
    }
    out.c.resize(n_);
    out.grad_V.resize(n_);
    out.Q.resize(n_);
    for (int i = 0; i < n_; ++i) {
      out.c(i) = constant(0.0);
      out.grad_V(i) = constant(0.0);
      out.Q(i) = constant(0.0);
    }
    out.f.resize(m_);
    out.J.resize(m_, n_);
    out.f_t.resize(m_);
    out.d.resize(m_);
    for (int k = 0; k < m_; ++k) {
      for (int j = 0; j < n_; ++j) out.J(k, j) = constant(0.0);
      out.f_t(k) = constant(0.0);
      const Local l = local(x.q(k), x.q(k + 1));
      out.f(k) = constant(l.value);
      out.f(k).derivatives()(k) = l.gradient(0);
      out.f(k).derivatives()(k + 1) = l.gradient(1);
      for (int side = 0; side < 2; ++side) {
        Dual& entry = out.J(k, k + side);
        entry.value() = l.gradient(side);
        entry.derivatives()(k) = l.hessian(side, 0);
        entry.derivatives()(k + 1) = l.hessian(side, 1);
      }
      // As in CaseModel: d exact, its derivatives (third derivatives of f) NaN.
      const Eigen::Vector2d w(x.v(k), x.v(k + 1));
      out.d(k) =
          Dual(w.dot(l.hessian * w),
               DualDerivatives::Constant(directions, std::numeric_limits<double>::quiet_NaN()));
    }
    clear_kinematic(out);
  }

  using Model::constraint_values;
  using Model::free_force;
  using Model::switching_values;

  void free_force(const State&, Modes, Eigen::VectorXd& out) const override { out.setZero(n_); }
  void force_jacobians(const State&, Modes, Eigen::MatrixXd& dF_dq,
                       Eigen::MatrixXd& dF_dv) const override {
    dF_dq.setZero(n_, n_);
    dF_dv.setZero(n_, n_);
  }
  void constraint_values(double, const Eigen::VectorXd& q, Eigen::VectorXd& out) const override {
    out.resize(m_);
    for (int k = 0; k < m_; ++k) out(k) = case_.template contact<double>(q(k), q(k + 1));
  }
  void kinematic_affine(double, const Eigen::VectorXd&, Eigen::MatrixXd& a,
                        Eigen::VectorXd& b) const override {
    a.resize(0, n_);
    b.resize(0);
  }
  void switching_values(const State&, Eigen::VectorXd& out) const override { out.resize(0); }
  Eigen::MatrixXd metric(const Eigen::VectorXd&) const override {
    Eigen::MatrixXd A = Eigen::MatrixXd::Zero(n_, n_);
    for (int i = 0; i < n_; ++i) A(i, i) = case_.ball_mass(i);
    return A;
  }
  double potential(double, const Eigen::VectorXd&) const override { return 0.0; }
  Eigen::VectorXd force(const State&, Modes) const override { return Eigen::VectorXd::Zero(n_); }
  State initial_state() const override { return case_.initial_state(); }
  double horizon() const override { return case_.horizon(); }
  Facts facts() const override { return case_.facts(); }
  ContactLaw contact_law(int k) const override {
    if constexpr (requires { case_.contact_law(k); }) {
      return case_.contact_law(k);
    } else {
      return {};
    }
  }

  bool sparse_terms(const State& x, SparseTerms& out) const override {
    out.mass.resize(n_);
    for (int i = 0; i < n_; ++i) out.mass(i) = case_.ball_mass(i);
    out.force.setZero(n_);
    out.f.resize(m_);
    out.f_t.setZero(m_);
    if (out.J.rows() != m_ || out.J.cols() != n_ || out.J.nonZeros() != 2 * m_) {
      // The pattern, once: row k has (k, k) and (k, k + 1).
      std::vector<Eigen::Triplet<double>> entries;
      entries.reserve(static_cast<std::size_t>(2 * m_));
      for (int k = 0; k < m_; ++k) {
        entries.emplace_back(k, k, 0.0);
        entries.emplace_back(k, k + 1, 0.0);
      }
      out.J.resize(m_, n_);
      out.J.setFromTriplets(entries.begin(), entries.end());
      out.J.makeCompressed();
    }
    double* values = out.J.valuePtr();
    for (int k = 0; k < m_; ++k) {
      const Local l = local(x.q(k), x.q(k + 1));
      out.f(k) = l.value;
      values[2 * k] = l.gradient(0);
      values[2 * k + 1] = l.gradient(1);
    }
    return true;
  }

  // The contact depends on the two neighbours' positions alone, not on t.
  bool sparse_hessians(const State& x, SparseTerms& terms) const override {
    terms.hessians.resize(static_cast<std::size_t>(4 * m_));
    for (int k = 0; k < m_; ++k) {
      const Local l = local(x.q(k), x.q(k + 1));
      std::copy(l.hessian.data(), l.hessian.data() + 4,
                terms.hessians.begin() + static_cast<std::ptrdiff_t>(4 * k));
    }
    return true;
  }

 private:
  // f, its gradient and Hessian over (left, right), by nested forward AD.
  struct Local {
    double value;
    Eigen::Vector2d gradient;
    Eigen::Matrix2d hessian;
  };
  Local local(double left, double right) const {
    using D1 = Eigen::AutoDiffScalar<Eigen::Vector2d>;
    using D2 = Eigen::AutoDiffScalar<Eigen::Matrix<D1, 2, 1>>;
    const auto seed = [](double value, int i) {
      Eigen::Matrix<D1, 2, 1> outer;
      outer(0) = D1(i == 0 ? 1.0 : 0.0, Eigen::Vector2d::Zero());
      outer(1) = D1(i == 1 ? 1.0 : 0.0, Eigen::Vector2d::Zero());
      return D2(D1(value, Eigen::Vector2d::Unit(i)), outer);
    };
    const D2 f = case_.template contact<D2>(seed(left, 0), seed(right, 1));
    Local out;
    out.value = f.value().value();
    for (int i = 0; i < 2; ++i) {
      out.gradient(i) = f.derivatives()(i).value();
      for (int j = 0; j < 2; ++j) out.hessian(i, j) = f.derivatives()(i).derivatives()(j);
    }
    return out;
  }

  template <class S>
  void clear_kinematic(PointT<S>& out) const {
    out.a.resize(0, n_);
    out.curl.resize(0, n_);
    out.g.resize(0);
    out.g_rate.resize(0);
  }

  C case_;
  CaseInfo info_;
  ParamValues params_;
  int n_;
  int m_;
};

}  // namespace crbench
