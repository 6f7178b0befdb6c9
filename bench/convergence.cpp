#include "bench/convergence.hpp"

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

Extrapolation richardson(const std::vector<double>& N,
                         const std::vector<std::optional<double>>& values) {
  Extrapolation out;
  std::vector<double> difference_N, differences;
  for (std::size_t i = 0; i + 1 < N.size() && i + 1 < values.size(); ++i) {
    if (values[i] && values[i + 1]) {
      difference_N.push_back(N[i]);
      differences.push_back(*values[i] - *values[i + 1]);
    }
  }
  const auto negated = [](std::optional<double> x) {
    return x ? std::optional<double>(-*x) : std::nullopt;
  };
  out.order_fitted_over_the_ladder = negated(log_log_slope(difference_N, differences));
  const std::size_t np = std::min(N.size(), values.size());
  if (np < 3 || !values[np - 1] || !values[np - 2] || !values[np - 3]) return out;
  // The three finest points: as in Aitken's Δ², the coarse points carry the higher-order terms
  // that would bias p.
  const double d_ab = *values[np - 3] - *values[np - 2];
  const double d_bc = *values[np - 2] - *values[np - 1];
  const auto p = local_order(N[np - 3], d_ab, N[np - 2], d_bc);
  if (!p) return out;
  out.order_from_differences = p;
  const auto level = [](double coarse, double fine, double ratio_p) {
    return (ratio_p * fine - coarse) / (ratio_p - 1.0);
  };
  const double r = N[np - 1] / N[np - 2];
  const double r1 = std::pow(r, *p), r2 = std::pow(r, 2.0 * *p);
  const double ab = level(*values[np - 3], *values[np - 2], r1);
  const double bc = level(*values[np - 2], *values[np - 1], r1);
  out.limit = level(ab, bc, r2);
  out.error_estimate = std::abs(*out.limit - bc);
  return out;
}

}  // namespace crbench
