// vibrating-table: a unit point on a table that moves as y_T(t) = a sin(ωt) — a controlled
// (time-dependent) constraint in the sense of Kirgetov 1964 (Kirgetov) — f = y − a sin(ωt) ≥ 0,
// gravity g, started on the table with its velocity aω. On the table ÿ = ÿ_T, so the multiplier of
// f is λ = g + ÿ_T = g − aω² sin(ωt): the classical model leaves at sin(ωt) = g/(aω²) (when aω² >
// g); the viscous limit (Deryabin & Kozlov 1995 Theorem 2) at the first positive zero of ∫λ dt = g
// t − aω(1 − cos ωt).
#pragma once

#include <cmath>

#include "crbench/cases/analysis.hpp"
#include "crbench/cases/case.hpp"

namespace crbench::cases {

struct VibratingTable : NoForce<1>, UnitMetric<1> {
  static constexpr int n = 1;
  static constexpr int m = 1;

  double a, omega, g;

  explicit VibratingTable(const ParamValues& p)
      : a(p.at("a")), omega(p.at("omega")), g(p.at("g")) {}

  static CaseInfo info() {
    return {
        .name = "vibrating-table",
        .description =
            "Unit point on a table moving as y_T(t) = a sin(omega t), a controlled constraint "
            "(Kirgetov 1964): q = y, T = y'^2/2, V = g y, f = y - a sin(omega t) >= 0, started on "
            "the table with its velocity a omega. lambda = g - a omega^2 sin(omega t): the "
            "classical model leaves at sin(omega t) = g/(a omega^2) (a omega^2 > g); the viscous "
            "limit at the first positive zero of g t - a omega (1 - cos(omega t)) (Deryabin & "
            "Kozlov 1995 Theorem 2).",
        .params = {{.name = "a",
                    .default_value = 0.1,
                    .min = 0.0,
                    .max = 1e6,
                    .min_inclusive = false,
                    .unit = "length",
                    .description = "amplitude of the table"},
                   {.name = "omega",
                    .default_value = 5.0,
                    .min = 0.0,
                    .max = 1e6,
                    .min_inclusive = false,
                    .unit = "1/time",
                    .description = "angular frequency"},
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
        .constraints = m,
        .switches = switches,
        .solver_settings = {{"moreau-jean", "restitution", "0",
                             "the point rests on the table from the start; with e = 1 the "
                             "velocity-level Newton law bounces it off the moving table"},
                            {"siconos-moreau-jean", "restitution", "0",
                             "the point rests on the table from the start; with e = 1 the "
                             "velocity-level Newton law bounces it off the moving table"}},
    };
  }

  template <class S>
  S potential(const Vec<S, n>& q, const S& /*t*/) const {
    return g * q(0);
  }
  template <class S>
  Vec<S, m> constraints(const Vec<S, n>& q, const S& t) const {
    using std::sin;
    return Vec<S, m>(q(0) - a * sin(omega * t));
  }
  State initial_state() const {
    return {.t = 0.0, .q = Vec<double, 1>(0.0), .v = Vec<double, 1>(a * omega)};
  }

  // The first positive zero of I(t) = g t − a ω (1 − cos ω t) = t h(t), h = g − 2 a ω sin²(ω t/2)/t
  // (written with sin² against the cancellation of 1 − cos). sin²(x)/t, x = ω t/2, rises until
  // tan x = 2x (x* = 1.16556) and stays below that value afterwards (it is at most 1/t), so a zero
  // exists iff h(2x*/ω) ≤ 0, and then it is the one root of the decreasing h on (0, 2x*/ω]. A scan
  // from 1e-3 of a period missed it where it lies earlier (a = 1e6, ω = 5: at 2g/(a ω³) = 1.6e-8,
  // not 25.13).
  std::optional<double> viscous_time() const {
    const auto h = [this](double t) {
      const double s = std::sin(0.5 * omega * t);
      return g - 2.0 * a * omega * s * s / t;
    };
    const double t_peak = 2.0 * 1.1655611852072113 / omega;
    const double at_peak = h(t_peak);
    if (at_peak > 0.0) return std::nullopt;
    if (at_peak == 0.0) return t_peak;
    const double t_low = 1e-30 * t_peak;
    std::uintmax_t iterations = 200;
    const auto [lo, hi] = boost::math::tools::toms748_solve(
        h, t_low, t_peak, h(t_low), at_peak,
        [](double x, double y) { return std::abs(y - x) <= 4e-16 * std::max(x, y); }, iterations);
    return 0.5 * (lo + hi);
  }
  double horizon() const {
    const auto viscous = viscous_time();
    return viscous ? 1.5 * *viscous : 4.0 * 3.141592653589793 / omega;
  }

  Facts facts() const {
    Facts facts;
    if (a * omega * omega > g) {
      facts.lift_off.push_back({.model = "classical",
                                .time = std::asin(g / (a * omega * omega)) / omega,
                                .source = "lambda = g - a omega^2 sin(omega t) = 0"});
    }
    if (const auto viscous = viscous_time()) {
      facts.lift_off.push_back(
          {.model = "viscous",
           .time = *viscous,
           .source = "first positive zero of g t - a omega (1 - cos omega t), the integral of "
                     "lambda (Deryabin & Kozlov 1995 Theorem 2)"});
    }
    return facts;
  }
};

}  // namespace crbench::cases
