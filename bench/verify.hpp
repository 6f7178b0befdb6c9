// `crbench verify`: sets the limit model's predicted lift-off (Deryabin & Kozlov 1995 Theorem 1)
// beside the realization runs for a geometric ladder of N and says whether they confirm it; or,
// with --axis h or rtol, runs one solver down a ladder of time steps or tolerances against the
// case's closed form (else a tight run of a reference solver) and fits the order of its error.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "crbench/bench/ladder.hpp"
#include "crbench/cases/params.hpp"

namespace crbench {

struct VerifyRequest {
  std::string case_name;
  std::vector<Assignment> case_assignments;
  // --preset/--alpha/--beta/--gamma/--interaction/--kappa/--k/--theta and each --solver-set,
  // given to the ladder's solver (on an N ladder to the realization and the limit model).
  std::vector<Assignment> model_assignments;
  // The ladder: N of the realization (the default), h of a fixed-step solver or rtol of an
  // adaptive one.
  LadderAxis axis = LadderAxis::N;
  // The solver run down an h or rtol ladder (an N ladder runs the realization); its N (a
  // realization's or the limit's at a fixed N) comes with `N_fixed`.
  std::string solver = "realization";
  std::optional<double> N_fixed;
  // The coarse and fine ends; unset: 1e2 and 1e10 (N), 1e-2 and 1e-5 (h), 1e-4 and 1e-12 (rtol).
  std::optional<double> from;
  std::optional<double> to;
  int per_decade = 1;
  int digits = 8;
  double rtol = 1e-12;
  double atol = 1e-14;
  // The discretization check runs each point again at (rtol, atol) / tight_factor (as a study's
  // tolerances.tight_factor).
  double tight_factor = 100.0;
  // The end of every run's horizon (default: the case's).
  std::optional<double> t_end;
  // The constraint whose lift-off the ladder measures, by name or index (--constraint); none:
  // the whole system's.
  std::optional<std::string> constraint;
  bool json = false;
};

// Exit status: 0 the prediction is confirmed to `digits`, 1 it is not, 2 bad input (InputError).
int run_verify(const VerifyRequest& request, std::ostream& out);

}  // namespace crbench
