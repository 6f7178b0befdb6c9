// Linear complementarity problems of the small size met at contact and impact events:
// find x ≥ 0 with w = M x + b ≥ 0 and xᵀw = 0, M symmetric positive (semi)definite (a Delassus
// matrix J A⁻¹ Jᵀ). Solved exactly by enumerating the index sets (Murty's principal pivoting by
// exhaustion): m is the number of constraints touching at one instant, a handful at most, and the
// exact answer avoids any iteration tolerance.
#pragma once

#include <Eigen/Core>
#include <optional>
#include <string>

namespace crbench {

struct LcpSolution {
  Eigen::VectorXd x;
  Eigen::VectorXd w;
};

// Largest problem accepted (2^m index sets are examined).
inline constexpr int kLcpMaxSize = 16;

// `tolerance` is the slack allowed in x ≥ 0 and w ≥ 0, relative to max(scale, |b|∞). `scale` is
// the size of the terms b was summed from (its round-off is relative to them): a problem whose
// forces are all of order 1e-12 passes that, so that its b = -1e-12 is not taken for zero.
// Returns nullopt when no index set gives a solution (M not P-matrix, or m > kLcpMaxSize).
std::optional<LcpSolution> solve_lcp(const Eigen::MatrixXd& M, const Eigen::VectorXd& b,
                                     double tolerance = 1e-12, double scale = 1.0);

}  // namespace crbench
