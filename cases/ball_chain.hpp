// ball-chain: Newton's cradle. n equal balls of mass m and diameter d on a line, q_i the centre of
// ball i; the first (the striker) moves at v0 towards the others, which are at rest with gaps
// `gap` between neighbours (0: touching, the classical cradle). Contacts between neighbours,
// f_k = q_{k+1} − q_k − d ≥ 0, k = 0 … n − 2; no forces (T = m Σ q̇_i²/2, V = 0).
//
// Facts (Kugushev & Sorokina 2002 §1: impacts conserve momentum for internal contacts, and energy
// with restitution e = 1): momentum m v0 and, for e = 1, energy m v0²/2. With gaps the impacts
// are binary and sequential, and for e = 1 each one exchanges the velocities of two equal balls:
// the last ball leaves at v0, the others at rest. With touching balls the impacts are
// simultaneous and the outcome depends on the impact law (a simultaneous Newton law on all
// contacts, as Moreau–Jean's LCP, does not give the cradle's); tests and the docs report what
// each solver gives. A realization may give contact k the stiffness γN r^−k and the law
// γN r^−k (−f)^η (`stiffness_ratio` r, `exponent` η: Hertz's 3/2 for elastic spheres): with the
// balls touching and no forces, the impact's outcome is then the same for every N (time and
// length scaled by N^(−1/(η+1)) carry one N into another at the same velocities), and depends on
// r and η.
//
// The chain is not a fixed-size Case: n is a parameter up to 1000, and a fixed-size case would
// carry n×n matrices and (n+1)-long derivative vectors per constraint. It is a chain case
// (solvers/chain_model.hpp): a constant diagonal metric and one contact function per pair of
// neighbours, `contact<S>(left, right)`, differentiated by AD over its two arguments.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <string>

#include "crbench/cases/case.hpp"

namespace crbench::cases {

struct BallChain {
  int balls;
  double mass;
  double diameter;
  double gap;
  double v0;
  double stiffness_ratio;
  double exponent;

  explicit BallChain(const ParamValues& p)
      : balls(static_cast<int>(p.at("n"))),
        mass(p.at("m")),
        diameter(p.at("d")),
        gap(p.at("gap")),
        v0(p.at("v0")),
        stiffness_ratio(p.at("stiffness_ratio")),
        exponent(p.at("exponent")) {
    // The last contact's scale r^−(n−2) must stay a normal double.
    if (std::abs(static_cast<double>(balls - 2) * std::log10(stiffness_ratio)) > 300.0) {
      throw InputError(
          "stiffness_ratio: r^(n - 2) = 10^" +
          std::to_string(static_cast<double>(balls - 2) * std::log10(stiffness_ratio)) +
          " with n = " + std::to_string(balls) + "; accepted: |(n - 2) log10 r| <= 300");
    }
  }

  static CaseInfo info() {
    return {
        .name = "ball-chain",
        .description =
            "Newton's cradle: n equal balls (mass m, diameter d) on a line, q_i the centre of ball "
            "i; ball 0 moves at v0 towards the others, at rest with gaps `gap` between neighbours "
            "(0: touching). Unilateral contacts f_k = q_{k+1} - q_k - d >= 0 between neighbours, "
            "no forces; impacts by Newton's law with the solver's restitution e (Kugushev & "
            "Sorokina 2002 (1.3)-(1.4)). Momentum m v0 is kept, and energy m v0^2/2 for e = 1. "
            "With gaps the impacts are binary and sequential (e = 1: the last ball leaves at v0); "
            "touching balls collide simultaneously, and the outcome depends on the impact law; "
            "under a realization, on the stiffness ratio r and the exponent eta of the contacts' "
            "springs (gamma N r^-k (-f)^eta on contact k). "
            "n = dof, n - 1 constraints (a chain case: sizes set by the parameter n).",
        .params = {{.name = "n",
                    .default_value = 5,
                    .min = 2,
                    .max = 1000,
                    .description = "number of balls, the striker included",
                    .whole = true},
                   {.name = "m",
                    .default_value = 1.0,
                    .min = 0.0,
                    .max = 1e6,
                    .min_inclusive = false,
                    .unit = "mass",
                    .description = "mass of each ball"},
                   {.name = "d",
                    .default_value = 1.0,
                    .min = 0.0,
                    .max = 1e3,
                    .min_inclusive = false,
                    .unit = "length",
                    .description = "diameter of each ball"},
                   {.name = "gap",
                    .default_value = 0.0,
                    .min = 0.0,
                    .max = 1e3,
                    .unit = "length",
                    .description = "initial gap between neighbours (the striker's included)"},
                   {.name = "v0",
                    .default_value = 1.0,
                    .min = 0.0,
                    .max = 1e3,
                    .min_inclusive = false,
                    .unit = "length/time",
                    .description = "initial velocity of the striker, ball 0"},
                   {.name = "stiffness_ratio",
                    .default_value = 1.0,
                    .min = 1e-3,
                    .max = 1e3,
                    .description = "the realization's stiffness of contact k is gamma N r^-k "
                                   "(k = 0 the striker's), so k_01/k_12 = r; the ideal models do "
                                   "not depend on it"},
                   {.name = "exponent",
                    .default_value = 1.0,
                    .min = 1.0,
                    .max = 2.0,
                    .description = "the realization's contact law, force gamma N r^-k (-f)^eta: "
                                   "1 linear, 1.5 Hertz (elastic spheres); the ideal models do "
                                   "not depend on it"}},
        .dof = 5,
        .coordinates = {{"x", "length"}},
        .constraint_units = {"length"},
        .constraint_names = {"contact"},
        .constraints = 4,
        .switches = 0,
        .solver_settings = {{"event-driven", "restitution", "1", "Newton's cradle is elastic"},
                            {"moreau-jean", "restitution", "1", "Newton's cradle is elastic"},
                            {"limit", "restitution", "1", "Newton's cradle is elastic"},
                            {"siconos-moreau-jean", "restitution", "1",
                             "Newton's cradle is elastic"},
                            {"siconos-event-driven", "restitution", "1",
                             "Newton's cradle is elastic"}},
    };
  }

  int dof() const { return balls; }
  // The realization's spring on contact k (Model::contact_law).
  ContactLaw contact_law(int k) const {
    return {.scale = std::pow(stiffness_ratio, -static_cast<double>(k)), .exponent = exponent};
  }
  double ball_mass(int /*i*/) const { return mass; }

  // f_k between ball k (left) and ball k + 1 (right).
  template <class S>
  S contact(const S& left, const S& right) const {
    return right - left - diameter;
  }

  State initial_state() const {
    State x;
    x.t = 0.0;
    x.q.resize(balls);
    x.v = Eigen::VectorXd::Zero(balls);
    for (int i = 0; i < balls; ++i) x.q(i) = static_cast<double>(i) * (diameter + gap);
    x.v(0) = v0;
    return x;
  }

  // The impulse crosses the chain and the last ball travels as far again.
  double horizon() const { return (static_cast<double>(balls) * (gap + diameter) + diameter) / v0; }

  Facts facts() const {
    Facts facts;
    facts.values.push_back({.name = "momentum",
                            .value = mass * v0,
                            .source = "internal contacts conserve the total momentum "
                                      "(Kugushev & Sorokina 2002 (1.3))"});
    facts.values.push_back({.name = "energy (e = 1)",
                            .value = 0.5 * mass * v0 * v0,
                            .source = "elastic impacts conserve the kinetic energy"});
    if (gap > 0.0) {
      facts.values.push_back(
          {.name = "last ball's velocity (e = 1)",
           .value = v0,
           .source = "binary elastic impacts of equal masses exchange the velocities"});
    }
    return facts;
  }
};

}  // namespace crbench::cases
