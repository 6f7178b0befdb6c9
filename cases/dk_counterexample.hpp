// dk-counterexample: the counterexample of Deryabin & Kozlov (Deryabin & Kozlov 1995, §3,
// after Proposition 2): z'' + z = −μ(t) with μ = 1 on [0, 3π/2] and 1/2 after. As a mechanical
// system: a unit point on the line f = y ≥ 0 pressed by the force −μ(t) along y (a time switch at
// 3π/2), so that λ = μ > 0 throughout. In the (1,0,1) model z = (−1 + sin t)/2 + cos t after 3π/2
// (the paper's formula), z(2π) = 1/2: z vanishes at 2π + atan(1/2) − acos(1/√5) ≈ 5.6397 in
// (3π/2, 2π) although λ never does — the zero of z need not lie to the right of the zero of μ.
// There λ = 1/2 > 0, so Theorem 1's lift-off condition λ(τ) < 0 fails at that zero.
#pragma once

#include <cmath>
#include <numbers>

#include "crbench/cases/case.hpp"

namespace crbench::cases {

struct DkCounterexample : UnitMetric<2> {
  static constexpr int n = 2;
  static constexpr int m = 1;
  static constexpr int switches = 1;

  double mu_before;
  double mu_after;
  double switch_time;

  explicit DkCounterexample(const ParamValues& p)
      : mu_before(p.at("mu_before")),
        mu_after(p.at("mu_after")),
        switch_time(p.at("switch_time")) {}

  static CaseInfo info() {
    return {
        .name = "dk-counterexample",
        .description =
            "Deryabin-Kozlov counterexample (Deryabin & Kozlov 1995, section 3, after Proposition "
            "2): unit point, q = (x, y), f = y >= 0, force (0, -mu(t)) with mu = mu_before (1) for "
            "t <= switch_time (3 pi/2) and mu_after (1/2) after; initial (x, y, x', y') = (0, 0, "
            "1, 0). On the constraint lambda = mu > 0 throughout. In the (1,0,1) model z'' + z = "
            "-lambda gives z = (-1 + sin t)/2 + cos t after 3 pi/2 and z(2 pi) = 1/2: z vanishes "
            "at 2 pi + atan(1/2) - acos(1/sqrt 5) = 5.6397 although lambda does not, and lambda = "
            "1/2 > 0 there, so Theorem 1 does not predict a lift-off at that zero.",
        .params = {{.name = "mu_before",
                    .default_value = 1.0,
                    .min = 0.0,
                    .max = 1e6,
                    .min_inclusive = false,
                    .unit = "force",
                    .description = "pressing force before the switch"},
                   {.name = "mu_after",
                    .default_value = 0.5,
                    .min = 0.0,
                    .max = 1e6,
                    .min_inclusive = false,
                    .unit = "force",
                    .description = "pressing force after the switch"},
                   {.name = "switch_time",
                    .default_value = 1.5 * std::numbers::pi,
                    .min = 0.0,
                    .max = 1e3,
                    .min_inclusive = false,
                    .unit = "time",
                    .description = "time of the switch"}},
        .dof = n,
        .coordinates = {{"x", "length"}, {"y", "length"}},
        .constraint_units = {"length"},
        .constraint_names = {"plane"},
        .constraints = m,
        .switches = switches,
        .switch_names = {"t - switch_time"},
    };
  }

  template <class S>
  S potential(const Vec<S, n>& /*q*/, const S& /*t*/) const {
    return S(0.0);
  }
  template <class S>
  Vec<S, n> force(const Vec<S, n>& /*q*/, const Vec<S, n>& /*v*/, const S& /*t*/,
                  Modes modes) const {
    return Vec<S, n>(S(0.0), S(modes[0] > 0 ? -mu_after : -mu_before));
  }
  template <class S>
  Vec<S, m> constraints(const Vec<S, n>& q, const S& /*t*/) const {
    return Vec<S, m>(q(1));
  }
  Vec<double, switches> switching(const Vec<double, n>&, const Vec<double, n>&, double t) const {
    return Vec<double, switches>(t - switch_time);
  }
  State initial_state() const {
    return {.t = 0.0, .q = Eigen::Vector2d(0.0, 0.0), .v = Eigen::Vector2d(1.0, 0.0)};
  }
  double horizon() const { return 2.0 * std::numbers::pi + 0.5; }

  Facts facts() const {
    Facts facts;
    facts.trajectories.push_back(
        {.model = "classical",
         .source = "lambda = mu > 0 throughout: the point slides on y = 0, x = t",
         .q = [](double t, double) -> std::optional<Eigen::VectorXd> {
           return Eigen::Vector2d(t, 0.0);
         }});
    // The paper's values hold for the default parameters only.
    if (mu_before == 1.0 && mu_after == 0.5 && switch_time == 1.5 * std::numbers::pi) {
      facts.values.push_back(
          {.name = "z(2 pi) in the (1,0,1) model",
           .value = 0.5,
           .source = "Deryabin & Kozlov 1995 section 3: z(t) = (-1 + sin t)/2 + cos t"});
      facts.values.push_back(
          {.name = "first zero of z in the (1,0,1) model",
           .value = 2.0 * std::numbers::pi + std::atan(0.5) - std::acos(1.0 / std::sqrt(5.0)),
           .source = "cos t + (sin t)/2 = 1/2 on (3 pi/2, 2 pi), from the paper's z(t)"});
    }
    return facts;
  }
};

}  // namespace crbench::cases
