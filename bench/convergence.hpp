// The convergence arithmetic under the ladder analysis (bench/ladder.hpp): geometric ladders,
// least-squares orders on log–log data and local orders.
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

}  // namespace crbench
