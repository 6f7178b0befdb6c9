// vibrating-table: a unit point on a table that moves as y_T(t) = a sin(ωt + p) — a controlled
// (time-dependent) constraint in the sense of Kirgetov 1964 — f = y − a sin(ωt + p) ≥ 0, gravity
// g, started on the table with its position and velocity. On the table ÿ = ÿ_T, so the multiplier
// of f is λ = g + ÿ_T = g − aω² sin(ωt + p): the classical model leaves where λ first crosses 0
// (at sin(ωt) = g/(aω²) for p = 0, when aω² > g); the viscous limit (Deryabin & Kozlov 1995
// Theorem 2) at the first positive zero of ∫λ dt = g t + aω(cos(ωt + p) − cos p). The phase p
// makes λ start decreasing (p = 0) or increasing (p = π): the two behaviours of the spring with a
// small added mass (Deryabin & Kozlov 1995 §4, docs/theory.md §3).
#pragma once

#include <cmath>
#include <numbers>
#include <optional>
#include <vector>

#include "crbench/cases/analysis.hpp"
#include "crbench/cases/case.hpp"

namespace crbench::cases {

struct VibratingTable : NoForce<1>, UnitMetric<1> {
  static constexpr int n = 1;
  static constexpr int m = 1;

  double a, omega, g, phase;

  explicit VibratingTable(const ParamValues& p)
      : a(p.at("a")), omega(p.at("omega")), g(p.at("g")), phase(p.at("phase")) {}

  static CaseInfo info() {
    return {
        .name = "vibrating-table",
        .description =
            "Unit point on a table moving as y_T(t) = a sin(omega t + phase), a controlled "
            "constraint (Kirgetov 1964): q = y, T = y'^2/2, V = g y, f = y - a sin(omega t + "
            "phase) >= 0, started on the table with its position and velocity. lambda = g - a "
            "omega^2 sin(omega t + phase): the classical model leaves where lambda first crosses "
            "0 (sin(omega t) = g/(a omega^2) at phase 0, when a omega^2 > g); the viscous limit "
            "at the first positive zero of g t + a omega (cos(omega t + phase) - cos(phase)) "
            "(Deryabin & Kozlov 1995 Theorem 2).",
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
                    .description = "gravity"},
                   {.name = "phase",
                    .default_value = 0.0,
                    .min = 0.0,
                    .max = 2.0 * std::numbers::pi,
                    .max_inclusive = false,
                    .unit = "rad",
                    .description = "phase of the table at t = 0; with lambda(0) = g - a omega^2 "
                                   "sin(phase) <= 0 the point leaves the table at once"}},
        .dof = n,
        .coordinates = {{"y", "length"}},
        .constraint_units = {"length"},
        .constraint_names = {"table"},
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
    return Vec<S, m>(q(0) - a * sin(omega * t + phase));
  }
  State initial_state() const {
    return {.t = 0.0,
            .q = Vec<double, 1>(a * std::sin(phase)),
            .v = Vec<double, 1>(a * omega * std::cos(phase))};
  }
  // λ(t) on the table.
  double multiplier(double t) const { return g - a * omega * omega * std::sin(omega * t + phase); }

  // The first positive zero of ∫λ dt, or none.
  std::optional<double> viscous_time() const {
    return phase == 0.0 ? viscous_time_at_phase_zero() : viscous_time_by_scan();
  }

  // Phase 0: I(t) = g t − a ω (1 − cos ω t) = t h(t), h = g − 2 a ω sin²(ω t/2)/t (written with
  // sin² against the cancellation of 1 − cos). sin²(x)/t, x = ω t/2, rises until tan x = 2x
  // (x* = 1.16556) and stays below that value afterwards (it is at most 1/t), so a zero exists iff
  // h(2x*/ω) ≤ 0, and then it is the one root of the decreasing h on (0, 2x*/ω]. A scan from 1e-3
  // of a period missed it where it lies earlier (a = 1e6, ω = 5: at 2g/(a ω³) = 1.6e-8, not
  // 25.13).
  std::optional<double> viscous_time_at_phase_zero() const {
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

  // Any phase: I(t) = g t + a ω (cos(ω t + p) − cos p) = g t − 2 a ω sin(ω t/2 + p) sin(ω t/2),
  // with I(t + 2π/ω) = I(t) + 2π g/ω > I(t): a first zero lies in the first period if anywhere.
  // I > 0 just after 0 needs λ(0) > 0. The scan runs geometrically from 1e-30 of the period to
  // 1e-3 of it (where an early zero lies at about −2λ(0)/λ'(0)), then in 4000 equal steps; a
  // double zero (I touching 0) between two scan points is missed.
  std::optional<double> viscous_time_by_scan() const {
    if (!(multiplier(0.0) > 0.0)) return std::nullopt;
    const auto I = [this](double t) {
      return g * t -
             2.0 * a * omega * std::sin(0.5 * omega * t + phase) * std::sin(0.5 * omega * t);
    };
    const double period = 2.0 * std::numbers::pi / omega;
    std::vector<double> scan;
    for (int k = 0; k <= 270; ++k) scan.push_back(period * std::pow(10.0, -30.0 + k * 0.1));
    for (int k = 1; k <= 4000; ++k) scan.push_back(period * (1e-3 + (1.0 - 1e-3) * k / 4000.0));
    double t_low = scan.front(), at_low = I(t_low);
    for (std::size_t i = 1; i < scan.size(); ++i) {
      const double t = scan[i], at = I(t);
      if (at == 0.0) return t;
      if (at_low > 0.0 && at < 0.0) {
        std::uintmax_t iterations = 200;
        const auto [lo, hi] = boost::math::tools::toms748_solve(
            I, t_low, t, at_low, at,
            [](double x, double y) { return std::abs(y - x) <= 4e-16 * std::max(x, y); },
            iterations);
        return 0.5 * (lo + hi);
      }
      t_low = t;
      at_low = at;
    }
    return std::nullopt;
  }

  // The first upward crossing of sin(ω t + p) = r = g/(a ω²) after t = 0, i.e. the first zero of
  // λ: with λ(0) > 0 the phase p (mod 2π) lies below asin r or above π − asin r, and the crossing
  // angle is asin r or asin r + 2π.
  std::optional<double> classical_time() const {
    const double r = g / (a * omega * omega);
    if (!(r < 1.0) || !(multiplier(0.0) > 0.0)) return std::nullopt;
    const double crossing = std::asin(r);
    if (phase == 0.0) return crossing / omega;
    return (phase <= crossing ? crossing - phase : crossing + 2.0 * std::numbers::pi - phase) /
           omega;
  }
  double horizon() const {
    const auto viscous = viscous_time();
    return viscous ? 1.5 * *viscous : 4.0 * 3.141592653589793 / omega;
  }

  Facts facts() const {
    Facts facts;
    if (const auto classical = classical_time()) {
      facts.lift_off.push_back({.model = "classical",
                                .time = *classical,
                                .source = "lambda = g - a omega^2 sin(omega t + phase) = 0"});
    }
    if (const auto viscous = viscous_time()) {
      facts.lift_off.push_back(
          {.model = "viscous",
           .time = *viscous,
           .source = "first positive zero of g t + a omega (cos(omega t + phase) - cos(phase)), "
                     "the integral of lambda (Deryabin & Kozlov 1995 Theorem 2)"});
    }
    return facts;
  }
};

}  // namespace crbench::cases
