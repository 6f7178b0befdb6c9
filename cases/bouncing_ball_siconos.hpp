// bouncing-ball-siconos: the problem of Siconos's BouncingBallTS example, whose Moreau–Jean output
// is the external reference tests/data/siconos/BouncingBallTS.ref (see the README
// beside it). A ball with q = (height, lateral, rotation), A = diag(m, m, 2/5 m R²), gravity on
// the height, unilateral constraint f = q0 ≥ 0 (the radius enters only the inertia), q0(0) = h0,
// q0'(0) = −v0. Siconos runs it from rest (v0 = 0) with Newton restitution e = 0.9, θ = 0.5,
// h = 0.005 on [0, 10]; h0 = 0 and v0 > 0 is an impact at speed v0 at t = 0 (the engines' impact
// study, bench/impacts/).
#pragma once

#include <cmath>

#include "crbench/cases/case.hpp"

namespace crbench::cases {

struct BouncingBallSiconos : NoForce<3> {
  static constexpr int n = 3;
  static constexpr int m = 1;

  double mass;
  double radius;
  double gravity;
  double h0;
  double v0;

  explicit BouncingBallSiconos(const ParamValues& p)
      : mass(p.at("m")), radius(p.at("R")), gravity(p.at("g")), h0(p.at("h0")), v0(p.at("v0")) {}

  static CaseInfo info() {
    return {
        .name = "bouncing-ball-siconos",
        .description =
            "Siconos's bouncing ball (siconos-tutorials 4.4.0, "
            "examples/mechanics/BouncingBall/BouncingBallTS.cpp): q = (height, lateral, rotation), "
            "T = q'^T M q'/2 with M = diag(m, m, 2/5 m R^2), V = m g q0, unilateral constraint f = "
            "q0 >= 0, initial q = (h0, 0, 0), q' = (-v0, 0, 0). Impacts by Newton's law "
            "(Kugushev & Sorokina 2002 (1.3)-(1.4)); Siconos's reference uses restitution 0.9, "
            "theta = 0.5, h = 0.005 on [0, 10] (tests/data/siconos/BouncingBallTS.ref), from rest "
            "(v0 = 0). Free fall until the first impact at t = (sqrt(v0^2 + 2 g h0) - v0)/g; h0 = "
            "0 is an impact at speed v0 at t = 0.",
        .params = {{.name = "m",
                    .default_value = 1.0,
                    .min = 0.0,
                    .max = 1e6,
                    .min_inclusive = false,
                    .unit = "mass",
                    .description = "mass of the ball"},
                   {.name = "R",
                    .default_value = 0.1,
                    .min = 0.0,
                    .max = 1e3,
                    .min_inclusive = false,
                    .unit = "length",
                    .description = "radius (enters only the rotational inertia 2/5 m R^2)"},
                   {.name = "g",
                    .default_value = 9.81,
                    .min = 0.0,
                    .max = 1e6,
                    .min_inclusive = false,
                    .unit = "length/time^2",
                    .description = "gravity on the height"},
                   {.name = "h0",
                    .default_value = 1.0,
                    .min = 0.0,
                    .max = 1e6,
                    .unit = "length",
                    .description = "initial height"},
                   {.name = "v0",
                    .default_value = 0.0,
                    .min = 0.0,
                    .max = 1e6,
                    .unit = "length/time",
                    .description = "initial downward speed"}},
        .dof = n,
        .coordinates = {{"height", "length"}, {"lateral", "length"}, {"rotation", "angle (rad)"}},
        .constraint_units = {"length"},
        .constraint_names = {"floor"},
        .constraints = m,
        .switches = switches,
        .solver_settings = {{"moreau-jean", "h", "0.005", "BouncingBallTS's time step"},
                            {"moreau-jean", "theta", "0.5", "BouncingBallTS's theta"},
                            {"moreau-jean", "restitution", "0.9", "BouncingBallTS's Newton law"},
                            {"event-driven", "restitution", "0.9", "BouncingBallTS's Newton law"},
                            {"siconos-moreau-jean", "h", "0.005", "BouncingBallTS's time step"},
                            {"siconos-moreau-jean", "theta", "0.5", "BouncingBallTS's theta"},
                            {"siconos-moreau-jean", "restitution", "0.9",
                             "BouncingBallTS's Newton law"},
                            {"siconos-event-driven", "restitution", "0.9",
                             "BouncingBallTS's Newton law"}},
    };
  }

  template <class S>
  Mat<S, n, n> metric(const Vec<S, n>& /*q*/) const {
    Mat<S, n, n> A = Mat<S, n, n>::Zero();
    A(0, 0) = S(mass);
    A(1, 1) = S(mass);
    A(2, 2) = S(0.4 * mass * radius * radius);
    return A;
  }

  template <class S>
  S potential(const Vec<S, n>& q, const S& /*t*/) const {
    return mass * gravity * q(0);
  }

  template <class S>
  Vec<S, m> constraints(const Vec<S, n>& q, const S& /*t*/) const {
    return Vec<S, m>(q(0));
  }

  State initial_state() const {
    // 0 − v0: +0 from rest, as Siconos's start, not −0.
    return {.t = 0.0, .q = Eigen::Vector3d(h0, 0.0, 0.0), .v = Eigen::Vector3d(0.0 - v0, 0.0, 0.0)};
  }

  double horizon() const { return 10.0; }

  Facts facts() const {
    const double g = gravity;
    const double height = h0;
    const double speed = v0;
    // The root of h0 − v0 t − g t²/2 = 0 without cancellation, 2 h0/(v0 + √(v0² + 2 g h0));
    // 0 for a ball at rest on the ground.
    const double root = speed + std::sqrt(speed * speed + 2.0 * g * height);
    const double impact = root > 0.0 ? 2.0 * height / root : 0.0;
    Facts facts;
    facts.trajectories.push_back(
        {.model = "classical",
         .source = "free fall q0 = h0 - v0 t - g t^2/2 until the first impact at t = (sqrt(v0^2 "
                   "+ 2 g h0) - v0)/g",
         .q = [g, height, speed, impact](double t, double) -> std::optional<Eigen::VectorXd> {
           if (t < 0.0 || t > impact) return std::nullopt;
           return Eigen::Vector3d(height - speed * t - 0.5 * g * t * t, 0.0, 0.0);
         }});
    return facts;
  }
};

}  // namespace crbench::cases
