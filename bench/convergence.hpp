// The convergence arithmetic shared by `crbench verify` and `crbench converge` (DESIGN.md §4):
// least-squares orders on log–log data, local orders, and Richardson's extrapolation of a
// geometric N ladder that does not use the prediction.
#pragma once

#include <optional>
#include <vector>

namespace crbench {

// N_from · 10^(i/per_decade) for i = 0, 1, … while ≤ N_to (with a 1e-9 decade slack).
std::vector<double> geometric_ladder(double N_from, double N_to, int per_decade);

// Least-squares slope of log|y| against log x over the entries where y is finite and ≠ 0;
// nullopt with fewer than two such entries.
std::optional<double> log_log_slope(const std::vector<double>& x, const std::vector<double>& y);

// The order p of error ∝ N^−p between two consecutive points; nullopt if either error is 0.
std::optional<double> local_order(double N_coarse, double error_coarse, double N_fine,
                                  double error_fine);

struct Extrapolation {
  // p of τ_N − τ_∞ ∝ N^−p from the successive differences: over the whole ladder (reported) and
  // from the three finest points (used).
  std::optional<double> order_fitted_over_the_ladder;
  std::optional<double> order_from_differences;
  std::optional<double> limit;
  std::optional<double> error_estimate;
};

// `values[i]` belongs to `N[i]` (a geometric ladder); missing values end the usable tail.
// Two Richardson levels on the three finest points a, b, c (ratio r each), for
// τ_N = τ_∞ + c₁N^−p + c₂N^−2p + …, the form of the realization expansions (viscous: 1/N, 1/N²;
// obstacle: N^−1/2, 1/N): R₁ = (r^p τ_next − τ)/(r^p − 1) on (a, b) and (b, c), then
// R₂ = (r^2p R₁(b, c) − R₁(a, b))/(r^2p − 1). The error estimate is the last level's step.
Extrapolation richardson(const std::vector<double>& N,
                         const std::vector<std::optional<double>>& values);

}  // namespace crbench
