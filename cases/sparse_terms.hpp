// The sparse form of a model (Model::sparse_terms) for systems whose size makes the dense Point
// quadratic in n: a constant diagonal metric A = diag(mass), the force F = Q − ∂V/∂q − c with
// ∂F/∂q = ∂F/∂q̇ = 0, and the constraint gradients J as a sparse matrix. Moreau–Jean's step is then
// linear in n plus the LCP of its active contacts (solvers/moreau_jean.cpp).
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <vector>

namespace crbench {

struct SparseTerms {
  Eigen::VectorXd mass;                            // the diagonal of A
  Eigen::VectorXd force;                           // F, independent of q and q̇
  Eigen::SparseMatrix<double, Eigen::RowMajor> J;  // ∂f/∂q; its pattern is kept between calls
  Eigen::VectorXd f;                               // constraint values
  Eigen::VectorXd f_t;                             // ∂f/∂t
  // ∂²f_k/∂q² over row k's nonzero columns (in their order in J), row after row, each a p_k × p_k
  // block stored by columns (p_k: the row's nonzeros); filled by Model::sparse_hessians only.
  std::vector<double> hessians;
};

}  // namespace crbench
