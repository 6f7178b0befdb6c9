// Numerical analysis for the facts cases compute about themselves (lift-off times known as an
// integral or a root): adaptive Gauss–Kronrod quadrature and the first root of a function,
// both to near machine precision. Independent of the solvers they are used to check.
#pragma once

#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <boost/math/tools/toms748_solve.hpp>
#include <cmath>
#include <cstdint>
#include <optional>

namespace crbench::analysis {

template <class F>
double integrate(F&& f, double a, double b) {
  if (a == b) return 0.0;
  return boost::math::quadrature::gauss_kronrod<double, 61>::integrate(f, a, b, 15, 1e-15);
}

// The first root of f in (a, b]: scanned with `step` for a sign change, then refined to a
// bracket of a few ulp. nullopt when f does not change sign.
template <class F>
std::optional<double> first_root(F&& f, double a, double b, double step) {
  double x0 = a;
  double f0 = f(a);
  for (double x1 = a + step; x0 < b; x1 = std::min(x1 + step, b)) {
    const double f1 = f(x1);
    if (f1 == 0.0) return x1;
    if ((f0 < 0.0) != (f1 < 0.0) && f0 != 0.0) {
      std::uintmax_t iterations = 200;
      const auto r = boost::math::tools::toms748_solve(
          f, x0, x1, f0, f1,
          [](double p, double q) { return std::abs(q - p) <= 4e-16 * std::max(1.0, std::abs(p)); },
          iterations);
      return 0.5 * (r.first + r.second);
    }
    x0 = x1;
    f0 = f1;
    if (x1 >= b) break;
  }
  return std::nullopt;
}

}  // namespace crbench::analysis
