// rolling-disk: a disk (or a sphere) launched on a rough horizontal floor sliding with spin, under
// Coulomb friction; it slides until its contact point stops, then rolls (docs/theory.md §2,
// "Coulomb friction"). q = (x, y, φ): the centre and the rotation (counter-clockwise), unit mass,
// radius r, J = k r² (k = 1/2 the disk, 2/5 the sphere: `sphere`), V = g y. The unilateral
// constraint f = y − r ≥ 0 (`floor`) carries the conditional row u = ẋ + r φ̇, the velocity of
// the contact point, under Coulomb's μ.
//
// On the floor λ = g. While it slides with s = sign u the friction −μ g s acts at the contact
// point: ẍ = −μ g s, J φ̈ = −μ g s r, so u̇ = −μ g s (1 + 1/k) and the slip stops at
// t_r = |u0| / (μ g (1 + 1/k)). The friction's moment about the contact point is 0, so
// ẋ − (J/r) φ̇ is kept: the rolling speed after t_r is v_r = (ẋ0 − k r φ̇0)/(1 + k), whatever
// μ. Rolling on the level floor needs no friction: the disk keeps v_r.
#pragma once

#include <cmath>
#include <optional>

#include "crbench/cases/case.hpp"

namespace crbench::cases {

struct RollingDisk : NoForce<3>, PlanarBodyMetric {
  static constexpr int n = 3;
  static constexpr int m = 1;
  static constexpr int kinematic = 1;
  double radius, gravity, mu, k, vx0, omega0;

  explicit RollingDisk(const ParamValues& p)
      : PlanarBodyMetric{(p.at("sphere") != 0.0 ? 0.4 : 0.5) * p.at("r") * p.at("r")},
        radius(p.at("r")),
        gravity(p.at("g")),
        mu(p.at("mu")),
        k(p.at("sphere") != 0.0 ? 0.4 : 0.5),
        vx0(p.at("vx0")),
        omega0(p.at("omega0")) {}

  static CaseInfo info() {
    return {
        .name = "rolling-disk",
        .description =
            "A uniform disk (J = r^2/2), or a sphere (J = 2 r^2/5, sphere = 1), of unit mass "
            "launched on a rough floor with Coulomb friction mu: q = (x, y, phi), V = g y, "
            "unilateral constraint f = y - r >= 0 (floor) with the conditional row u = x' + r "
            "phi' (the contact point's velocity) held while |nu| <= mu lambda, else the friction "
            "-mu lambda sign(u). Launched at x' = vx0 with spin omega0 it slides until "
            "t_r = |u0|/(mu g (1 + r^2/J)), then rolls at v_r = (vx0 - (J/r) omega0)/(1 + J/r^2), "
            "whatever mu.",
        .params = {{.name = "r",
                    .default_value = 0.5,
                    .min = 0.0,
                    .max = 1e3,
                    .min_inclusive = false,
                    .unit = "length",
                    .description = "radius"},
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
                    .min_inclusive = false,
                    .description = "Coulomb's friction coefficient"},
                   {.name = "sphere",
                    .default_value = 0.0,
                    .min = 0.0,
                    .max = 1.0,
                    .description = "0: a disk (J = r^2/2); 1: a sphere (J = 2 r^2/5)",
                    .whole = true},
                   {.name = "vx0",
                    .default_value = 2.0,
                    .min = -1e3,
                    .max = 1e3,
                    .unit = "length/time",
                    .description = "initial velocity of the centre"},
                   {.name = "omega0",
                    .default_value = 4.0,
                    .min = -1e4,
                    .max = 1e4,
                    .unit = "1/time",
                    .description = "initial spin (counter-clockwise; positive spin is backspin "
                                   "for vx0 > 0)"}},
        .dof = n,
        .coordinates = {{"x", "length"}, {"y", "length"}, {"phi", "angle (rad)"}},
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
  S potential(const Vec<S, n>& q, const S& /*t*/) const {
    return gravity * q(1);
  }

  template <class S>
  Vec<S, m> constraints(const Vec<S, n>& q, const S& /*t*/) const {
    return Vec<S, m>(q(1) - radius);
  }

  // The row a = (1, 0, r) of u = ẋ + r φ̇.
  template <class S>
  Mat<S, kinematic, n> kinematic_rows(const Vec<S, n>& /*q*/, const S& /*t*/) const {
    Mat<S, kinematic, n> a;
    a << S(1.0), S(0.0), S(radius);
    return a;
  }

  State initial_state() const {
    return {
        .t = 0.0, .q = Eigen::Vector3d(0.0, radius, 0.0), .v = Eigen::Vector3d(vx0, 0.0, omega0)};
  }

  double initial_slip() const { return vx0 + radius * omega0; }
  // When the slip stops (0 for a disk launched rolling).
  double roll_time() const { return std::abs(initial_slip()) / (mu * gravity * (1.0 + 1.0 / k)); }
  double roll_speed() const { return (vx0 - k * radius * omega0) / (1.0 + k); }

  double horizon() const { return roll_time() > 0.0 ? 2.0 * roll_time() : 1.0; }

  // The classical motion: the slide with the friction against the slip, then rolling at v_r.
  std::optional<Eigen::VectorXd> classical_q(double t) const {
    const double s = initial_slip() > 0.0 ? 1.0 : initial_slip() < 0.0 ? -1.0 : 0.0;
    const double tr = roll_time(), a = -mu * gravity * s;
    const double slide = std::min(t, tr), rolled = std::max(0.0, t - tr);
    const double x = vx0 * slide + 0.5 * a * slide * slide + roll_speed() * rolled;
    const double phi = omega0 * slide + 0.5 * (a * radius / (k * radius * radius)) * slide * slide -
                       roll_speed() / radius * rolled;
    return Eigen::Vector3d(x, radius, phi);
  }

  Facts facts() const {
    Facts facts;
    const RollingDisk self = *this;
    facts.trajectories.push_back(
        {.model = "classical",
         .source = "Coulomb's law on the level floor: lambda = g; x'' = -mu g s, J phi'' = -mu g "
                   "s r while the contact point slides with s = sign(x' + r phi'), then rolling "
                   "at v_r = (vx0 - (J/r) omega0)/(1 + J/r^2)",
         .q = [self](double t, double) { return self.classical_q(t); }});
    facts.values.push_back({.name = "time the disk starts to roll",
                            .value = roll_time(),
                            .source = "|vx0 + r omega0| / (mu g (1 + r^2/J))"});
    facts.values.push_back({.name = "rolling speed",
                            .value = roll_speed(),
                            .source = "(vx0 - (J/r) omega0)/(1 + J/r^2): x' - (J/r) phi' is kept"});
    return facts;
  }
};

}  // namespace crbench::cases
