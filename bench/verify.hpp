// `crbench verify`: sets the limit model's predicted lift-off (Deryabin & Kozlov 1995 Theorem 1)
// beside the realization runs for a geometric ladder of N and says whether they confirm it.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "crbench/cases/params.hpp"

namespace crbench {

struct VerifyRequest {
  std::string case_name;
  std::vector<Assignment> case_assignments;
  // --preset/--alpha/--beta/--gamma/--interaction/--kappa/--k, given to both solvers.
  std::vector<Assignment> model_assignments;
  double N_from = 1e2;
  double N_to = 1e10;
  int per_decade = 1;
  int digits = 8;
  double rtol = 1e-12;
  double atol = 1e-14;
  // The discretization check runs each point again at (rtol, atol) / tight_factor (as a study's
  // tolerances.tight_factor).
  double tight_factor = 100.0;
  bool json = false;
};

// Exit status: 0 the prediction is confirmed to `digits`, 1 it is not, 2 bad input (InputError).
int run_verify(const VerifyRequest& request, std::ostream& out);

}  // namespace crbench
