// painleve-rod: a uniform rod whose lower end slides on a rough floor (Painlevé's problem; the
// classification of Génot & Brogliato 1999). q = (x, y, θ): the centre and the angle from the
// floor, mass m, half-length l, I = m l²/3, V = m g y. The lower end A = (x + l cos θ,
// y − l sin θ) is on the floor: f = y − l sin θ ≥ 0 (`floor`), with the conditional row
// u = ẋ − l sin θ θ̇, A's horizontal velocity, under Coulomb friction μ.
//
// While A slides with s = sign u, the normal acceleration is affine in the reaction:
// f̈ = b + p λ with, from q̈ = M⁻¹(F + Jᵀλ − μ s aᵀλ), J = (0, 1, −l cos θ), a = (1, 0, −l sin θ),
//   p = (1/m)(1 + 3 cos²θ − 3 μ s sin θ cos θ),  b = −g + l sin θ θ̇².
// p > 0: a consistent slip, λ = −b/p while positive; p < 0 is Painlevé's paradox: for b < 0
// no λ ≥ 0 solves the contact problem (inconsistent), for b > 0 two do (indeterminate). Released
// with A sliding at u0, the centre's vertical velocity vy0 (0 unless set: a negative one is an
// impact at the start) and no angular velocity, b = −g < 0.
#pragma once

#include <cmath>

#include "crbench/cases/case.hpp"

namespace crbench::cases {

struct PainleveRod : NoForce<3> {
  static constexpr int n = 3;
  static constexpr int m = 1;
  static constexpr int kinematic = 1;
  double mass, l, gravity, mu, theta0, u0, vy0;

  explicit PainleveRod(const ParamValues& p)
      : mass(p.at("m")),
        l(p.at("l")),
        gravity(p.at("g")),
        mu(p.at("mu")),
        theta0(p.at("theta0")),
        u0(p.at("u0")),
        vy0(p.at("vy0")) {}

  static CaseInfo info() {
    return {
        .name = "painleve-rod",
        .description =
            "A uniform rod (mass m, half-length l, I = m l^2/3) whose lower end slides on a rough "
            "floor with Coulomb friction mu (Painleve's problem): q = (x, y, theta), the centre "
            "and the angle from the floor, V = m g y, unilateral constraint f = y - l sin(theta) "
            ">= 0 (floor) with the conditional row u = x' - l sin(theta) theta', the end's "
            "sliding velocity. Released at theta0 with the end sliding at u0 and the centre moving "
            "vertically at vy0 (0 unless set). While it slides, "
            "f'' = b + p lambda with p = (1 + 3 cos^2 - 3 mu sign(u) sin cos)/m and b = -g + l "
            "sin(theta) theta'^2: p < 0 is Painleve's paradox (Genot & Brogliato 1999); at mu = "
            "2, tan(theta0) = 2, u0 = 1 the start is inconsistent (p < 0, b < 0).",
        .params = {{.name = "m",
                    .default_value = 1.0,
                    .min = 0.0,
                    .max = 1e6,
                    .min_inclusive = false,
                    .unit = "mass",
                    .description = "mass of the rod"},
                   {.name = "l",
                    .default_value = 1.0,
                    .min = 0.0,
                    .max = 1e3,
                    .min_inclusive = false,
                    .unit = "length",
                    .description = "half-length of the rod"},
                   {.name = "g",
                    .default_value = 9.81,
                    .min = 0.0,
                    .max = 1e6,
                    .min_inclusive = false,
                    .unit = "length/time^2",
                    .description = "gravity"},
                   {.name = "mu",
                    .default_value = 0.3,
                    .min = 0.0,
                    .max = 100.0,
                    .description = "Coulomb's friction coefficient"},
                   {.name = "theta0",
                    .default_value = 0.7853981633974483,
                    .min = 0.0,
                    .max = 1.5707963267948966,
                    .min_inclusive = false,
                    .max_inclusive = false,
                    .unit = "rad",
                    .description = "initial angle of the rod from the floor"},
                   {.name = "u0",
                    .default_value = 1.0,
                    .min = -1e3,
                    .max = 1e3,
                    .unit = "length/time",
                    .description = "initial sliding velocity of the lower end"},
                   {.name = "vy0",
                    .default_value = 0.0,
                    .min = -1e3,
                    .max = 1e3,
                    .unit = "length/time",
                    .description = "initial vertical velocity of the centre (negative: the end "
                                   "approaches the floor at -vy0, an impact at the start)"}},
        .dof = n,
        .coordinates = {{"x", "length"}, {"y", "length"}, {"theta", "angle (rad)"}},
        .constraint_units = {"length"},
        .constraint_names = {"floor"},
        .constraints = m,
        .switches = switches,
        .kinematic_condition = {0},
        .coulomb_rows = {0},
    };
  }

  double friction_coefficient(int /*r*/) const { return mu; }

  template <class S>
  Mat<S, n, n> metric(const Vec<S, n>& /*q*/) const {
    Mat<S, n, n> A = Mat<S, n, n>::Zero();
    A(0, 0) = S(mass);
    A(1, 1) = S(mass);
    A(2, 2) = S(mass * l * l / 3.0);
    return A;
  }

  template <class S>
  S potential(const Vec<S, n>& q, const S& /*t*/) const {
    return mass * gravity * q(1);
  }

  template <class S>
  Vec<S, m> constraints(const Vec<S, n>& q, const S& /*t*/) const {
    using std::sin;
    return Vec<S, m>(q(1) - l * sin(q(2)));
  }

  // The row a = (1, 0, −l sin θ) of u = ẋ − l sin θ θ̇, the horizontal velocity of A.
  template <class S>
  Mat<S, kinematic, n> kinematic_rows(const Vec<S, n>& q, const S& /*t*/) const {
    using std::sin;
    Mat<S, kinematic, n> a;
    a << S(1.0), S(0.0), S(-l * sin(q(2)));
    return a;
  }

  State initial_state() const {
    return {.t = 0.0,
            .q = Eigen::Vector3d(0.0, l * std::sin(theta0), theta0),
            .v = Eigen::Vector3d(u0, vy0, 0.0)};
  }

  // A short stretch of the slide: the start, where the contact problem is decided.
  double horizon() const { return 0.1; }

  // p of f̈ = b + p λ at θ for a slide of sign s (the description's).
  double p(double theta, int s) const {
    const double c = std::cos(theta), si = std::sin(theta);
    return (1.0 + 3.0 * c * c - 3.0 * mu * s * si * c) / mass;
  }

  Facts facts() const {
    Facts facts;
    if (u0 != 0.0) {
      const int s = u0 > 0.0 ? 1 : -1;
      facts.values.push_back({.name = "p at the start",
                              .value = p(theta0, s),
                              .source = "(1 + 3 cos^2 - 3 mu s sin cos)/m (Genot & Brogliato "
                                        "1999 for this rod)"});
      if (p(theta0, s) > 0.0) {
        facts.values.push_back({.name = "lambda at the start",
                                .value = gravity / p(theta0, s),
                                .source = "-b/p with b = -g"});
      }
    }
    return facts;
  }
};

}  // namespace crbench::cases
