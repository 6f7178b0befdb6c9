// Central finite differences with one Richardson extrapolation, the independent derivatives
// `crbench check` and the tests hold the AD ones against.
#pragma once

#include <Eigen/Core>
#include <functional>

namespace crbench {

// dF/ds at s = 0 of a vector-valued F: (4 D(h/2) − D(h))/3 with D(k) = (F(k) − F(−k))/(2k),
// error O(h⁴).
inline Eigen::VectorXd derivative(const std::function<Eigen::VectorXd(double)>& F,
                                  double h = 1e-3) {
  const auto central = [&](double k) { return Eigen::VectorXd((F(k) - F(-k)) / (2.0 * k)); };
  return (4.0 * central(h / 2) - central(h)) / 3.0;
}

// d²F/ds² at s = 0, the second central difference extrapolated the same way.
inline Eigen::VectorXd second_derivative(const std::function<Eigen::VectorXd(double)>& F,
                                         double h = 1e-2) {
  const Eigen::VectorXd F0 = F(0.0);
  const auto central = [&](double k) {
    return Eigen::VectorXd((F(k) - 2.0 * F0 + F(-k)) / (k * k));
  };
  return (4.0 * central(h / 2) - central(h)) / 3.0;
}

}  // namespace crbench
