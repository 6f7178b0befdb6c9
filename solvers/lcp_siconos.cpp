// The plugin siconos_numerics (solvers/lcp_siconos.hpp): the only code that calls Siconos
// numerics, a C library.
#include "crbench/solvers/lcp_siconos.hpp"

#include <cstdlib>
#include <memory>

#include "crbench/solvers/plugin.hpp"

extern "C" {
#include <FrictionContactProblem.h>
#include <Friction_cst.h>
#include <LCP_Solvers.h>
#include <LinearComplementarityProblem.h>
#include <NumericsMatrix.h>
#include <SolverOptions.h>
#include <fc2d_Solvers.h>
#include <lcp_cst.h>
}

namespace crbench {
namespace {

struct MatrixDeleter {
  void operator()(NumericsMatrix* matrix) const { NM_free(matrix); }
};
// Siconos 4.4's solver_options_delete frees what the options hold but not the options themselves
// (120 bytes a call, found by LeakSanitizer).
struct OptionsDeleter {
  void operator()(SolverOptions* options) const {
    solver_options_delete(options);
    std::free(options);
  }
};
using Matrix = std::unique_ptr<NumericsMatrix, MatrixDeleter>;
using Options = std::unique_ptr<SolverOptions, OptionsDeleter>;

// M copied into a dense NumericsMatrix (column-major, as Eigen's).
Matrix dense_matrix(const Eigen::MatrixXd& M) {
  Matrix matrix(NM_create(NM_DENSE, static_cast<int>(M.rows()), static_cast<int>(M.cols())));
  std::copy(M.data(), M.data() + M.size(), matrix->matrix0);
  return matrix;
}

// z is the unknown x.
int solve(const Eigen::MatrixXd& M, const Eigen::VectorXd& b, bool lemke, int max_iterations,
          double tolerance, Eigen::VectorXd& x, Eigen::VectorXd& w, int& iterations) {
  const int m = static_cast<int>(b.size());
  const Matrix matrix = dense_matrix(M);
  Eigen::VectorXd q = b;
  LinearComplementarityProblem problem{m, matrix.get(), q.data()};
  const Options solver(solver_options_create(lemke ? SICONOS_LCP_LEMKE : SICONOS_LCP_PGS));
  solver->iparam[SICONOS_IPARAM_MAX_ITER] = max_iterations;
  if (!lemke) solver->dparam[SICONOS_DPARAM_TOL] = tolerance;
  x = Eigen::VectorXd::Zero(m);
  w = Eigen::VectorXd::Zero(m);
  int info = 0;
  if (lemke) {
    lcp_lexicolemke(&problem, x.data(), w.data(), &info, solver.get());
  } else {
    lcp_pgs(&problem, x.data(), w.data(), &info, solver.get());
  }
  iterations = solver->iparam[SICONOS_IPARAM_ITER_DONE];
  return info;
}

int solve_friction(const Eigen::MatrixXd& M, const Eigen::VectorXd& q, const Eigen::VectorXd& mu,
                   bool enumerate, Eigen::VectorXd& r, Eigen::VectorXd& u) {
  const int size = static_cast<int>(q.size());
  const Matrix matrix = dense_matrix(M);
  Eigen::VectorXd q_copy = q, mu_copy = mu;
  FrictionContactProblem problem{2, static_cast<int>(mu.size()), matrix.get(), q_copy.data(),
                                 mu_copy.data()};
  const Options options(
      solver_options_create(enumerate ? SICONOS_FRICTION_2D_ENUM : SICONOS_FRICTION_2D_LEMKE));
  r = Eigen::VectorXd::Zero(size);
  u = Eigen::VectorXd::Zero(size);
  int info = 0;
  if (enumerate) {
    fc2d_enum(&problem, r.data(), u.data(), &info, options.get());
  } else {
    fc2d_lexicolemke(&problem, r.data(), u.data(), &info, options.get());
  }
  return info;
}

const SiconosLcpPlugin kPlugin{.solve = solve, .solve_friction = solve_friction};

}  // namespace
}  // namespace crbench

CRBENCH_PLUGIN_ENTRY(siconos_numerics) { return &crbench::kPlugin; }
