// block-on-incline: a point block on a rough incline under Coulomb friction, the first case of
// dry friction (docs/theory.md §2, "Coulomb friction"). q = (x, y): x down the incline, y the
// height above it; unit mass, gravity g, the incline at `angle` θ, so V = −g sin θ x + g cos θ y.
// The unilateral constraint f = y ≥ 0 (`incline`) carries the conditional row u = ẋ, the slip
// velocity of the contact point, with Coulomb's coefficient μ: while |ν| ≤ μ λ the block sticks
// (ẍ = 0), otherwise it slides against the force −μ λ sign(ẋ). An optional force k t down the
// incline (`ramp`) makes a block at rest start to slide.
//
// On the incline λ = g cos θ (the constraint's reaction: f̈ = 0 with nothing along y but gravity),
// and while the block sticks ν = −(g sin θ + k t). So:
//   sliding down (ẋ > 0): ẍ = g sin θ + k t − μ g cos θ =: a + k t;
//   at rest: it stays while g sin θ + k t ≤ μ g cos θ, i.e. until t_s = (μ g cos θ − g sin θ)/k
//   (never at k = 0 when tan θ ≤ μ), and slides after with x = k (t − t_s)³/6.
// Launched down at v0 > 0 with a < 0 (tan θ < μ, k = 0) it stops at t* = v0/(−a), at
// x* = v0²/(2(−a)), and stays: the slip velocity reaches 0 where sticking is consistent.
#pragma once

#include <cmath>
#include <limits>

#include "crbench/cases/case.hpp"

namespace crbench::cases {

struct BlockOnIncline : UnitMetric<2> {
  static constexpr int n = 2;
  static constexpr int m = 1;
  static constexpr int switches = 0;
  static constexpr int kinematic = 1;
  double angle, mu, gravity, v0, ramp;

  explicit BlockOnIncline(const ParamValues& p)
      : angle(p.at("angle")),
        mu(p.at("mu")),
        gravity(p.at("g")),
        v0(p.at("v0")),
        ramp(p.at("ramp")) {}

  static CaseInfo info() {
    return {
        .name = "block-on-incline",
        .description =
            "A point block (unit mass) on a rough incline at angle theta with Coulomb friction "
            "mu: q = (x, y), x down the incline, y the height above it, V = -g sin(theta) x + "
            "g cos(theta) y, unilateral constraint f = y >= 0 (incline) with the conditional row "
            "u = x' (the slip velocity) held while |nu| <= mu lambda, else the friction force "
            "-mu lambda sign(x'); an optional force ramp t down the incline. Released on the "
            "incline at x' = v0: it slides with x'' = g(sin(theta) - mu cos(theta)) and stops "
            "at t = v0/(g(mu cos(theta) - sin(theta))) when tan(theta) < mu; at rest it starts to "
            "slide when g sin(theta) + ramp t reaches mu g cos(theta), then x = ramp (t - "
            "t_s)^3/6.",
        .params = {{.name = "angle",
                    .default_value = 0.3,
                    .min = 0.0,
                    .max = 1.5,
                    .unit = "rad",
                    .description = "angle of the incline"},
                   {.name = "mu",
                    .default_value = 0.5,
                    .min = 0.0,
                    .max = 100.0,
                    .description = "Coulomb's friction coefficient"},
                   {.name = "g",
                    .default_value = 9.81,
                    .min = 0.0,
                    .max = 1e6,
                    .min_inclusive = false,
                    .unit = "length/time^2",
                    .description = "gravity"},
                   {.name = "v0",
                    .default_value = 1.0,
                    .min = 0.0,
                    .max = 1e3,
                    .unit = "length/time",
                    .description = "initial velocity down the incline"},
                   {.name = "ramp",
                    .default_value = 0.0,
                    .min = 0.0,
                    .max = 1e6,
                    .unit = "length/time^3",
                    .description = "rate k of the force k t down the incline"}},
        .dof = n,
        .coordinates = {{"x", "length"}, {"y", "length"}},
        .constraint_units = {"length"},
        .constraint_names = {"incline"},
        .constraints = m,
        .switches = switches,
        .kinematic_condition = {0},
        .coulomb_rows = {0},
    };
  }

  double friction_coefficient(int /*r*/) const { return mu; }

  template <class S>
  S potential(const Vec<S, n>& q, const S& /*t*/) const {
    return -gravity * std::sin(angle) * q(0) + gravity * std::cos(angle) * q(1);
  }

  template <class S>
  Vec<S, n> force(const Vec<S, n>& /*q*/, const Vec<S, n>& /*v*/, const S& t,
                  Modes /*modes*/) const {
    return Vec<S, n>(ramp * t, S(0.0));
  }

  Vec<double, 0> switching(const Vec<double, n>&, const Vec<double, n>&, double) const {
    return {};
  }

  template <class S>
  Vec<S, m> constraints(const Vec<S, n>& q, const S& /*t*/) const {
    return Vec<S, m>(q(1));
  }

  // The row a = (1, 0) of u = ẋ.
  template <class S>
  Mat<S, kinematic, n> kinematic_rows(const Vec<S, n>& /*q*/, const S& /*t*/) const {
    Mat<S, kinematic, n> a;
    a << S(1.0), S(0.0);
    return a;
  }

  State initial_state() const {
    return {.t = 0.0, .q = Eigen::Vector2d(0.0, 0.0), .v = Eigen::Vector2d(v0, 0.0)};
  }

  // The sliding deceleration a = g(sin θ − μ cos θ).
  double slide_acceleration() const { return gravity * (std::sin(angle) - mu * std::cos(angle)); }
  // When a block launched at v0 > 0 with a < 0 and no ramp comes to rest; infinity otherwise.
  double stop_time() const {
    const double a = slide_acceleration();
    return v0 > 0.0 && a < 0.0 && ramp == 0.0 ? v0 / -a : std::numeric_limits<double>::infinity();
  }
  // When a block at rest starts to slide under the ramp; infinity where it never does.
  double slip_time() const {
    const double a = slide_acceleration();
    if (v0 > 0.0) return std::numeric_limits<double>::infinity();
    if (a > 0.0) return 0.0;
    return ramp > 0.0 ? -a / ramp : std::numeric_limits<double>::infinity();
  }

  // Twice the time of the event that decides the motion, or 2 without one.
  double horizon() const {
    const double t = std::isfinite(stop_time()) ? stop_time() : slip_time();
    return std::isfinite(t) && t > 0.0 ? 2.0 * t : 2.0;
  }

  // The classical motion: a slide that stops, a slide that does not, rest, or rest then a slide
  // under the ramp (the description's closed forms).
  std::optional<Eigen::VectorXd> classical_q(double t) const {
    const double a = slide_acceleration();
    if (v0 > 0.0) {
      if (ramp != 0.0) return std::nullopt;  // a slide under the ramp: not in closed form here
      const double s = std::min(t, stop_time());
      return Eigen::Vector2d(v0 * s + 0.5 * a * s * s, 0.0);
    }
    const double ts = slip_time();
    if (!(t > ts)) return Eigen::Vector2d(0.0, 0.0);
    const double d = t - ts;
    // From rest at ts: ẍ = a + k t = k (t − ts) past the threshold, or a > 0 from t = 0.
    return Eigen::Vector2d(
        ts > 0.0 ? ramp * d * d * d / 6.0 : 0.5 * a * d * d + ramp * d * d * d / 6.0, 0.0);
  }

  Facts facts() const {
    Facts facts;
    const BlockOnIncline self = *this;
    facts.trajectories.push_back(
        {.model = "classical",
         .source = "Coulomb's law on the incline: lambda = g cos(theta); x'' = g(sin(theta) - mu "
                   "cos(theta)) + ramp t while sliding down, rest while g sin(theta) + ramp t <= "
                   "mu g cos(theta)",
         .q = [self](double t, double) { return self.classical_q(t); }});
    if (std::isfinite(stop_time())) {
      facts.values.push_back({.name = "time the slide stops",
                              .value = stop_time(),
                              .source = "v0 / (g (mu cos(theta) - sin(theta)))"});
    }
    if (const double ts = slip_time(); std::isfinite(ts) && ts > 0.0) {
      facts.values.push_back({.name = "time the block starts to slide",
                              .value = ts,
                              .source = "(mu g cos(theta) - g sin(theta)) / ramp"});
    }
    return facts;
  }
};

}  // namespace crbench::cases
