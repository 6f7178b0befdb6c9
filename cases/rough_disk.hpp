// rough-disk: a uniform disk dropped onto a rough line (Berezinskaya, Sorokina & Kugushev 2003,
// "On unilateral nonholonomic constraints", §5: a system with a conditional constraint).
// q = (x, y, φ) in line coordinates (x along the line, y the centre's height above it, φ
// counter-clockwise); unit mass, radius r, J = r²/2; the line is tilted by `slope`, so gravity
// is (g sin slope, −g cos slope) and V = −g sin(slope) x + g cos(slope) y. The unilateral
// constraint f = y − r ≥ 0 keeps the disk above the line; while it is in contact the disk rolls
// without slipping, u = ẋ + r φ̇ = 0 (the velocity of the contact point): the conditional
// constraint of the paper, the kinematic row a = (1, 0, r) conditioned on f.
//
// The paper's impact law (§5; its formulas were lost in the text and are derived here from the
// set-up). The impulse acts at the contact point: normal P_n and tangential P_t give
// Δẏ = P_n, Δẋ = P_t, J Δφ̇ = r P_t, so Δu = P_t (1 + r²/J) = 3 P_t. Newton's law on the normal
// velocity, ẏ⁺ = −e ẏ⁻ (e: the solvers' `restitution`), and the roughness law on the slip,
// u⁺ = −e_t u⁻ (e_t = −1 smooth: no tangential impulse; 0 sticking; 1 the elastic rough ball),
// give
//   P_t = −(1 + e_t) u⁻/3,  ẋ⁺ = ẋ⁻ + P_t,  φ̇⁺ = φ̇⁻ + 2 P_t/r.
// With e = e_t = 1 the impact reflects (ẏ, u) in the kinetic metric and keeps the energy; then
// ẋ⁺ = (ẋ⁻ − 2 r φ̇⁻)/3, which is negative when the backspin r φ̇⁻ exceeds ẋ⁻/2: the
// "superball" rebound against the initial horizontal motion that the paper mentions. Once the
// bounces have died out (e < 1) the disk rolls with ẍ = g sin(slope)/(1 + J/r²) = (2/3) g
// sin(slope).
#pragma once

#include <cmath>
#include <string>

#include "crbench/cases/case.hpp"

namespace crbench::cases {

struct RoughDisk : NoForce<3>, PlanarBodyMetric {
  static constexpr int n = 3;
  static constexpr int m = 1;
  static constexpr int kinematic = 1;
  double radius, gravity, slope, slip_e, drop, vx0, omega0;

  explicit RoughDisk(const ParamValues& p)
      : PlanarBodyMetric{0.5 * p.at("r") * p.at("r")},
        radius(p.at("r")),
        gravity(p.at("g")),
        slope(p.at("slope")),
        slip_e(p.at("e_t")),
        drop(p.at("h0")),
        vx0(p.at("vx0")),
        omega0(p.at("omega0")) {}

  static CaseInfo info() {
    return {
        .name = "rough-disk",
        .description =
            "A uniform disk (unit mass, radius r, J = r^2/2) dropped onto a rough line tilted by "
            "slope (Berezinskaya, Sorokina & Kugushev 2003, section 5): q = (x, y, phi), "
            "V = -g sin(slope) x + g cos(slope) y, unilateral constraint f = y - r >= 0 and the "
            "conditional constraint u = x' + r phi' = 0 while in contact (rolling without "
            "slipping). Impacts: Newton's law on y' with the solvers' restitution e and the "
            "roughness law u+ = -e_t u- on the slip (e_t = -1 smooth, 0 sticking, 1 the elastic "
            "rough superball). After the bounces die out it rolls with x'' = (2/3) g sin(slope).",
        .params = {{.name = "r",
                    .default_value = 0.5,
                    .min = 0.0,
                    .max = 1e3,
                    .min_inclusive = false,
                    .unit = "length",
                    .description = "radius of the disk"},
                   {.name = "g",
                    .default_value = 1.0,
                    .min = 0.0,
                    .max = 1e3,
                    .min_inclusive = false,
                    .unit = "length/time^2",
                    .description = "gravity"},
                   {.name = "slope",
                    .default_value = 0.0,
                    .min = -1.5,
                    .max = 1.5,
                    .unit = "rad",
                    .description = "tilt of the line (gravity g sin(slope) along it)"},
                   {.name = "e_t",
                    .default_value = 0.0,
                    .min = -1.0,
                    .max = 1.0,
                    .description = "roughness: u+ = -e_t u- at an impact (-1 smooth, 0 sticking, "
                                   "1 elastic rough)"},
                   {.name = "h0",
                    .default_value = 1.0,
                    .min = 0.0,
                    .max = 1e3,
                    .min_inclusive = false,
                    .unit = "length",
                    .description = "drop height of the disk's lowest point"},
                   {.name = "vx0",
                    .default_value = 1.0,
                    .min = -1e3,
                    .max = 1e3,
                    .unit = "length/time",
                    .description = "initial velocity along the line"},
                   {.name = "omega0",
                    .default_value = 0.0,
                    .min = -1e3,
                    .max = 1e3,
                    .unit = "1/time",
                    .description = "initial spin (counter-clockwise)"}},
        .dof = n,
        .coordinates = {{"x", "length"}, {"y", "length"}, {"phi", "angle (rad)"}},
        .constraint_units = {"length"},
        .constraint_names = {"plane"},
        .constraints = m,
        .switches = switches,
        .kinematic_condition = {0},
        .solver_settings = {{"event-driven", "impact_law", "kozlov-impact",
                             "the restitution of the realization's kozlov-impact wall"},
                            {"moreau-jean", "impact_law", "kozlov-impact",
                             "the restitution of the realization's kozlov-impact wall"},
                            {"realization", "preset", "kozlov-impact",
                             "a normal impact of restitution exp(-pi k/omega) beside the slip "
                             "friction beta_t N (slip_beta)"}},
    };
  }

  double slip_restitution(int /*r*/) const { return slip_e; }

  template <class S>
  S potential(const Vec<S, n>& q, const S& /*t*/) const {
    return -gravity * std::sin(slope) * q(0) + gravity * std::cos(slope) * q(1);
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
    return {.t = 0.0,
            .q = Eigen::Vector3d(0.0, radius + drop, 0.0),
            .v = Eigen::Vector3d(vx0, 0.0, omega0)};
  }

  double horizon() const { return 6.0; }

  double normal_gravity() const { return gravity * std::cos(slope); }
  double first_impact_time() const { return std::sqrt(2.0 * drop / normal_gravity()); }

  // (ẋ, ẏ, φ̇) just before and just after the first impact, for normal restitution e.
  struct Impact {
    Eigen::Vector3d before, after;
  };
  Impact first_impact(double restitution) const {
    const double t1 = first_impact_time();
    Impact out;
    out.before = {vx0 + gravity * std::sin(slope) * t1, -normal_gravity() * t1, omega0};
    const double slip = out.before(0) + radius * out.before(2);
    const double tangential = -(1.0 + slip_e) * slip / (1.0 + radius * radius / inertia);
    out.after = {out.before(0) + tangential, -restitution * out.before(1),
                 out.before(2) + radius * tangential / inertia};
    return out;
  }

  Facts facts() const {
    Facts facts;
    const double t1 = first_impact_time();
    facts.trajectories.push_back(
        {.model = "classical",
         .source = "free flight up to the first impact (section 5)",
         .q = [this, t1](double t, double) -> std::optional<Eigen::VectorXd> {
           if (t < 0.0 || t > t1) return std::nullopt;
           return Eigen::VectorXd(Eigen::Vector3d(vx0 * t + 0.5 * gravity * std::sin(slope) * t * t,
                                                  radius + drop - 0.5 * normal_gravity() * t * t,
                                                  omega0 * t));
         }});
    const Impact impact = first_impact(1.0);
    const std::string law = "P_t = -(1 + e_t) u-/3 at the contact point (section 5)";
    facts.values.push_back(
        {.name = "first impact time", .value = t1, .source = "t1 = sqrt(2 h0/(g cos(slope)))"});
    facts.values.push_back(
        {.name = "x' after the first impact", .value = impact.after(0), .source = law});
    facts.values.push_back(
        {.name = "phi' after the first impact", .value = impact.after(2), .source = law});
    facts.values.push_back({.name = "y' before the first impact",
                            .value = impact.before(1),
                            .source = "-g cos(slope) t1; after it -e times this"});
    facts.values.push_back(
        {.name = "rolling acceleration",
         .value = gravity * std::sin(slope) / (1.0 + inertia / (radius * radius)),
         .source = "x'' = g sin(slope)/(1 + J/r^2) while rolling"});
    return facts;
  }
};

}  // namespace crbench::cases
