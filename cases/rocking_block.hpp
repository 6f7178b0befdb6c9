// rocking-block: a rigid rectangular block rocking on its two bottom corners on a rough floor
// (Housner 1963). Half-height h, half-width b = aspect·h, unit mass (the motion does not depend on
// it), J = (b² + h²)/3 about the centre, gravity g; q = (x, y, θ), the centre and the tilt,
// counter-clockwise. With R = √(b² + h²) and α = atan(b/h) the corners are at
//   left (−b, −h):  height y − b sin θ − h cos θ,  horizontal velocity ẋ + (h cos θ + b sin θ) θ̇,
//   right (b, −h):  height y + b sin θ − h cos θ,  horizontal velocity ẋ + (h cos θ − b sin θ) θ̇.
// The heights are the unilateral constraints `left` and `right`; while a corner touches, it does
// not slide: its horizontal velocity is a conditional kinematic row (the rough contact of
// Berezinskaya, Sorokina & Kugushev 2003 §5, one per corner).
//
// Released at rest at the tilt θ0 = tilt·α ∈ (0, α) on the left corner, the block pivots about it:
// T = (2/3) R² θ̇² (J + R² about the corner), V = g R cos(α − θ), so θ̇² = k (cos(α − θ0) −
// cos(α − θ)) with k = 3g/(2R), and it falls back towards θ = 0. There the right corner strikes.
// Housner's law: the right corner sticks without rebound, the left one leaves the floor, and the
// angular momentum about the right corner is kept. Before the impact the centre moves at θ̇ ẑ ×
// (b, h) = θ̇ (−h, b); its moment about the right corner, at (−b, h) from it, is θ̇ (h² − b²), so
// (J + h² − b²) θ̇⁻ = (J + R²) θ̇⁺ and
//   θ̇⁺/θ̇⁻ = (2h² − b²)/(2R²) = 1 − (3/2) sin²α.
// In crbench's ideal model this is Newton's law with e = 0 on the right corner, whose slip row
// does not enter its own impact (slip_restitution −1): the left corner's row, which holds through
// the impact, is the same row at θ = 0 and keeps the contact point at rest; the left corner's
// normal velocity after it, 2b|θ̇⁺|, releases it. The ratio is positive for b/h < √2 only (a
// wider block would come to rest on both corners, where the two rows coincide): `aspect` stops
// at 1.4. The block then pivots about the right corner
// up to the tilt −a₁ with cos(α − a₁) = cos α + θ̇⁺²/k and strikes again with the left corner.
// (Derived from the model integrated here; checked against an independent integration in
// tests/test_rocking_block.cpp.)
#pragma once

#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <cmath>

#include "crbench/cases/case.hpp"

namespace crbench::cases {

struct RockingBlock : NoForce<3>, PlanarBodyMetric {
  static constexpr int n = 3;
  static constexpr int m = 2;
  static constexpr int kinematic = 2;

  double b, h, g, theta0;

  explicit RockingBlock(const ParamValues& p)
      : PlanarBodyMetric{(1.0 + p.at("aspect") * p.at("aspect")) * p.at("half_height") *
                         p.at("half_height") / 3.0},
        b(p.at("aspect") * p.at("half_height")),
        h(p.at("half_height")),
        g(p.at("g")),
        theta0(p.at("tilt") * std::atan2(b, h)) {}

  static CaseInfo info() {
    return {
        .name = "rocking-block",
        .description =
            "A rigid rectangular block (half-height h, half-width b = aspect h, unit mass, J = "
            "(b^2 + h^2)/3) rocking on its bottom corners on a rough floor (Housner 1963): q = (x, "
            "y, "
            "theta), V = g y, unilateral constraints left: y - b sin(theta) - h cos(theta) >= 0 "
            "and right: y + b sin(theta) - h cos(theta) >= 0, and while a corner touches it does "
            "not slide (a conditional kinematic row: its horizontal velocity is 0). Released at "
            "rest tilted by theta0 = tilt atan(b/h) on the left corner; each impact of a corner "
            "follows Housner's law, theta'+ = (1 - (3/2) sin^2(alpha)) theta'- with tan(alpha) = "
            "b/h, "
            "and releases the other corner.",
        .params = {{.name = "aspect",
                    .default_value = 0.2,
                    .min = 0.0,
                    .max = 1.4,
                    .min_inclusive = false,
                    .description = "b/h, the half-width over the half-height (Housner's ratio 1 "
                                   "- (3/2) sin^2(alpha) is positive below sqrt(2): a wider "
                                   "block does not rock)"},
                   {.name = "half_height",
                    .default_value = 1.0,
                    .min = 0.0,
                    .max = 1e3,
                    .min_inclusive = false,
                    .unit = "length",
                    .description = "h, half the block's height"},
                   {.name = "g",
                    .default_value = 9.81,
                    .min = 0.0,
                    .max = 1e3,
                    .min_inclusive = false,
                    .unit = "length/time^2",
                    .description = "gravity"},
                   {.name = "tilt",
                    .default_value = 0.5,
                    .min = 0.0,
                    .max = 1.0,
                    .min_inclusive = false,
                    .max_inclusive = false,
                    .description = "initial tilt theta0 on the left corner as a fraction of "
                                   "atan(b/h) (at 1 the centre is above the corner; beyond, the "
                                   "block topples)"}},
        .dof = n,
        .coordinates = {{"x", "length"}, {"y", "length"}, {"theta", "angle (rad)"}},
        .constraint_units = {"length", "length"},
        .constraint_names = {"left", "right"},
        .constraints = m,
        .switches = switches,
        .kinematic_condition = {0, 1},
        .solver_settings = {{"event-driven", "restitution", "0",
                             "Housner's law: the striking corner does not rebound"},
                            {"moreau-jean", "restitution", "0",
                             "Housner's law: the striking corner does not rebound"},
                            {"realization", "interaction", "obstacle",
                             "a corner on the floor is pushed, never held down"},
                            {"realization", "N", "1e4",
                             "the pivoting phases take about N^0.6 steps (docs/theory.md section "
                             "2)"}},
    };
  }

  // A striking corner's slip row stays out of its own impact (see the header).
  double slip_restitution(int /*r*/) const { return -1.0; }

  template <class S>
  S potential(const Vec<S, n>& q, const S& /*t*/) const {
    return g * q(1);
  }

  template <class S>
  Vec<S, m> constraints(const Vec<S, n>& q, const S& /*t*/) const {
    using std::cos;
    using std::sin;
    const S s = sin(q(2)), c = cos(q(2));
    return Vec<S, m>(q(1) - b * s - h * c, q(1) + b * s - h * c);
  }

  // The horizontal velocity of each corner, a = (1, 0, h cos θ ± b sin θ).
  template <class S>
  Mat<S, kinematic, n> kinematic_rows(const Vec<S, n>& q, const S& /*t*/) const {
    using std::cos;
    using std::sin;
    const S s = sin(q(2)), c = cos(q(2));
    Mat<S, kinematic, n> a;
    a << S(1.0), S(0.0), h * c + b * s,  //
        S(1.0), S(0.0), h * c - b * s;
    return a;
  }

  State initial_state() const {
    return {.t = 0.0,
            .q = Eigen::Vector3d(0.0, b * std::sin(theta0) + h * std::cos(theta0), theta0),
            .v = Eigen::Vector3d::Zero()};
  }

  double alpha() const { return std::atan2(b, h); }
  double radius() const { return std::hypot(b, h); }
  double rate_constant() const { return 1.5 * g / radius(); }
  // Housner's ratio θ̇⁺/θ̇⁻.
  double housner_ratio() const {
    const double s = std::sin(alpha());
    return 1.0 - 1.5 * s * s;
  }
  // |θ̇| on reaching θ = 0 from rest at the tilt a.
  double rate_at_flat(double a) const {
    return std::sqrt(rate_constant() * (std::cos(alpha() - a) - std::cos(alpha())));
  }
  // The tilt reached from θ = 0 at the rate |θ̇|: cos(α − a) = cos α + θ̇²/k.
  double tilt_from(double rate) const {
    return alpha() - std::acos(std::cos(alpha()) + rate * rate / rate_constant());
  }
  // The time from rest at the tilt a to θ = 0 on one corner: ∫_0^a dθ/√(k (cos(α − a) −
  // cos(α − θ))). With cos(α − a) − cos(α − θ) = p² (dθ = 2p dp/sin(α − θ)) the square-root end
  // becomes smooth:
  //   t = (2/√k) ∫_0^√(cos(α − a) − cos α) dp / √(1 − c²),  c = cos(α − a) − p²,
  // analytic on the interval (c stays in [cos α, cos(α − a)], below 1).
  double fall_time(double a) const {
    const double top = std::cos(alpha() - a);
    const auto integrand = [top](double p) {
      const double c = top - p * p;
      return 1.0 / std::sqrt((1.0 - c) * (1.0 + c));
    };
    return 2.0 / std::sqrt(rate_constant()) *
           boost::math::quadrature::gauss_kronrod<double, 61>::integrate(
               integrand, 0.0, std::sqrt(top - std::cos(alpha())), 5, 1e-15);
  }
  // The tilt reached after an impact that ends the swing from the tilt a (Housner's ratio).
  double next_tilt(double a) const { return tilt_from(housner_ratio() * rate_at_flat(a)); }
  // The classical impacts: the i-th at impact_time(i) (i = 1, 2, ...), on the right corner for odd
  // i, the left for even.
  double impact_time(int i) const {
    double t = fall_time(theta0), a = theta0;
    for (int j = 1; j < i; ++j) {
      a = next_tilt(a);
      t += 2.0 * fall_time(a);
    }
    return t;
  }
  // Half-way between the second and the third impact (at the top of the third swing).
  double horizon() const { return impact_time(2) + fall_time(next_tilt(next_tilt(theta0))); }

  Facts facts() const {
    Facts facts;
    const std::string fall =
        "t = integral of 1/|theta'| with theta'^2 = (3 g/(2 R))(cos(alpha - a) - cos(alpha - "
        "theta)), by 61-point Gauss-Kronrod after p^2 = cos(alpha - a) - cos(alpha - theta)";
    facts.lift_off.push_back(
        {.model = "classical",
         .time = impact_time(2),
         .source = "the second impact, of the left corner, releases the right one; Housner's "
                   "ratio 1 - (3/2) sin^2(alpha) at the first; " +
                   fall,
         .constraint = "right"});
    const double before = -rate_at_flat(theta0);
    facts.values.push_back({.name = "first impact time",
                            .value = impact_time(1),
                            .source = "the right corner strikes at theta = 0; " + fall});
    facts.values.push_back({.name = "theta' before the first impact",
                            .value = before,
                            .source = "theta'^2 = (3 g/(2 R))(cos(alpha - theta0) - cos(alpha))"});
    facts.values.push_back({.name = "theta' after the first impact",
                            .value = housner_ratio() * before,
                            .source = "Housner 1963: angular momentum about the new corner"});
    facts.values.push_back({.name = "Housner's ratio",
                            .value = housner_ratio(),
                            .source = "theta'+/theta'- = 1 - (3/2) sin^2(alpha)"});
    return facts;
  }
};

}  // namespace crbench::cases
