// Event location on a dense output: once a sign change of an event function g is bracketed
// between two output times, the crossing is refined by TOMS 748 (Alefeld, Potra, Shi) to an
// absolute time tolerance. Shared by every solver that stops at events.
#pragma once

#include <algorithm>
#include <boost/math/tools/toms748_solve.hpp>
#include <cmath>
#include <cstdint>
#include <limits>

namespace crbench {

// The tolerance actually achievable at time t: `requested`, but never below 4 ulp(t).
inline double event_time_tolerance(double requested, double t) {
  return std::max(requested, 4.0 * std::numeric_limits<double>::epsilon() * std::abs(t));
}

struct RootResult {
  double t = 0.0;      // midpoint of the final bracket
  double width = 0.0;  // width of the final bracket
  bool converged = false;
};

// Requires g(ta) = ga and g(tb) = gb of opposite signs (or one of them zero).
template <class G>
RootResult locate_root(G&& g, double ta, double tb, double ga, double gb, double time_tol) {
  if (ga == 0.0) return {ta, 0.0, true};
  if (gb == 0.0) return {tb, 0.0, true};
  // The round-off floor is taken at the bracket as it shrinks, not at the step's ends: a step
  // from 0 to 1e16 (a horizon of 1e19) must still locate an event at t = 1 to 1e-14.
  const auto resolved = [time_tol](double x, double y) {
    return std::abs(y - x) <= event_time_tolerance(time_tol, std::max(std::abs(x), std::abs(y)));
  };
  std::uintmax_t max_iter = 200;
  const auto [a, b] = boost::math::tools::toms748_solve(g, ta, tb, ga, gb, resolved, max_iter);
  return {0.5 * (a + b), std::abs(b - a), resolved(a, b)};
}

}  // namespace crbench
