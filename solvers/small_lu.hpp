// The solve of a partial-pivoting LU for the small systems of the realization's hot loop (the
// Rosenbrock matrix of a 2-DOF case is 4×4, the metric 2×2), with the operations of Eigen's own
// PartialPivLU::solve in the same order, so that the results are the same to the bit: the
// permutation, then the column-oriented forward and back substitutions of
// Eigen::internal::triangular_solve_vector (one panel up to its width of 8). Eigen's general
// routine spends most of its time on panel and stride bookkeeping at these sizes.
#pragma once

#include <Eigen/Core>
#include <Eigen/LU>

namespace crbench {

// b ← LU⁻¹ b; `work` is a buffer of b's size.
inline void solve_small_lu(const Eigen::PartialPivLU<Eigen::MatrixXd>& lu, Eigen::VectorXd& b,
                           Eigen::VectorXd& work) {
  const Eigen::Index n = b.size();
  if (n > 8) {
    work = lu.solve(b);
    b.swap(work);
    return;
  }
  const Eigen::MatrixXd& m = lu.matrixLU();
  const auto& perm = lu.permutationP().indices();
  work.resize(n);
  for (Eigen::Index i = 0; i < n; ++i) work(perm(i)) = b(i);
  for (Eigen::Index i = 0; i < n; ++i) {
    if (work(i) == 0.0) continue;
    for (Eigen::Index j = i + 1; j < n; ++j) work(j) -= work(i) * m(j, i);
  }
  for (Eigen::Index i = n - 1; i >= 0; --i) {
    if (work(i) == 0.0) continue;
    work(i) /= m(i, i);
    for (Eigen::Index j = 0; j < i; ++j) work(j) -= work(i) * m(j, i);
  }
  b.swap(work);
}

}  // namespace crbench
