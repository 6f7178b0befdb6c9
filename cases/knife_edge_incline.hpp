// knife-edge-incline: a skate (knife edge) on an inclined plane, the standard nonholonomic
// example of Kozlov 1992 §2–3 (Carathéodory's realization by anisotropic friction, Kozlov's by
// added mass). q = (x, y, φ): the contact point in the plane (x down the slope) and the blade's
// heading; T = (ẋ² + ẏ²)/2 + J φ̇²/2 (unit mass), V = −a_g x (a_g = g sin of the incline), and the
// kinematic constraint that the contact point moves along the blade, −ẋ sin φ + ẏ cos φ = 0.
// Started at the origin at rest with φ = 0, φ̇ = ω. The heading does not feel the constraint's
// reaction (it acts on x, y only), so φ = ωt, and d'Alembert–Lagrange (nonholonomic) motion is
//   x = a_g/(2ω²) sin²ωt,  y = a_g/(2ω²) (ωt − sin ωt cos ωt).
#pragma once

#include <cmath>
#include <string>

#include "crbench/cases/case.hpp"
#include "crbench/cases/skate_blade.hpp"

namespace crbench::cases {

struct KnifeEdgeIncline : NoForce<3>, SkateBlade, PlanarBodyMetric {
  double a_g, omega;

  explicit KnifeEdgeIncline(const ParamValues& p)
      : PlanarBodyMetric{p.at("J")}, a_g(p.at("a_g")), omega(p.at("omega")) {}

  static CaseInfo info() {
    return {
        .name = "knife-edge-incline",
        .description =
            "A knife edge on an inclined plane (Kozlov 1992 sections 2-3): q = (x, y, phi), "
            "T = (x'^2 + y'^2)/2 + J phi'^2/2, V = -a_g x, kinematic constraint "
            "-x' sin(phi) + y' cos(phi) = 0 (the contact point moves along the blade); started "
            "at the origin at rest with phi = 0, phi' = omega. No unilateral constraint. The "
            "ideal (d'Alembert-Lagrange, nonholonomic) motion is phi = omega t, x = a_g/(2 "
            "omega^2) sin^2(omega t), y = a_g/(2 omega^2)(omega t - sin(omega t) cos(omega t)).",
        .params = {{.name = "a_g",
                    .default_value = 1.0,
                    .min = 0.0,
                    .max = 1e6,
                    .unit = "length/time^2",
                    .description = "gravity along the slope, g sin(incline)"},
                   {.name = "J",
                    .default_value = 1.0,
                    .min = 0.0,
                    .max = 1e6,
                    .min_inclusive = false,
                    .unit = "mass length^2",
                    .description = "moment of inertia of the skate about the contact point"},
                   {.name = "omega",
                    .default_value = 1.0,
                    .min = 0.0,
                    .max = 1e3,
                    .min_inclusive = false,
                    .unit = "1/time",
                    .description = "initial turning rate phi'(0)"}},
        .dof = n,
        .coordinates = {{"x", "length"}, {"y", "length"}, {"phi", "angle (rad)"}},
        .constraints = m,
        .switches = switches,
    };
  }

  template <class S>
  S potential(const Vec<S, n>& q, const S& /*t*/) const {
    return -a_g * q(0);
  }

  State initial_state() const {
    return {.t = 0.0, .q = Eigen::Vector3d::Zero(), .v = Eigen::Vector3d(0.0, 0.0, omega)};
  }

  double horizon() const { return 3.0; }

  Facts facts() const {
    const double a = a_g, w = omega;
    const auto nonholonomic = [a, w](double t, double) -> std::optional<Eigen::VectorXd> {
      const double s = std::sin(w * t), c = std::cos(w * t), scale = a / (2.0 * w * w);
      return Eigen::Vector3d(scale * s * s, scale * (w * t - s * c), w * t);
    };
    const std::string formula =
        "phi = omega t, x = a_g/(2 omega^2) sin^2(omega t), y = a_g/(2 omega^2)(omega t - "
        "sin(omega t) cos(omega t))";
    Facts facts;
    facts.trajectories.push_back(
        {.model = "classical",
         .source = "the ideal (d'Alembert-Lagrange, nonholonomic) motion: " + formula,
         .q = nonholonomic});
    // Carathéodory: viscous anisotropic friction (alpha = 0) realizes the nonholonomic motion
    // (Kozlov 1992 section 2).
    facts.trajectories.push_back(
        {.model = "viscous",
         .source = "the limit of the viscous realization, the nonholonomic motion: " + formula,
         .q = nonholonomic});
    return facts;
  }
};

}  // namespace crbench::cases
