// dk-plane: the worked example of Deryabin & Kozlov (Deryabin & Kozlov 1995, §6,
// (6.4)–(6.5)). A unit point in the plane, q = (x, y), constraint f = y ≥ 0, force (0, −g) for
// x ≤ 0 and (0, +g) for x > 0, initial data (6.4): (x, y, ẋ, ẏ) = (−1, 0, 1, 0).
#pragma once

#include <cmath>
#include <limits>

#include "crbench/cases/case.hpp"

namespace crbench::cases {

struct DkPlane : UnitMetric<2> {
  static constexpr int n = 2;
  static constexpr int m = 1;
  static constexpr int switches = 1;

  double g;

  explicit DkPlane(const ParamValues& p) : g(p.at("g")) {}

  static CaseInfo info() {
    return {
        .name = "dk-plane",
        .description =
            "Unit point in the plane, q = (x, y), T = (x'^2 + y'^2)/2, unilateral constraint f = y "
            ">= 0; force (0, -g) for x <= 0 and (0, +g) for x > 0 (one switch at x = 0); initial "
            "data (x, y, x', y') = (-1, 0, 1, 0). On the constraint lambda = g until x = 0 and -g "
            "after: the classical model lifts off at t = 1 and then y = g(t-1)^2/2; the viscous "
            "(0,1,0) limit lifts off at the first zero of the integral of lambda, t = 2; the "
            "viscous realization with parameter N has the closed form (6.5). Deryabin & Kozlov "
            "1995, section 6, (6.4)-(6.5).",
        .params = {{.name = "g",
                    .default_value = 1.0,
                    .min = 0.0,
                    .max = 1e6,
                    .min_inclusive = false,
                    .unit = "length/time^2",
                    .description = "magnitude of the switching force"}},
        .dof = n,
        .coordinates = {{"x", "length"}, {"y", "length"}},
        .constraint_units = {"length"},
        .constraint_names = {"plane"},
        .constraints = m,
        .switches = switches,
        .switch_names = {"x"},
    };
  }

  template <class S>
  S potential(const Vec<S, n>& /*q*/, const S& /*t*/) const {
    return S(0.0);
  }

  template <class S>
  Vec<S, n> force(const Vec<S, n>& /*q*/, const Vec<S, n>& /*v*/, const S& /*t*/,
                  Modes modes) const {
    return Vec<S, n>(S(0.0), S(modes[0] > 0 ? g : -g));
  }

  template <class S>
  Vec<S, m> constraints(const Vec<S, n>& q, const S& /*t*/) const {
    return Vec<S, m>(q(1));
  }

  Vec<double, switches> switching(const Vec<double, n>& q, const Vec<double, n>& /*v*/,
                                  double /*t*/) const {
    return Vec<double, switches>(q(0));
  }

  State initial_state() const {
    return {.t = 0.0, .q = Eigen::Vector2d(-1.0, 0.0), .v = Eigen::Vector2d(1.0, 0.0)};
  }

  double horizon() const { return 3.0; }

  Facts facts() const {
    const double gravity = g;
    Facts facts;
    facts.lift_off = {
        {.model = "classical",
         .time = 1.0,
         .source = "Deryabin & Kozlov 1995, section 6: lambda changes sign at x = 0"},
        {.model = "viscous",
         .time = 2.0,
         .source = "Deryabin & Kozlov 1995, Theorem 2 and section 6: first simple zero of the "
                   "integral of lambda"},
    };
    facts.trajectories.push_back(
        {.model = "classical",
         .source =
             "Deryabin & Kozlov 1995, section 6: x = t - 1; y = 0 for t <= 1, g(t-1)^2/2 after",
         .q = [gravity](double t, double) -> std::optional<Eigen::VectorXd> {
           const double y = t <= 1.0 ? 0.0 : 0.5 * gravity * (t - 1.0) * (t - 1.0);
           return Eigen::Vector2d(t - 1.0, y);
         }});
    facts.trajectories.push_back(
        {.model = "viscous",
         // The paper prints the first branch of (6.5) as +(g/N^2)e^(-Nt) - gt/N + g/N^2, which
         // gives y(0) = 2g/N^2, not 0: the solution of y'' = -g - Ny' from rest has
         // -(g/N^2)e^(-Nt). The printed second branch, (g/N^2)(2e^N - 1)e^(-Nt) + gt/N
         // - (2g/N)(1 + 1/(2N)), is the one that continues the corrected first branch.
         .source = "Deryabin & Kozlov 1995 (6.5) with the sign of e^(-Nt) in the first branch "
                   "corrected (the printed + violates y(0) = 0): viscous realization y'' = -+g - N "
                   "y' in y <= 0, valid while y <= 0; (2e^N - 1)e^(-Nt) is evaluated as "
                   "2e^(-N(t-1)) - e^(-Nt) to avoid overflow",
         .q = [gravity](double t, double N) -> std::optional<Eigen::VectorXd> {
           if (!(N > 0.0) || t < 0.0) return std::nullopt;
           double y = 0.0;
           if (t <= 1.0) {
             y = -gravity / (N * N) * std::exp(-N * t) - gravity / N * t + gravity / (N * N);
           } else {
             y = gravity / (N * N) * (2.0 * std::exp(-N * (t - 1.0)) - std::exp(-N * t)) +
                 gravity / N * t - 2.0 * gravity / N * (1.0 + 1.0 / (2.0 * N));
           }
           if (y > 0.0) return std::nullopt;
           return Eigen::Vector2d(t - 1.0, y);
         }});
    return facts;
  }
};

}  // namespace crbench::cases
