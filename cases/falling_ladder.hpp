// falling-ladder: a uniform rod (a ladder) leaning on a frictionless wall and standing on a
// frictionless floor, released at rest: the classical example of a system in which one contact
// holds while another releases. Half-length l, mass m, I = m l²/3 about the centre, angle θ from
// the floor. The coordinates are the two gaps and the angle, q = (u, w, θ): u the top end's
// distance from the wall, w the bottom end's height, so that each constraint is a coordinate
// (f = u ≥ 0, f = w ≥ 0) and its value carries no round-off of a difference of O(1) terms. The
// centre is at (u + l cos θ, w + l sin θ):
//   T = m((u̇ − l sin θ θ̇)² + (ẇ + l cos θ θ̇)²)/2 + m l² θ̇²/6,  V = m g (w + l sin θ).
// With both ends held the centre moves on the circle of radius l about the corner, T = (2/3) m l²
// θ̇², and energy gives θ̇² = (3g/(2l))(sin θ0 − sin θ). The wall's reaction is m ẍ with x = l cos
// θ: m ẍ = (3/2) m g cos θ ((3/2) sin θ − sin θ0), which falls to zero where sin θ = (2/3) sin θ0:
// the top leaves the wall there. The floor's reaction, m g (1/4 + (9/4) sin²θ − (3/2) sin θ sin
// θ0) ≥ m g (1 − sin²θ0)/4, stays positive. (Derived from the model integrated here; checked
// against an independent integration in tests/test_falling_ladder.cpp.)
#pragma once

#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <cmath>
#include <numbers>

#include "crbench/cases/case.hpp"

namespace crbench::cases {

struct FallingLadder : NoForce<3> {
  static constexpr int n = 3;
  static constexpr int m = 2;

  double l, mass, g, theta0;

  explicit FallingLadder(const ParamValues& p)
      : l(p.at("l")), mass(p.at("m")), g(p.at("g")), theta0(p.at("theta0")) {}

  static CaseInfo info() {
    return {
        .name = "falling-ladder",
        .description =
            "Uniform rod of half-length l and mass m (I = m l^2/3) leaning on a frictionless wall "
            "and standing on a frictionless floor, released at rest at angle theta0 from the "
            "floor; q = (u, w, theta) with u the top end's gap to the wall and w the bottom end's "
            "height, constraints wall: u >= 0 and floor: w >= 0. T = m((u' - l sin(theta) "
            "theta')^2 + (w' + l cos(theta) theta')^2)/2 + m l^2 theta'^2/6, V = m g (w + l "
            "sin(theta)). With both ends held theta'^2 = (3 g/(2 l))(sin(theta0) - sin(theta)) and "
            "the wall's reaction vanishes where sin(theta) = (2/3) sin(theta0): the top leaves the "
            "wall there, while the bottom stays on the floor.",
        .params = {{.name = "l",
                    .default_value = 1.0,
                    .min = 0.0,
                    .max = 1e6,
                    .min_inclusive = false,
                    .unit = "length",
                    .description = "half-length of the rod"},
                   {.name = "m",
                    .default_value = 1.0,
                    .min = 0.0,
                    .max = 1e6,
                    .min_inclusive = false,
                    .unit = "mass",
                    .description = "mass of the rod"},
                   {.name = "g",
                    .default_value = 9.81,
                    .min = 0.0,
                    .max = 1e6,
                    .min_inclusive = false,
                    .unit = "length/time^2",
                    .description = "gravity"},
                   {.name = "theta0",
                    .default_value = std::numbers::pi / 3.0,
                    .min = 0.1,
                    .max = 1.5,
                    .unit = "angle (rad)",
                    .description = "initial angle of the rod from the floor"}},
        .dof = n,
        .coordinates = {{"u", "length"}, {"w", "length"}, {"theta", "angle (rad)"}},
        .constraint_units = {"length", "length"},
        .constraint_names = {"wall", "floor"},
        .constraints = m,
        .switches = switches,
        // No impact happens before the horizon, but Newton's law with e > 0 makes Moreau-Jean's
        // sustained contacts chatter (hundreds of contact episodes at h = 1e-3), which moves the
        // wall's release by several steps: absolutely inelastic contacts instead.
        .solver_settings = {{"moreau-jean", "restitution", "0",
                             "the contacts are sustained; e > 0 makes them chatter"},
                            {"siconos-moreau-jean", "restitution", "0",
                             "the contacts are sustained; e > 0 makes them chatter"}},
    };
  }

  template <class S>
  Mat<S, n, n> metric(const Vec<S, n>& q) const {
    using std::cos;
    using std::sin;
    const S s = sin(q(2)), c = cos(q(2));
    Mat<S, n, n> A;
    A << S(mass), S(0.0), -mass * l * s,  //
        S(0.0), S(mass), mass * l * c,    //
        -mass * l * s, mass * l * c, S(mass * l * l * 4.0 / 3.0);
    return A;
  }
  template <class S>
  S potential(const Vec<S, n>& q, const S& /*t*/) const {
    using std::sin;
    return mass * g * (q(1) + l * sin(q(2)));
  }
  template <class S>
  Vec<S, m> constraints(const Vec<S, n>& q, const S& /*t*/) const {
    return Vec<S, m>(q(0), q(1));
  }
  State initial_state() const {
    return {.t = 0.0, .q = Eigen::Vector3d(0.0, 0.0, theta0), .v = Eigen::Vector3d::Zero()};
  }

  // The classical release: sin θ = (2/3) sin θ0.
  double release_angle() const { return std::asin(2.0 / 3.0 * std::sin(theta0)); }
  // The time from rest at θ0 to θ with both ends held: ∫_θ^θ0 ds / √(k (sin θ0 − sin s)), k =
  // 3g/(2l). With sin θ0 − sin s = p², the square-root end becomes smooth:
  //   t = (2/√k) ∫_0^√(sin θ0 − sin θ) dp / √(1 − (sin θ0 − p²)²),
  // an analytic integrand on the interval (sin θ0 − p² stays in [sin θ, sin θ0], below 1), which a
  // 61-point Gauss–Kronrod rule integrates to round-off.
  double time_to(double theta) const {
    const double k = 1.5 * g / l, s0 = std::sin(theta0);
    const auto integrand = [s0](double p) {
      const double s = s0 - p * p;
      return 1.0 / std::sqrt((1.0 - s) * (1.0 + s));
    };
    const double top = std::sqrt(s0 - std::sin(theta));
    return 2.0 / std::sqrt(k) *
           boost::math::quadrature::gauss_kronrod<double, 61>::integrate(integrand, 0.0, top, 5,
                                                                         1e-15);
  }
  double release_time() const { return time_to(release_angle()); }
  // After the release the rod slides on the floor alone: ẋ keeps its value at the release and,
  // with y = l sin θ, energy gives (l²/2)(cos²θ + 1/3) θ̇² + g l sin θ = C. The rod lies flat
  // (θ = 0) after ∫_0^θr dθ/|θ̇| more, an integrand without singularity (|θ̇| > 0 down to 0).
  double landing_time() const { return landing_time(release_time()); }
  // The same from a release time already computed (the horizon needs both).
  double landing_time(double release) const {
    const double theta_r = release_angle();
    const double rate2 = 1.5 * g / l * (std::sin(theta0) - std::sin(theta_r));
    const double C = 0.5 * l * l * (std::cos(theta_r) * std::cos(theta_r) + 1.0 / 3.0) * rate2 +
                     g * l * std::sin(theta_r);
    const auto inverse_rate = [this, C](double theta) {
      const double c = std::cos(theta);
      return std::sqrt(0.5 * l * l * (c * c + 1.0 / 3.0) / (C - g * l * std::sin(theta)));
    };
    return release + boost::math::quadrature::gauss_kronrod<double, 61>::integrate(
                         inverse_rate, 0.0, theta_r, 5, 1e-15);
  }
  // Past the release, three quarters of the way to the rod lying flat (its top end would then go
  // through the floor, which is not a constraint here).
  double horizon() const {
    const double release = release_time();
    return release + 0.75 * (landing_time(release) - release);
  }

  Facts facts() const {
    Facts facts;
    facts.lift_off.push_back(
        {.model = "classical",
         .time = release_time(),
         .source = "sin(theta) = (2/3) sin(theta0); t = integral of 1/|theta'| with theta'^2 = (3 "
                   "g/(2 l))(sin(theta0) - sin(theta)), by 61-point Gauss-Kronrod after p^2 = "
                   "sin(theta0) - sin(theta)",
         .constraint = "wall"});
    facts.values.push_back({.name = "classical release angle",
                            .value = release_angle(),
                            .source = "sin(theta) = (2/3) sin(theta0)"});
    return facts;
  }
};

}  // namespace crbench::cases
