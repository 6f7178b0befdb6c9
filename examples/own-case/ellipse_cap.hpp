// ellipse-cap: a case defined outside crbench's tree. A unit point slides on the outside of the
// ellipse x²/a² + y²/b² = 1 in a vertical plane (f = x²/a² + y²/b² − 1 ≥ 0, V = g y), released
// at the top (0, b) with speed v0 along it. With a = b = R it is particle-on-circle in Cartesian
// coordinates, which leaves where cos θ = (2 + v0²/(gR))/3; a flatter top (a > b) keeps the point
// longer. (A parabola would not do: on y = −x²/(2c) the multiplier keeps the sign of g c − v0²
// for ever, free-fall trajectories being parabolas of that shape.)
#pragma once

#include <cmath>
#include <crbench/cases/case.hpp>

namespace own {

struct EllipseCap : crbench::NoForce<2> {
  static constexpr int n = 2;
  static constexpr int m = 1;
  template <class S, int R>
  using Vec = crbench::Vec<S, R>;

  double a, b, g, v0;

  explicit EllipseCap(const crbench::ParamValues& p)
      : a(p.at("a")), b(p.at("b")), g(p.at("g")), v0(p.at("v0")) {}

  static crbench::CaseInfo info() {
    const auto positive = [](const char* name, double value, const char* description) {
      return crbench::ParamSpec{.name = name,
                                .default_value = value,
                                .min = 0.0,
                                .max = 1e3,
                                .min_inclusive = false,
                                .description = description};
    };
    return {.name = "ellipse-cap",
            .description =
                "Unit point outside the ellipse x^2/a^2 + y^2/b^2 = 1 under gravity g, "
                "released at the top with speed v0 (examples/own-case)",
            .params = {positive("a", 1.5, "horizontal semi-axis"),
                       positive("b", 1.0, "vertical semi-axis"), positive("g", 1.0, "gravity"),
                       positive("v0", 0.5, "initial speed along the ellipse (below a sqrt(g/b))")},
            .dof = n,
            .constraints = m,
            .switches = switches};
  }

  template <class S>
  crbench::Mat<S, n, n> metric(const Vec<S, n>& /*q*/) const {
    return crbench::Mat<S, n, n>::Identity();
  }
  template <class S>
  S potential(const Vec<S, n>& q, const S& /*t*/) const {
    return g * q(1);
  }
  template <class S>
  Vec<S, m> constraints(const Vec<S, n>& q, const S& /*t*/) const {
    return Vec<S, m>(q(0) * q(0) / (a * a) + q(1) * q(1) / (b * b) - 1.0);
  }
  crbench::State initial_state() const {
    return {.t = 0.0, .q = Eigen::Vector2d(0.0, b), .v = Eigen::Vector2d(v0, 0.0)};
  }
  double horizon() const { return 4.0 * std::sqrt((a + b) / g); }
  crbench::Facts facts() const { return {}; }
};

}  // namespace own
