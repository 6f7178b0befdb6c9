// unilateral-skate: a disk on a smooth plane with a one-sided skate (Berezinskaya, Sorokina &
// Kugushev 2003, "On unilateral nonholonomic constraints", §6). q = (x, y, φ): the centre and the
// heading of the blade; T = (ẋ² + ẏ²)/2 + J φ̇²/2, no forces; the skate lets the centre move along
// the blade or to its left, never to its right: g = −ẋ sin φ + ẏ cos φ ≥ 0.
//
// The paper's motion (§6; its formulas were lost in the text, so they are derived here from the
// set-up it describes). φ̇ = ω throughout (a has no φ component). Free, the centre moves on a
// straight line with its initial velocity v0(cos ψ, sin ψ) and g = v0 sin(ψ − ω t), which first
// vanishes at
//   t* = ψ/ω (ω > 0),  t* = (π − ψ)/|ω| (ω < 0),  never (ω = 0),
// the moment the blade has turned into the direction of the velocity (forward for ω > 0, backward
// for ω < 0). From then on the skate holds: the velocity is s v0 (cos φ, sin φ), s = sgn ω, and
// the reaction λ aᵀ with λ = v0 |ω| > 0 keeps the centre on the circle of radius v0/|ω| that the
// two-sided skate would follow:
//   x = x* + s (v0/ω)(sin φ − sin φ*),  y = y* − s (v0/ω)(cos φ − cos φ*),  φ = ω t.
// The centre cannot leave that circle: λ stays positive. There is no impact: g reaches 0
// continuously (§6, and §8 for every system with only one-sided kinematic constraints), so the
// energy v0²/2 + J ω²/2 is kept.
#pragma once

#include <cmath>
#include <limits>
#include <numbers>
#include <string>

#include "crbench/cases/case.hpp"
#include "crbench/cases/skate_blade.hpp"

namespace crbench::cases {

struct UnilateralSkate : NoForce<3>, SkateBlade, PlanarBodyMetric {
  static constexpr int unilateral_kinematic = 1;
  double v0, psi, omega;

  explicit UnilateralSkate(const ParamValues& p)
      : PlanarBodyMetric{p.at("J")}, v0(p.at("v0")), psi(p.at("psi")), omega(p.at("omega")) {}

  static CaseInfo info() {
    return {
        .name = "unilateral-skate",
        .description =
            "A disk with a one-sided skate on a smooth plane (Berezinskaya, Sorokina & Kugushev "
            "2003, section 6): q = (x, y, phi), T = (x'^2 + y'^2)/2 + J phi'^2/2, no forces, "
            "one-sided kinematic constraint -x' sin(phi) + y' cos(phi) >= 0. Started at the "
            "origin with phi = 0, velocity v0 (cos psi, sin psi) and phi' = omega. The centre "
            "moves on a straight line until the blade has turned into the direction of its "
            "velocity (t* = psi/omega for omega > 0), then follows the circle of radius "
            "v0/|omega| of the two-sided skate and never leaves it; no impact, the energy is "
            "kept.",
        .params = {{.name = "v0",
                    .default_value = 1.0,
                    .min = 0.0,
                    .max = 1e3,
                    .min_inclusive = false,
                    .unit = "length/time",
                    .description = "initial speed of the centre"},
                   {.name = "psi",
                    .default_value = 1.0,
                    .min = 0.0,
                    .max = std::numbers::pi,
                    .min_inclusive = false,
                    .max_inclusive = false,
                    .unit = "rad",
                    .description = "direction of the initial velocity from the blade (g > 0 at "
                                   "the start)"},
                   {.name = "omega",
                    .default_value = 1.0,
                    .min = -1e3,
                    .max = 1e3,
                    .unit = "1/time",
                    .description = "turning rate of the disk (constant)"},
                   {.name = "J",
                    .default_value = 1.0,
                    .min = 0.0,
                    .max = 1e6,
                    .min_inclusive = false,
                    .unit = "mass length^2",
                    .description = "moment of inertia of the disk (unit mass)"}},
        .dof = n,
        .coordinates = {{"x", "length"}, {"y", "length"}, {"phi", "angle (rad)"}},
        .constraints = m,
        .switches = switches,
    };
  }

  template <class S>
  S potential(const Vec<S, n>& /*q*/, const S& /*t*/) const {
    return S(0.0);
  }

  State initial_state() const {
    return {.t = 0.0,
            .q = Eigen::Vector3d::Zero(),
            .v = Eigen::Vector3d(v0 * std::cos(psi), v0 * std::sin(psi), omega)};
  }

  double horizon() const { return 5.0; }

  // t*: the first zero of g = v0 sin(ψ − ω t); infinite for ω = 0.
  double contact_time() const {
    if (omega > 0.0) return psi / omega;
    if (omega < 0.0) return (std::numbers::pi - psi) / -omega;
    return std::numeric_limits<double>::infinity();
  }

  Eigen::Vector3d ideal_position(double t) const {
    const double t_star = contact_time();
    const double free_time = std::min(t, t_star);
    Eigen::Vector3d q(v0 * std::cos(psi) * free_time, v0 * std::sin(psi) * free_time, omega * t);
    if (t <= t_star) return q;
    const double s = omega > 0.0 ? 1.0 : -1.0;
    const double phi_star = omega * t_star, phi = omega * t;
    q(0) += s * (v0 / omega) * (std::sin(phi) - std::sin(phi_star));
    q(1) -= s * (v0 / omega) * (std::cos(phi) - std::cos(phi_star));
    return q;
  }

  Facts facts() const {
    const auto motion = [this](double t, double) -> std::optional<Eigen::VectorXd> {
      if (t < 0.0) return std::nullopt;
      return Eigen::VectorXd(ideal_position(t));
    };
    const std::string source =
        "Berezinskaya, Sorokina & Kugushev 2003 section 6: a straight line until t* (the blade "
        "turned into the velocity), then the circle of radius v0/|omega| of the two-sided skate";
    Facts facts;
    facts.trajectories.push_back(
        {.model = "classical", .source = "the ideal one-sided skate: " + source, .q = motion});
    facts.trajectories.push_back(
        {.model = "viscous",
         .source = "the limit of the one-sided friction -beta N min(g, 0) a^T, the ideal one-sided "
                   "skate: " +
                   source,
         .q = motion});
    facts.values.push_back({.name = "energy",
                            .value = 0.5 * v0 * v0 + 0.5 * inertia * omega * omega,
                            .source = "T at t = 0, kept: the motion has no impact (section 6)"});
    if (omega != 0.0) {
      facts.values.push_back({.name = "contact time",
                              .value = contact_time(),
                              .source = "t* = psi/omega (omega > 0), (pi - psi)/|omega| (omega < "
                                        "0): the first zero of g = v0 sin(psi - omega t)"});
      facts.values.push_back({.name = "skate reaction",
                              .value = v0 * std::abs(omega),
                              .source = "lambda = v0 |omega| after t*: the centripetal force on "
                                        "the circle of radius v0/|omega|"});
    }
    return facts;
  }
};

}  // namespace crbench::cases
