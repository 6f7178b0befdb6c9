// bouncing-ball-penalty: a unit point dropped from height h0 onto f = y ≥ 0 under gravity g.
// Realized with the kozlov-impact preset (stiffness κN, damping 2k√N ẏ inside y < 0; Kozlov 1992
// §5), each contact is a damped half-oscillation of duration π/(ω√N), ω = √(κ − k²), that returns
// the point with −e times its arrival velocity, e = exp(−πk/ω) (Kozlov 1992 (12)). As N → ∞ the
// motion tends to the ideal bouncing ball with Newton restitution e: impact times
// t₁ = √(2h0/g), t_{j+1} = t_j + 2e^j v₁/g, apex heights e^{2j} h0 (v₁ = √(2 g h0)).
#pragma once

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "crbench/cases/case.hpp"

namespace crbench::cases {

struct BouncingBallPenalty : NoForce<1>, UnitMetric<1> {
  static constexpr int n = 1;
  static constexpr int m = 1;

  double h0, g;

  explicit BouncingBallPenalty(const ParamValues& p) : h0(p.at("h0")), g(p.at("g")) {}

  static CaseInfo info() {
    return {
        .name = "bouncing-ball-penalty",
        .description =
            "Unit point dropped from rest at height h0 onto f = y >= 0 under gravity g: q = y, T = "
            "y'^2/2, V = g y. With realization --preset kozlov-impact (stiffness kappa N, damping "
            "2 k sqrt(N) y', Kozlov 1992 section 5) each contact returns the point with "
            "restitution e = exp(-pi k/omega), omega = sqrt(kappa - k^2) (Kozlov 1992 (12)); as N "
            "grows the impact times and apex heights tend to the ideal ball's with that e: t1 = "
            "sqrt(2 h0/g), t(j+1) = t(j) + 2 e^j sqrt(2 g h0)/g, apex e^(2j) h0.",
        .params = {{.name = "h0",
                    .default_value = 1.0,
                    .min = 0.0,
                    .max = 1e6,
                    .min_inclusive = false,
                    .unit = "length",
                    .description = "drop height"},
                   {.name = "g",
                    .default_value = 1.0,
                    .min = 0.0,
                    .max = 1e6,
                    .min_inclusive = false,
                    .unit = "length/time^2",
                    .description = "gravity"}},
        .dof = n,
        .coordinates = {{"y", "length"}},
        .constraint_units = {"length"},
        .constraint_names = {"floor"},
        .constraints = m,
        .switches = switches,
        .solver_settings = {{"realization", "preset", "kozlov-impact", "the case's realization"},
                            {"limit", "preset", "kozlov-impact", "the limit of that realization"},
                            {"event-driven", "impact_law", "kozlov-impact",
                             "the restitution of the realization's kozlov-impact wall"},
                            {"moreau-jean", "impact_law", "kozlov-impact",
                             "the restitution of the realization's kozlov-impact wall"},
                            // Siconos has Newton's law only: the same e, that of the wall with
                            // the kozlov-impact defaults κ = 1, k = 0.1 on this unit point.
                            {"siconos-moreau-jean", "restitution",
                             format_number(restitution(1.0, 0.1)),
                             "the restitution of the realization's kozlov-impact wall (kappa 1, "
                             "k 0.1; Kozlov 1992 (12))"},
                            {"siconos-event-driven", "restitution",
                             format_number(restitution(1.0, 0.1)),
                             "the restitution of the realization's kozlov-impact wall (kappa 1, "
                             "k 0.1; Kozlov 1992 (12))"}},
    };
  }

  template <class S>
  S potential(const Vec<S, n>& q, const S& /*t*/) const {
    return g * q(0);
  }
  template <class S>
  Vec<S, m> constraints(const Vec<S, n>& q, const S& /*t*/) const {
    return Vec<S, m>(q(0));
  }
  State initial_state() const {
    return {.t = 0.0, .q = Vec<double, 1>(h0), .v = Vec<double, 1>(0.0)};
  }

  // Kozlov 1992 (12): the restitution the kozlov-impact medium produces on a unit point
  // (Λ = |∇f|²_{A⁻¹} = 1; in general e = exp(−πk/√(κ/Λ − k²)), solvers/impact_law.hpp).
  static double restitution(double kappa, double k) {
    return k * k >= kappa ? 0.0 : std::exp(-std::numbers::pi * k / std::sqrt(kappa - k * k));
  }
  // The first `count` impact times of the ideal ball with Newton restitution e.
  std::vector<double> impact_times(double e, int count) const {
    std::vector<double> times;
    const double v1 = std::sqrt(2.0 * g * h0);
    double t = std::sqrt(2.0 * h0 / g), speed = v1;
    for (int j = 0; j < count; ++j) {
      times.push_back(t);
      speed *= e;
      t += 2.0 * speed / g;
    }
    return times;
  }
  // Apex heights after the first `count` impacts: e^(2j) h0.
  std::vector<double> apex_heights(double e, int count) const {
    std::vector<double> heights;
    for (int j = 1; j <= count; ++j) heights.push_back(std::pow(e, 2 * j) * h0);
    return heights;
  }

  // Four impacts with the kozlov-impact defaults (κ = 1, k = 0.1: e ≈ 0.7289).
  double horizon() const {
    const auto times = impact_times(restitution(1.0, 0.1), 5);
    return 0.5 * (times[3] + times[4]);
  }

  Facts facts() const {
    Facts facts;
    facts.values.push_back({.name = "first impact time",
                            .value = std::sqrt(2.0 * h0 / g),
                            .source = "free fall from rest: h0 = g t^2/2"});
    facts.values.push_back({.name = "impact speed",
                            .value = std::sqrt(2.0 * g * h0),
                            .source = "energy: v^2/2 = g h0"});
    facts.values.push_back({.name = "restitution of the kozlov-impact defaults",
                            .value = restitution(1.0, 0.1),
                            .source = "Kozlov 1992 (12): e = exp(-pi k/omega), kappa 1, k 0.1"});
    // Until the first impact every model agrees: free fall (kozlov-impact's limit is the
    // classical ball: model_limit_name in solvers/model_parameters.hpp).
    const double gravity = g, height = h0, first = std::sqrt(2.0 * h0 / g);
    facts.trajectories.push_back(
        {.model = "classical",
         .source = "free fall until the first impact",
         .q = [gravity, height, first](double t, double) -> std::optional<Eigen::VectorXd> {
           if (t < 0.0 || t > first) return std::nullopt;
           return Vec<double, 1>(height - 0.5 * gravity * t * t);
         }});
    return facts;
  }
};

}  // namespace crbench::cases
