// rubin-ungar-rail: a free unit point in the plane held on the line y = 0 by the bilateral
// constraint f = y(1 + κx²) = 0, whose gradient |∇f| = 1 + κx² grows along the rail (Kozlov 1992
// §4). Realized by the stiff potential γN f²/2 from data that violate Kozlov's condition (10)
// (a normal velocity vn at t = 0), the fast normal oscillation of frequency ω = √(γN)(1 + κx²)
// keeps its adiabatic invariant E⊥/ω, E⊥ = vn²/2, and the limit slides in the potential
// U = E⊥(1 + κx²)/(1 + κx0²) (Rubin–Ungar): x'' = −κ vn² x/(1 + κx0²), a harmonic oscillation,
// while the holonomic motion slides freely, x = x0 + vx0 t. With vn = 0, or with damping, the
// limit is the holonomic motion.
#pragma once

#include <cmath>

#include "crbench/cases/case.hpp"

namespace crbench::cases {

struct RubinUngarRail : NoForce<2>, UnitMetric<2>, NoUnilateralConstraints<2> {
  static constexpr int n = 2;
  static constexpr int bilateral = 1;

  double kappa, x0, vx0, vn;

  explicit RubinUngarRail(const ParamValues& p)
      : kappa(p.at("kappa")), x0(p.at("x0")), vx0(p.at("vx0")), vn(p.at("vn")) {}

  static CaseInfo info() {
    return {
        .name = "rubin-ungar-rail",
        .description =
            "A free unit point in the plane, q = (x, y), T = (x'^2 + y'^2)/2, no force, with the "
            "bilateral constraint f = y (1 + kappa x^2) = 0; started at (x0, 0) with velocity "
            "(vx0, vn). With vn != 0 the data violate Kozlov 1992 condition (10): the undamped "
            "penalty realization gamma N f^2/2 tends to the Rubin-Ungar motion x'' = -kappa vn^2 "
            "x/(1 + kappa x0^2), not to the holonomic x = x0 + vx0 t (Kozlov 1992 section 4).",
        .params = {{.name = "kappa",
                    .default_value = 1.0,
                    .min = 0.0,
                    .max = 100.0,
                    .unit = "1/length^2",
                    .description = "growth of |grad f| = 1 + kappa x^2 along the rail"},
                   {.name = "x0",
                    .default_value = 0.5,
                    .min = -10.0,
                    .max = 10.0,
                    .unit = "length",
                    .description = "initial abscissa (the point starts on the rail)"},
                   {.name = "vx0",
                    .default_value = 0.2,
                    .min = -100.0,
                    .max = 100.0,
                    .unit = "length/time",
                    .description = "initial speed along the rail"},
                   {.name = "vn",
                    .default_value = 1.0,
                    .min = -100.0,
                    .max = 100.0,
                    .unit = "length/time",
                    .description = "initial normal velocity (0 satisfies Kozlov 1992 (10))"}},
        .dof = n,
        .coordinates = {{"x", "length"}, {"y", "length"}},
        .constraint_units = {"length"},
        .constraint_names = {"rail"},
        .constraints = m,
        .switches = switches,
    };
  }

  template <class S>
  S potential(const Vec<S, n>& /*q*/, const S& /*t*/) const {
    return S(0.0);
  }

  template <class S>
  Vec<S, bilateral> bilateral_constraints(const Vec<S, n>& q, const S& /*t*/) const {
    return Vec<S, bilateral>(q(1) * (S(1.0) + kappa * q(0) * q(0)));
  }

  State initial_state() const {
    return {.t = 0.0, .q = Eigen::Vector2d(x0, 0.0), .v = Eigen::Vector2d(vx0, vn)};
  }

  double horizon() const { return 5.0; }

  Facts facts() const {
    Facts facts;
    const auto holonomic = [x0 = x0, vx0 = vx0](double t,
                                                double) -> std::optional<Eigen::VectorXd> {
      return Eigen::Vector2d(x0 + vx0 * t, 0.0);
    };
    const char* holonomic_source =
        "the holonomic motion on y = 0 from the tangential velocity vx0 (Kozlov 1992 section 4, "
        "Courant's limit)";
    facts.trajectories.push_back({"classical", holonomic_source, holonomic});
    facts.trajectories.push_back({"viscous", holonomic_source, holonomic});
    // Ω² = 2κE⊥/(1 + κx0²) with E⊥ = vn²/2: the slow motion in U = E⊥(1 + κx²)/(1 + κx0²).
    const double omega = std::sqrt(kappa * vn * vn / (1.0 + kappa * x0 * x0));
    facts.trajectories.push_back(
        {"rubin-ungar",
         "x'' = -kappa vn^2 x/(1 + kappa x0^2) on y = 0 (Rubin-Ungar; Kozlov 1992 section 4, "
         "docs/theory.md section 2)",
         [x0 = x0, vx0 = vx0, omega](double t, double) -> std::optional<Eigen::VectorXd> {
           if (omega == 0.0) return Eigen::Vector2d(x0 + vx0 * t, 0.0);
           return Eigen::Vector2d(x0 * std::cos(omega * t) + vx0 / omega * std::sin(omega * t),
                                  0.0);
         }});
    facts.values.push_back({.name = "normal energy",
                            .value = 0.5 * vn * vn,
                            .source = "E = f'^2/(2 |grad f|^2) at t = 0, f = 0"});
    facts.values.push_back({.name = "rubin-ungar frequency",
                            .value = omega,
                            .source = "sqrt(kappa vn^2/(1 + kappa x0^2))"});
    return facts;
  }
};

}  // namespace crbench::cases
