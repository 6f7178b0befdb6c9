#include "crbench/solvers/lcp.hpp"

#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <algorithm>
#include <memory>
#include <stdexcept>
#include <vector>

#include "crbench/solvers/dynamics.hpp"
#include "crbench/solvers/lcp_siconos.hpp"
#include "crbench/solvers/plugin.hpp"

namespace crbench {

LcpMethod lcp_method(const std::string& name) {
  if (name == "enumeration") return LcpMethod::enumeration;
  if (name == "lemke") return LcpMethod::lemke;
  if (name == "pgs") return LcpMethod::pgs;
  if (name == "banded") return LcpMethod::banded;
  if (name == "auto") return LcpMethod::automatic;
  throw std::invalid_argument("lcp: unknown method '" + name + "'");
}

namespace {

std::optional<LcpSolution> enumerate(const Eigen::MatrixXd& M, const Eigen::VectorXd& b,
                                     double slack) {
  const int m = static_cast<int>(b.size());
  if (m > kLcpMaxSize) return std::nullopt;
  long examined = 0;
  // Subsets in order of increasing size, so the answer with fewest active entries wins ties.
  std::vector<unsigned> sets(1u << m);
  for (unsigned s = 0; s < sets.size(); ++s) sets[s] = s;
  std::stable_sort(sets.begin(), sets.end(), [](unsigned a, unsigned c) {
    return __builtin_popcount(a) < __builtin_popcount(c);
  });
  for (const unsigned set : sets) {
    ++examined;
    std::vector<int> idx;
    for (int i = 0; i < m; ++i) {
      if (set & (1u << i)) idx.push_back(i);
    }
    Eigen::VectorXd x = Eigen::VectorXd::Zero(m);
    if (!idx.empty()) {
      const Eigen::Index k = static_cast<Eigen::Index>(idx.size());
      Eigen::MatrixXd Mk(k, k);
      Eigen::VectorXd bk(k);
      for (Eigen::Index r = 0; r < k; ++r) {
        bk(r) = b(idx[static_cast<std::size_t>(r)]);
        for (Eigen::Index c = 0; c < k; ++c) {
          Mk(r, c) = M(idx[static_cast<std::size_t>(r)], idx[static_cast<std::size_t>(c)]);
        }
      }
      const Eigen::LDLT<Eigen::MatrixXd> ldlt(Mk);
      if (!(reciprocal_condition(ldlt) > 1e-14)) continue;
      const Eigen::VectorXd xk = ldlt.solve(-bk);
      for (Eigen::Index r = 0; r < k; ++r) x(idx[static_cast<std::size_t>(r)]) = xk(r);
    }
    Eigen::VectorXd w = M * x + b;
    bool feasible = true;
    for (int i = 0; i < m && feasible; ++i) {
      const bool in_set = (set & (1u << i)) != 0;
      feasible = in_set ? x(i) >= -slack : w(i) >= -slack;
    }
    if (!feasible) continue;
    for (int i = 0; i < m; ++i) {
      if (set & (1u << i)) {
        w(i) = 0.0;
        x(i) = std::max(x(i), 0.0);
      }
    }
    return LcpSolution{x, w, examined};
  }
  return std::nullopt;
}

// The acceptance every method's answer passes, in velocity units (those of b): x ≥ 0, w ≥ 0
// within the slack, and complementarity: where w exceeds the slack, x may move the velocities by
// no more than the slack (M_ii x_i).
template <class Matrix>
bool acceptable(const Matrix& M, const Eigen::VectorXd& x, const Eigen::VectorXd& w, double slack) {
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    if (w(i) < -slack || (w(i) > slack && M(i, i) * x(i) > slack)) return false;
  }
  return true;
}

// Siconos numerics (a C library, the plugin siconos_numerics: solvers/lcp_siconos.cpp).
std::optional<LcpSolution> siconos_lcp(const Eigen::MatrixXd& M, const Eigen::VectorXd& b,
                                       double slack, const LcpOptions& options) {
  const int m = static_cast<int>(b.size());
  const bool lemke = options.method == LcpMethod::lemke;
  static const auto* plugin = static_cast<const SiconosLcpPlugin*>(plugin_interface(
      "siconos_numerics", linked_model_plugin("siconos_numerics"), "the LCP of Siconos numerics"));
  // Lemke: enough pivots for any nondegenerate problem of this size (it visits each basis once).
  const int max_iterations = lemke ? std::max(1000, 20 * m) : options.pgs_max_iterations;
  Eigen::VectorXd x, w;
  int iterations = 0;
  const int info =
      plugin->solve(M, b, lemke, max_iterations, options.pgs_tolerance, x, w, iterations);
  if (info != 0 || !x.allFinite()) return std::nullopt;
  // The enumeration's acceptance, in velocity units.
  x = x.cwiseMax(0.0);
  w = M * x + b;
  if (!acceptable(M, x, w, slack)) return std::nullopt;
  return LcpSolution{x, w, iterations};
}

// Whether (r, u) satisfies the 2-dimensional frictional contact law within `slack` (velocity
// units: a reaction counts times its diagonal entry of M).
bool acceptable_friction(const Eigen::MatrixXd& M, const Eigen::VectorXd& mu,
                         const Eigen::VectorXd& r, const Eigen::VectorXd& u, double slack) {
  for (Eigen::Index k = 0; k < mu.size(); ++k) {
    const Eigen::Index n = 2 * k, t = n + 1;
    const double normal = M(n, n) * r(n), excess = M(t, t) * (std::abs(r(t)) - mu(k) * r(n));
    if (u(n) < -slack || normal < -slack || (u(n) > slack && normal > slack)) return false;
    if (excess > slack) return false;
    // A sliding contact's friction is on the cone's edge, against the slip.
    if (std::abs(u(t)) > slack &&
        M(t, t) * std::abs(r(t) + std::copysign(mu(k) * r(n), u(t))) > slack) {
      return false;
    }
  }
  return true;
}

// The reactions of r's modes solved again from their linear equations: per contact, free
// (r = 0), sticking (u_N = u_T = 0, |r_T| strictly inside the cone) or sliding (u_N = 0, r_T =
// −μ r_N sign(u_T)). A pivoting method leaves round-off in r that the equations do not: a resting
// contact's normal velocity after the step is then 0 to the last bit more often, and its gap does
// not creep open. nullopt where the equations are singular.
std::optional<Eigen::VectorXd> polished(const Eigen::MatrixXd& M, const Eigen::VectorXd& q,
                                        const Eigen::VectorXd& mu, const Eigen::VectorXd& r,
                                        double slack) {
  const Eigen::Index size = q.size();
  Eigen::MatrixXd E = Eigen::MatrixXd::Zero(size, size);
  Eigen::VectorXd rhs = Eigen::VectorXd::Zero(size);
  for (Eigen::Index k = 0; k < mu.size(); ++k) {
    const Eigen::Index n = 2 * k, t = n + 1;
    if (!(M(n, n) * r(n) > slack)) {
      E(n, n) = 1.0;
      E(t, t) = 1.0;
      continue;
    }
    E.row(n) = M.row(n);
    rhs(n) = -q(n);
    if (std::abs(r(t)) < (1.0 - 1e-9) * mu(k) * r(n)) {
      E.row(t) = M.row(t);
      rhs(t) = -q(t);
    } else {
      E(t, t) = 1.0;
      E(t, n) = std::copysign(mu(k), -r(t));  // r_T + s μ r_N = 0, s = sign(u_T) = −sign(r_T)
    }
  }
  const Eigen::FullPivLU<Eigen::MatrixXd> lu(E);
  if (!lu.isInvertible()) return std::nullopt;
  return Eigen::VectorXd(lu.solve(rhs));
}

// w = M x + b for a banded M.
void banded_residual(const BandedSymmetric& M, const Eigen::VectorXd& x, const Eigen::VectorXd& b,
                     Eigen::VectorXd& w) {
  const Eigen::Index m = M.size();
  w = b;
  for (Eigen::Index i = 0; i < m; ++i) {
    w(i) += M.lower(i, 0) * x(i);
    for (Eigen::Index d = 1; d <= M.bandwidth && d <= i; ++d) {
      w(i) += M.lower(i, d) * x(i - d);
      w(i - d) += M.lower(i, d) * x(i);
    }
  }
}

// Solves M_SS x_S = r for the index set S (sorted) by a banded LDLᵀ without pivoting: S's
// principal submatrix keeps M's bandwidth in S's own numbering (|S_a − S_c| ≤ p implies
// |a − c| ≤ p). False when a pivot is not positive or the pivots' ratio is below 1e-14 (the
// subsystem is singular or ill-conditioned: M is not positive definite on S).
bool solve_principal(const BandedSymmetric& M, const std::vector<Eigen::Index>& S,
                     Eigen::VectorXd& r, Eigen::MatrixXd& L, Eigen::VectorXd& D) {
  const Eigen::Index k = static_cast<Eigen::Index>(S.size());
  const int p = M.bandwidth;
  L.setZero(k, p + 1);  // L(a, e) = L_{a, a−e}, e ≥ 1
  D.resize(k);
  for (Eigen::Index a = 0; a < k; ++a) {
    for (Eigen::Index e = std::min<Eigen::Index>(p, a); e >= 1; --e) {
      const Eigen::Index c = a - e;
      // S is sorted: S_a > S_c, and the entry is in the stored lower band or zero.
      const Eigen::Index distance = S[static_cast<std::size_t>(a)] - S[static_cast<std::size_t>(c)];
      double value = distance <= p ? M.lower(S[static_cast<std::size_t>(a)], distance) : 0.0;
      // Σ_l L_al L_cl D_l over the columns l < c both rows reach.
      for (Eigen::Index l = std::max<Eigen::Index>(0, a - p); l < c; ++l) {
        value -= L(a, a - l) * L(c, c - l) * D(l);
      }
      L(a, e) = value / D(c);
    }
    double pivot = M.lower(S[static_cast<std::size_t>(a)], 0);
    for (Eigen::Index l = std::max<Eigen::Index>(0, a - p); l < a; ++l) {
      pivot -= L(a, a - l) * L(a, a - l) * D(l);
    }
    if (!(pivot > 0.0)) return false;
    D(a) = pivot;
  }
  if (k > 0 && !(D.minCoeff() >= 1e-14 * D.maxCoeff())) return false;
  for (Eigen::Index a = 0; a < k; ++a) {  // L y = r
    for (Eigen::Index e = 1; e <= p && e <= a; ++e) r(a) -= L(a, e) * r(a - e);
  }
  for (Eigen::Index a = 0; a < k; ++a) r(a) /= D(a);
  for (Eigen::Index a = k - 1; a >= 0; --a) {  // Lᵀ x = y
    for (Eigen::Index e = 1; e <= p && a + e < k; ++e) r(a) -= L(a + e, e) * r(a + e);
  }
  return true;
}

std::optional<LcpSolution> banded_lcp(const BandedSymmetric& M, const Eigen::VectorXd& b,
                                      double slack) {
  const Eigen::Index m = M.size();
  // Júdice & Pires's block principal pivoting: the basic set F has w = 0, its complement G has
  // x = 0. An infeasible row (x_i < 0 in F, w_i < 0 in G) changes sides; all of them at once
  // while their number keeps falling or within kTries iterations of its last fall, then only the
  // largest (Murty's rule, finite for a P-matrix). F starts as the rows where the unconstrained
  // x = −M⁻¹b is positive: from F = {i : b_i < 0} an impact at the end of a touching chain
  // would spread one row per iteration (m iterations), where this start needs one.
  constexpr int kTries = 3;
  std::vector<Eigen::Index> S(static_cast<std::size_t>(m)), infeasible;
  Eigen::VectorXd x(m), w(m), r = -b, D;
  Eigen::MatrixXd L;
  for (Eigen::Index i = 0; i < m; ++i) S[static_cast<std::size_t>(i)] = i;
  std::vector<char> basic(static_cast<std::size_t>(m));
  // The first iteration's solve is this one when every row starts basic.
  bool solved = solve_principal(M, S, r, L, D);
  if (solved) {
    for (Eigen::Index i = 0; i < m; ++i) {
      basic[static_cast<std::size_t>(i)] = r(i) > 0.0;
      solved = solved && r(i) > 0.0;
    }
  } else {
    for (Eigen::Index i = 0; i < m; ++i) basic[static_cast<std::size_t>(i)] = b(i) < 0.0;
  }
  Eigen::Index fewest = m + 1;
  int tries = kTries;
  const long max_iterations = 10 * static_cast<long>(m) + 100;
  for (long iteration = 1; iteration <= max_iterations; ++iteration) {
    if (!solved) {
      S.clear();
      for (Eigen::Index i = 0; i < m; ++i) {
        if (basic[static_cast<std::size_t>(i)]) S.push_back(i);
      }
      r.resize(static_cast<Eigen::Index>(S.size()));
      for (std::size_t a = 0; a < S.size(); ++a) r(static_cast<Eigen::Index>(a)) = -b(S[a]);
      if (!solve_principal(M, S, r, L, D)) return std::nullopt;
    }
    solved = false;
    x.setZero();
    for (std::size_t a = 0; a < S.size(); ++a) x(S[a]) = r(static_cast<Eigen::Index>(a));
    banded_residual(M, x, b, w);
    // Infeasible beyond the slack, in velocity units for both sides (M_ii x_i for x).
    infeasible.clear();
    for (Eigen::Index i = 0; i < m; ++i) {
      const bool in_F = basic[static_cast<std::size_t>(i)] != 0;
      if (in_F ? M.lower(i, 0) * x(i) < -slack : w(i) < -slack) infeasible.push_back(i);
    }
    if (infeasible.empty()) {
      x = x.cwiseMax(0.0);
      banded_residual(M, x, b, w);
      if (!acceptable(M, x, w, slack)) return std::nullopt;
      return LcpSolution{x, w, iteration};
    }
    const auto count = static_cast<Eigen::Index>(infeasible.size());
    if (count < fewest || tries > 0) {
      if (count < fewest) {
        fewest = count;
        tries = kTries;
      } else {
        --tries;
      }
      for (const Eigen::Index i : infeasible) {
        basic[static_cast<std::size_t>(i)] = !basic[static_cast<std::size_t>(i)];
      }
    } else {
      const Eigen::Index i = infeasible.back();
      basic[static_cast<std::size_t>(i)] = !basic[static_cast<std::size_t>(i)];
    }
  }
  return std::nullopt;
}

}  // namespace

BandedSymmetric BandedSymmetric::from_dense(const Eigen::MatrixXd& M) {
  const Eigen::Index m = M.rows();
  int band = 0;
  for (Eigen::Index j = 0; j < m; ++j) {
    for (Eigen::Index i = m - 1; i > j + band; --i) {
      if (M(i, j) != 0.0) {
        band = static_cast<int>(i - j);
        break;
      }
    }
  }
  BandedSymmetric out;
  out.resize(m, band);
  for (Eigen::Index i = 0; i < m; ++i) {
    for (Eigen::Index d = 0; d <= band && d <= i; ++d) out.lower(i, d) = M(i, i - d);
  }
  return out;
}

Eigen::MatrixXd BandedSymmetric::dense() const {
  const Eigen::Index m = size();
  Eigen::MatrixXd out = Eigen::MatrixXd::Zero(m, m);
  for (Eigen::Index i = 0; i < m; ++i) {
    for (Eigen::Index d = 0; d <= bandwidth && d <= i; ++d) {
      out(i, i - d) = out(i - d, i) = lower(i, d);
    }
  }
  return out;
}

std::optional<LcpSolution> solve_banded_lcp(const BandedSymmetric& M, const Eigen::VectorXd& b,
                                            double tolerance, double scale) {
  if (b.size() == 0) return LcpSolution{Eigen::VectorXd(0), Eigen::VectorXd(0), 0};
  const double slack = tolerance * std::max(scale, b.cwiseAbs().maxCoeff());
  return banded_lcp(M, b, slack);
}

std::optional<LcpSolution> solve_lcp(const Eigen::MatrixXd& M, const Eigen::VectorXd& b,
                                     double tolerance, double scale, const LcpOptions& options) {
  const int m = static_cast<int>(b.size());
  if (m == 0) return LcpSolution{Eigen::VectorXd(0), Eigen::VectorXd(0), 0};
  const double magnitude = std::max(scale, b.cwiseAbs().maxCoeff());
  const double slack = tolerance * magnitude;
  LcpOptions chosen = options;
  if (chosen.method == LcpMethod::automatic) {
    if (m <= kLcpEnumerationSize) return enumerate(M, b, slack);
    const BandedSymmetric banded = BandedSymmetric::from_dense(M);
    if (banded.bandwidth <= kLcpBandedMaxBandwidth) {
      // Lemke's method where the banded one meets a subsystem that is not positive definite.
      if (auto solution = banded_lcp(banded, b, slack)) return solution;
    }
    chosen.method = LcpMethod::lemke;
  }
  if (chosen.method == LcpMethod::enumeration) return enumerate(M, b, slack);
  if (chosen.method == LcpMethod::banded)
    return banded_lcp(BandedSymmetric::from_dense(M), b, slack);
  if (chosen.method == LcpMethod::pgs) {
    // The iteration stops at its own tolerance; the acceptance allows that much more.
    return siconos_lcp(M, b, std::max(slack, 10.0 * options.pgs_tolerance * magnitude), chosen);
  }
  return siconos_lcp(M, b, slack, chosen);
}

namespace {
const SiconosLcpPlugin& friction_plugin() {
  static const auto* plugin = static_cast<const SiconosLcpPlugin*>(
      plugin_interface("siconos_numerics", linked_model_plugin("siconos_numerics"),
                       "the frictional contact solver of Siconos numerics"));
  return *plugin;
}
}  // namespace

void require_friction_contact_solver() { friction_plugin(); }

std::optional<FrictionContactSolution> solve_friction_contact_2d(const Eigen::MatrixXd& M,
                                                                 const Eigen::VectorXd& q,
                                                                 const Eigen::VectorXd& mu,
                                                                 double tolerance, double scale) {
  const double slack = tolerance * std::max(scale, q.lpNorm<Eigen::Infinity>());
  FrictionContactSolution solution;
  for (const bool enumerate : {false, true}) {
    const int info = friction_plugin().solve_friction(M, q, mu, enumerate, solution.r, solution.u);
    if (info != 0 || !solution.r.allFinite()) continue;
    // The velocities from the reactions, as the caller will apply them.
    solution.u = M * solution.r + q;
    if (!acceptable_friction(M, mu, solution.r, solution.u, slack)) continue;
    solution.enumerated = enumerate;
    if (const auto r = polished(M, q, mu, solution.r, slack)) {
      const Eigen::VectorXd u = M * *r + q;
      if (acceptable_friction(M, mu, *r, u, slack)) {
        solution.r = *r;
        solution.u = u;
      }
    }
    return solution;
  }
  return std::nullopt;
}

}  // namespace crbench
