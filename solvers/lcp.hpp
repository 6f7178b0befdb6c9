// Linear complementarity problems met at contact and impact events: find x ≥ 0 with
// w = M x + b ≥ 0 and xᵀw = 0, M symmetric positive (semi)definite (a Delassus matrix J A⁻¹ Jᵀ).
// Three methods:
//  - enumeration of the index sets (Murty's principal pivoting by exhaustion): exact, no
//    iteration tolerance, 2^m work, and among several solutions the one with fewest active rows;
//    the reference for the others, and the method for m up to kLcpEnumerationSize;
//  - Lemke's method with lexicographic pivoting (Cottle, Pang & Stone, The Linear Complementarity
//    Problem, 1992, §4.4), Siconos numerics' lcp_lexicolemke: exact in exact arithmetic, O(m)
//    pivots of O(m²) each on a dense tableau; the method beyond kLcpEnumerationSize (already 10
//    times faster at m = 4: bench/perf/perf_lcp.cpp);
//  - projected Gauss–Seidel (Siconos numerics' lcp_pgs), iterative with a stated tolerance: the
//    method of the field for large contact problems, offered for comparison;
//  - block principal pivoting (Júdice & Pires, Comput. Oper. Res. 21 (1994) 587–596) on a banded
//    M (a chain's Delassus matrix is tridiagonal): each iteration solves the principal subsystem
//    of its current index set by a banded LDLᵀ, O(m p²) for bandwidth p, and typically a few
//    iterations suffice, so a chain of touching bodies costs O(m), not Lemke's O(m³). Exact in
//    exact arithmetic and finite for a positive definite M (Murty's least-index rule takes over
//    when the block flips stop reducing the infeasible set).
#pragma once

#include <Eigen/Core>
#include <optional>
#include <string>

namespace crbench {

struct LcpSolution {
  Eigen::VectorXd x;
  Eigen::VectorXd w;
  long iterations = 0;  // Lemke: pivots; PGS: sweeps; enumeration: index sets examined
};

enum class LcpMethod { automatic, enumeration, lemke, pgs, banded };

struct LcpOptions {
  LcpMethod method = LcpMethod::automatic;
  double pgs_tolerance = 1e-14;  // Siconos's error measure of the PGS iterate
  int pgs_max_iterations = 100000;
};

// Largest problem the enumeration accepts (2^m index sets are examined).
inline constexpr int kLcpMaxSize = 16;
// `automatic` enumerates up to this size and uses Lemke's method beyond it, or the banded
// method when M's bandwidth is at most kLcpBandedMaxBandwidth.
inline constexpr int kLcpEnumerationSize = 4;
inline constexpr int kLcpBandedMaxBandwidth = 8;

// A symmetric matrix with M(i, j) = 0 for |i − j| > bandwidth, its lower band stored by rows:
// lower(i, d) = M(i, i − d), d = 0 … bandwidth (entries with i − d < 0 are not used).
struct BandedSymmetric {
  int bandwidth = 0;
  Eigen::MatrixXd lower;
  Eigen::Index size() const { return lower.rows(); }
  void resize(Eigen::Index size, int band) {
    bandwidth = band;
    lower.setZero(size, band + 1);
  }
  double operator()(Eigen::Index i, Eigen::Index j) const {
    const Eigen::Index d = i >= j ? i - j : j - i;
    if (d > bandwidth) return 0.0;
    return i >= j ? lower(i, d) : lower(j, d);
  }
  // The smallest band that holds a dense symmetric M, and M in that band.
  static BandedSymmetric from_dense(const Eigen::MatrixXd& M);
  Eigen::MatrixXd dense() const;
};

// The method named as on the command line and in records: auto, enumeration, lemke, pgs, banded
// (the choices of moreau-jean's `lcp`, validated there).
LcpMethod lcp_method(const std::string& name);

// `tolerance` is the slack allowed in x ≥ 0 and w ≥ 0, relative to max(scale, |b|∞). `scale` is
// the size of the terms b was summed from (its round-off is relative to them): a problem whose
// forces are all of order 1e-12 passes that, so that its b = -1e-12 is not taken for zero.
// Returns nullopt when the method finds no solution within that slack (enumeration: no index set
// gives one, M not a P-matrix, or m > kLcpMaxSize; Lemke: ray termination or too many pivots;
// PGS: no convergence).
std::optional<LcpSolution> solve_lcp(const Eigen::MatrixXd& M, const Eigen::VectorXd& b,
                                     double tolerance = 1e-12, double scale = 1.0,
                                     const LcpOptions& options = {});

// The frictional contact problem of dimension 2 of a time step's impulses: contact k has the
// normal row 2k and the tangential row 2k + 1 of u = M r + q, and the solution satisfies
// Signorini's law 0 <= u_N _|_ r_N >= 0 and Coulomb's |r_T| <= mu_k r_N, r_T = -mu_k r_N
// sign(u_T) where u_T != 0 (a contact sticks or slides). Solved by Siconos numerics (the plugin
// siconos_numerics): fc2d_lexicolemke (an LCP of 3 rows per contact, Lemke's method), and where
// its answer is not accepted, fc2d_enum (the contacts' modes tried in turn; Lemke ends on a ray,
// reporting success with r = 0, on problems of strong friction coupling such as
// tests/test_moreau_jean_friction.cpp's rod at mu = 1). Accepted here as solve_lcp accepts: each
// condition within tolerance · max(scale, |q|∞) in velocity units (a reaction times its diagonal
// entry of M). nullopt when neither gives an accepted solution.
struct FrictionContactSolution {
  Eigen::VectorXd r;        // (r_N, r_T) per contact
  Eigen::VectorXd u;        // (u_N, u_T) per contact
  bool enumerated = false;  // fc2d_enum gave it
};
// InputError (exit 2) when Siconos numerics cannot be loaded: a solver that will need
// solve_friction_contact_2d asks before its first step.
void require_friction_contact_solver();
std::optional<FrictionContactSolution> solve_friction_contact_2d(const Eigen::MatrixXd& M,
                                                                 const Eigen::VectorXd& q,
                                                                 const Eigen::VectorXd& mu,
                                                                 double tolerance = 1e-12,
                                                                 double scale = 1.0);

// The banded method on a banded M, with the same tolerance, scale and acceptance as solve_lcp.
// nullopt when a principal subsystem is not positive definite (M is not) or the acceptance
// fails. `iterations` counts the block pivots (principal subsystems solved).
std::optional<LcpSolution> solve_banded_lcp(const BandedSymmetric& M, const Eigen::VectorXd& b,
                                            double tolerance = 1e-12, double scale = 1.0);

}  // namespace crbench
