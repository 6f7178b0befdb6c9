#include "crbench/solvers/realization_dynamics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "crbench/cases/sparse_terms.hpp"
#include "crbench/solvers/dense_stepper.hpp"
#include "crbench/solvers/dynamics.hpp"
#include "crbench/solvers/lcp.hpp"

namespace crbench {

void sparse_realization_jacobian(const SparseTerms& terms, const Eigen::VectorXd& v,
                                 const std::vector<char>& pushing, const Medium& medium,
                                 Eigen::MatrixXd& jac, Eigen::VectorXd& dfdt) {
  if (medium.mass != 0.0) {
    throw std::logic_error("sparse_realization_jacobian: the added-mass medium has no Jacobian");
  }
  const Eigen::Index n = terms.mass.size();
  const auto& J = terms.J;
  jac.setZero(2 * n, 2 * n);
  jac.topRightCorner(n, n).setIdentity();
  dfdt.setZero(2 * n);
  std::size_t block = 0;  // where row k's Hessian starts in terms.hessians
  for (Eigen::Index k = 0; k < J.rows(); ++k) {
    const Eigen::Index start = J.outerIndexPtr()[k];
    const Eigen::Index p = J.outerIndexPtr()[k + 1] - start;
    const int* columns = J.innerIndexPtr() + start;
    const double* gradient = J.valuePtr() + start;
    const double* H = terms.hessians.data() + block;
    block += static_cast<std::size_t>(p * p);
    if (pushing.empty() || !pushing[static_cast<std::size_t>(k)]) continue;
    double rate = terms.f_t(k);
    for (Eigen::Index a = 0; a < p; ++a) rate += gradient[a] * v(columns[a]);
    const double c = medium.normal<double>(k, rate, terms.f(k));
    const double scale = medium.scale(k);
    const double slope = medium.stiffness_slope(k, terms.f(k));
    for (Eigen::Index b = 0; b < p; ++b) {
      // ∂c/∂q_b = s(βN (H q̇)_b + γN φ'(f) J_kb) (H symmetric; φ(f) = f, or the power law's
      // sign(f)|f|^η: Medium::normal).
      double Hv = 0.0;
      for (Eigen::Index a = 0; a < p; ++a) Hv += H[a + p * b] * v(columns[a]);
      const double dc_dq = scale * (medium.damping * Hv + slope * gradient[b]);
      for (Eigen::Index a = 0; a < p; ++a) {
        const Eigen::Index i = columns[a];
        const double mass = terms.mass(i);
        jac(n + i, columns[b]) -= (H[a + p * b] * c + gradient[a] * dc_dq) / mass;
        jac(n + i, n + columns[b]) -= medium.damping * scale * gradient[a] * gradient[b] / mass;
      }
    }
  }
}

// Out of line: its instantiations over Dual cost every translation unit that includes the header
// seven seconds at -O3 when it was inline.
namespace {

// ∂d_k/∂(q, q̇, t) of the held rows by central differences into `point`'s d (the dual evaluation
// leaves them NaN: they are third derivatives of f). Steps ε^(1/3)·max(1, |x_j|): an error of
// about ε^(2/3) relative, well below what a Rosenbrock step needs of its Jacobian.
void held_d_derivatives(const Model& model, const State& x, Modes modes,
                        const std::vector<int>& held, PointT<Dual>& point) {
  const int n = model.dof();
  const int directions = 2 * n + 1;
  const double root = std::cbrt(std::numeric_limits<double>::epsilon());
  Point plus, minus;
  State shifted = x;
  for (const int k : held) point.d(k).derivatives().setZero(directions);
  for (int j = 0; j < directions; ++j) {
    double& coordinate = j < n ? shifted.q(j) : j < 2 * n ? shifted.v(j - n) : shifted.t;
    const double original = coordinate;
    const double step = root * std::max(1.0, std::abs(original));
    coordinate = original + step;
    model.evaluate(shifted, modes, plus);
    coordinate = original - step;
    model.evaluate(shifted, modes, minus);
    coordinate = original;
    for (const int k : held) point.d(k).derivatives()(j) = (plus.d(k) - minus.d(k)) / (2.0 * step);
  }
}

}  // namespace

void realization_jacobian(const Model& model, const VelocityChart& chart, double t,
                          const Eigen::VectorXd& y, Modes modes, const std::vector<char>& in_medium,
                          const std::vector<char>& pushing, const Medium& medium,
                          RealizationJacobianWork& w, Eigen::MatrixXd& jac, Eigen::VectorXd& dfdt,
                          const std::vector<double>* row_damping, const std::vector<int>* held,
                          const FrictionCone* cone) {
  const bool holds = held != nullptr && !held->empty();
  if (medium.mass != 0.0) {
    throw std::logic_error(
        "realization_jacobian: the added-mass medium (alpha > 0) has no AD Jacobian");
  }
  const int n = model.dof();
  const int k = chart.rows();
  const int rows = model.kinematic_count();
  const int directions = 2 * n + 1;
  PointT<Dual>& work = w.point;
  jac.resize(2 * n, 2 * n);
  dfdt.resize(2 * n);
  if (rows == 0) {
    // The identity chart, y = (q, q̇): ∂ẏ/∂y = [0 I; ∂q̈/∂q ∂q̈/∂q̇], with nothing carried over and
    // nothing allocated once the workspace has its sizes.
    w.x.t = t;
    w.x.q = y.head(n);
    w.x.v = y.tail(n);
    model.evaluate_dual(w.x, modes, work);
    if (holds) held_d_derivatives(model, w.x, modes, *held, work);
    w.v.resize(n);
    for (int i = 0; i < n; ++i) {
      w.v(i).value() = w.x.v(i);
      w.v(i).derivatives().setZero(directions);
      w.v(i).derivatives()(n + i) = 1.0;
    }
    acceleration<Dual>(work, w.v, in_medium, pushing, medium, w.acceleration, w.qdd, nullptr, held);
    jac.topRows(n).setZero();
    jac.block(0, n, n, n).setIdentity();
    dfdt.head(n).setZero();
    for (int i = 0; i < n; ++i) {
      jac.row(n + i) = w.qdd(i).derivatives().head(2 * n).transpose();
      dfdt(n + i) = w.qdd(i).derivatives()(2 * n);
    }
    return;
  }
  if (holds) {
    throw std::logic_error(
        "realization_jacobian: held ideal constraints beside kinematic rows are not computed");
  }
  Eigen::MatrixXd a(k, n);
  Eigen::VectorXd b;
  const State x = chart.state(model, t, y, a, b);
  model.evaluate_dual(x, modes, work);

  Eigen::MatrixXd C = Eigen::MatrixXd::Identity(directions, directions);
  Eigen::MatrixXd g_by_qt = Eigen::MatrixXd::Zero(n, directions);
  const std::vector<int>& chart_rows = chart.row_indices();
  for (int r = 0; r < k; ++r) {
    const int row = chart_rows[static_cast<std::size_t>(r)];
    g_by_qt.row(r).head(n) = chart.scale() * work.g(row).derivatives().head(n).transpose();
    g_by_qt(r, 2 * n) = chart.scale() * work.g(row).derivatives()(2 * n);
  }
  const Eigen::PartialPivLU<Eigen::MatrixXd> T(chart.transform(a));
  C.middleRows(n, n) = -T.solve(g_by_qt);
  C.block(n, n, n, n) = T.inverse();
  const Eigen::MatrixXd Ct = C.transpose();
  const auto carry = [&Ct](auto& m) {
    for (Eigen::Index j = 0; j < m.cols(); ++j) {
      for (Eigen::Index i = 0; i < m.rows(); ++i) {
        m(i, j).derivatives() = DualDerivatives(Ct * m(i, j).derivatives());
      }
    }
  };
  carry(work.A);
  carry(work.c);
  carry(work.grad_V);
  carry(work.Q);
  carry(work.f);
  carry(work.J);
  carry(work.f_t);
  carry(work.d);
  carry(work.a);
  carry(work.g_rate);
  carry(work.curl);
  Eigen::Matrix<Dual, Eigen::Dynamic, 1> v(n), qdd, nu_dot;
  for (int i = 0; i < n; ++i) v(i) = Dual(x.v(i), DualDerivatives(C.row(n + i).transpose()));
  // ν of every row: the chart's are coordinates; the rows it leaves out have N g (carried too).
  Eigen::Matrix<Dual, Eigen::Dynamic, 1> nu(rows);
  if (k < rows) {
    carry(work.g);
    for (int r = 0; r < rows; ++r) nu(r) = work.g(r) * chart.scale();
  }
  for (int r = 0; r < k; ++r) {
    nu(chart_rows[static_cast<std::size_t>(r)]) =
        Dual(y(n + r), DualDerivatives::Unit(directions, n + r));
  }
  work.Q += medium_force<Dual>(work, v, pushing, medium);
  kinematic_dynamics<Dual>(work, nu, chart.scale(), medium, qdd, nu_dot, row_damping, cone, &v);
  const auto w_dot = chart.rate<Dual>(nu_dot, qdd);
  jac.topRows(n) = C.block(n, 0, n, 2 * n);
  dfdt.head(n) = C.block(n, 2 * n, n, 1);
  for (int i = 0; i < n; ++i) {
    jac.row(n + i) = w_dot(i).derivatives().head(2 * n).transpose();
    dfdt(n + i) = w_dot(i).derivatives()(2 * n);
  }
}

Point with_kinematic_rows(const Point& p, const std::vector<int>& rows) {
  Point out = p;
  out.a = p.a(rows, Eigen::all);
  out.g = p.g(rows);
  out.g_rate = p.g_rate(rows);
  out.curl = p.curl(rows, Eigen::all);
  return out;
}

namespace {

// The depth term of constraint k for an approach at `rate` < 0 or a load λ > 0 (depth_terms).
DepthTerm approach_term(double rate, double W, double s, double eta, double alpha, double beta,
                        double gamma, double span) {
  if (gamma > 0.0) {
    const double power = 1.0 / (eta + 1.0);
    return {std::pow((eta + 1.0) * rate * rate / (2.0 * W * s * gamma), power), power, "approach"};
  }
  if (beta > 0.0) return {-rate / (W * s * beta), 1.0, "approach"};
  return {-rate * span / (W * s * alpha), 1.0, "approach"};
}

DepthTerm load_term(double load, double s, double eta, double alpha, double beta, double gamma,
                    double span) {
  if (gamma > 0.0) return {std::pow(load / (s * gamma), 1.0 / eta), 1.0 / eta, "load"};
  if (beta > 0.0) return {load * span / (s * beta), 1.0, "load"};
  return {load * span * span / (2.0 * s * alpha), 1.0, "load"};
}

}  // namespace

std::vector<std::vector<DepthTerm>> depth_terms(const Point& p, const State& x,
                                                const std::vector<int>& unilateral, double alpha,
                                                double beta, double gamma,
                                                const std::vector<ContactLaw>& laws, double span) {
  std::vector<std::vector<DepthTerm>> terms(static_cast<std::size_t>(p.f.size()));
  if (!(alpha > 0.0 || beta > 0.0 || gamma > 0.0)) return terms;
  std::vector<int> touching;
  for (const int k : unilateral) {
    if (touches(p, x, k)) touching.push_back(k);
  }
  if (touching.empty()) return terms;
  // Kinematic rows that coincide (a block on its two corners near θ = 0) leave no projection:
  // the estimate then takes an independent subset of them, as the realization's chart does.
  Point reduced;
  const Point* held = &p;
  Delassus D;
  try {
    D = delassus(p, touching);
  } catch (const RunFailure&) {
    std::vector<int> rows(static_cast<std::size_t>(p.a.rows()));
    std::iota(rows.begin(), rows.end(), 0);
    reduced = with_kinematic_rows(
        p, VelocityChart::independent_rows(p.a, rows, 1.0, kIndependentRowMargin).row_indices());
    held = &reduced;
    D = delassus(reduced, touching);
  }
  const ConstrainedAcceleration free = constrained_acceleration(*held, {});
  Eigen::VectorXd free_fdd(static_cast<Eigen::Index>(touching.size()));
  for (std::size_t r = 0; r < touching.size(); ++r) {
    const int k = touching[r];
    free_fdd(static_cast<Eigen::Index>(r)) = p.J.row(k).dot(free.qdd) + p.d(k);
  }
  // Any size: beyond the enumeration's, solve_lcp takes Lemke's or the banded method.
  std::optional<LcpSolution> loads;
  if (free.ok) loads = solve_lcp(D.W, free_fdd);
  const Eigen::VectorXd rate = p.constraint_rate(x.v);
  for (std::size_t r = 0; r < touching.size(); ++r) {
    const int k = touching[r];
    const auto i = static_cast<Eigen::Index>(r);
    const double W = D.W(i, i);
    if (!(W > 0.0)) continue;
    const ContactLaw law = laws.empty() ? ContactLaw{} : laws[static_cast<std::size_t>(k)];
    auto& out = terms[static_cast<std::size_t>(k)];
    if (rate(k) < 0.0) {
      out.push_back(approach_term(rate(k), W, law.scale, law.exponent, alpha, beta, gamma, span));
    }
    if (loads && loads->x(i) > 0.0) {
      out.push_back(load_term(loads->x(i), law.scale, law.exponent, alpha, beta, gamma, span));
    }
  }
  return terms;
}

double depth_at(const std::vector<DepthTerm>& terms, double N) {
  double depth = 0.0;
  for (const DepthTerm& t : terms) depth = std::max(depth, t.coefficient * std::pow(N, -t.power));
  return depth;
}

double largest_N_above(const std::vector<DepthTerm>& terms, double depth) {
  if (terms.empty()) return std::numeric_limits<double>::quiet_NaN();
  if (!(depth > 0.0)) return std::numeric_limits<double>::infinity();
  double N = 0.0;
  for (const DepthTerm& t : terms) N = std::max(N, std::pow(t.coefficient / depth, 1.0 / t.power));
  return N;
}

}  // namespace crbench
