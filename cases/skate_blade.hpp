// The skate's blade, shared by the cases of a body on a plane that cannot slip sideways:
// q = (x, y, θ) with (x, y) the blade's contact point and θ its heading; the one kinematic
// constraint −ẋ sin θ + ẏ cos θ = 0 (the contact point moves along the blade; Kozlov 1992 §2),
// no unilateral constraint. A case inherits it beside NoForce<3> and writes the metric, V, the
// initial data and the facts.
#pragma once

#include <cmath>

#include "crbench/cases/case.hpp"

namespace crbench::cases {

struct SkateBlade : NoUnilateralConstraints<3> {
  static constexpr int n = 3;
  static constexpr int kinematic = 1;

  // The row a of a q̇ = 0: (−sin θ, cos θ, 0).
  template <class S>
  Mat<S, kinematic, n> kinematic_rows(const Vec<S, n>& q, const S& /*t*/) const {
    using std::cos;
    using std::sin;
    Mat<S, kinematic, n> a;
    a(0, 0) = -sin(q(2));
    a(0, 1) = cos(q(2));
    a(0, 2) = S(0.0);
    return a;
  }
};

}  // namespace crbench::cases
