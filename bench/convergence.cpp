#include "crbench/bench/convergence.hpp"

#include <cmath>

namespace crbench {

std::vector<double> geometric_ladder(double N_from, double N_to, int per_decade) {
  std::vector<double> ladder;
  const double decades = std::log10(N_to / N_from);
  const int count = static_cast<int>(std::floor(decades * per_decade + 1e-9)) + 1;
  for (int i = 0; i < count; ++i) {
    ladder.push_back(N_from * std::pow(10.0, static_cast<double>(i) / per_decade));
  }
  return ladder;
}

std::optional<double> log_log_slope(const std::vector<double>& x, const std::vector<double>& y) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  int k = 0;
  for (std::size_t i = 0; i < x.size() && i < y.size(); ++i) {
    if (!(std::abs(y[i]) > 0.0) || !std::isfinite(y[i])) continue;
    const double lx = std::log(x[i]), ly = std::log(std::abs(y[i]));
    sx += lx;
    sy += ly;
    sxx += lx * lx;
    sxy += lx * ly;
    ++k;
  }
  if (k < 2) return std::nullopt;
  return (k * sxy - sx * sy) / (k * sxx - sx * sx);
}

std::optional<double> local_order(double N_coarse, double error_coarse, double N_fine,
                                  double error_fine) {
  if (error_coarse == 0.0 || error_fine == 0.0 || !std::isfinite(error_coarse) ||
      !std::isfinite(error_fine)) {
    return std::nullopt;
  }
  return std::log(std::abs(error_coarse / error_fine)) / std::log(N_fine / N_coarse);
}

}  // namespace crbench
