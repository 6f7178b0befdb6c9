// chaplygin-sled: Chaplygin's sled on a horizontal plane, the classic nonholonomic system whose
// rotation dies out (Kozlov 1992 §2–3 for its realizations). q = (x, y, θ): the blade's contact
// point P and the heading; the centre of mass C sits a distance b ahead of P along the blade,
// C = P + b(cos θ, sin θ); T = m|Ċ|²/2 + J θ̇²/2 (J about C); no forces; the blade cannot slip
// sideways, −ẋ sin θ + ẏ cos θ = 0. With v the speed of P along the blade and ω = θ̇ the ideal
// motion obeys m v̇ = m b ω², (J + m b²) ω̇ = −m b v ω, so with I = J + m b², c² = v0² + I ω0²/m,
// k = m b c/I and s0 = atanh(v0/c):
//   v = c tanh(k t + s0),  θ = sgn(ω0) (√(I/m)/b) [gd(k t + s0) − gd(s0)],  gd(u) = 2
//   atan(tanh(u/2)),
// and P follows ẋ = v cos θ, ẏ = v sin θ (by quadrature): the rotation decays like sech and the
// sled tends to a straight line along its blade.
#pragma once

#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <cmath>
#include <string>

#include "crbench/cases/case.hpp"
#include "crbench/cases/skate_blade.hpp"

namespace crbench::cases {

struct ChaplyginSled : NoForce<3>, SkateBlade {
  double mass, inertia, b, v0, omega0;

  explicit ChaplyginSled(const ParamValues& p)
      : mass(p.at("m")), inertia(p.at("J")), b(p.at("b")), v0(p.at("v0")), omega0(p.at("omega0")) {}

  static CaseInfo info() {
    return {
        .name = "chaplygin-sled",
        .description =
            "Chaplygin's sled (Kozlov 1992 sections 2-3): q = (x, y, theta), the blade's contact "
            "point and heading; the centre of mass a distance b ahead of it along the blade; "
            "T = m |C'|^2/2 + J theta'^2/2 (J about the centre of mass), no forces, kinematic "
            "constraint -x' sin(theta) + y' cos(theta) = 0. Started at the origin with speed v0 "
            "along the blade and turning rate omega0. The ideal (nonholonomic) motion: "
            "v = c tanh(k t + s0), theta from the Gudermannian of k t + s0, x and y by quadrature; "
            "the rotation decays and the sled tends to a straight line. Every member of the "
            "mu = beta/alpha family keeps the energy.",
        .params = {{.name = "m",
                    .default_value = 1.0,
                    .min = 0.0,
                    .max = 1e6,
                    .min_inclusive = false,
                    .unit = "mass",
                    .description = "mass of the sled"},
                   {.name = "J",
                    .default_value = 0.5,
                    .min = 0.0,
                    .max = 1e6,
                    .min_inclusive = false,
                    .unit = "mass length^2",
                    .description = "moment of inertia about the centre of mass"},
                   {.name = "b",
                    .default_value = 0.5,
                    .min = 0.0,
                    .max = 1e3,
                    .min_inclusive = false,
                    .unit = "length",
                    .description = "distance of the centre of mass ahead of the blade"},
                   {.name = "v0",
                    .default_value = 0.2,
                    .min = 0.0,
                    .max = 1e3,
                    .unit = "length/time",
                    .description = "initial speed of the contact point along the blade"},
                   {.name = "omega0",
                    .default_value = 1.0,
                    .min = 0.0,
                    .max = 1e3,
                    .min_inclusive = false,
                    .unit = "1/time",
                    .description = "initial turning rate"}},
        .dof = n,
        .coordinates = {{"x", "length"}, {"y", "length"}, {"theta", "angle (rad)"}},
        .constraints = m,
        .switches = switches,
        .solver_settings = {{"realization", "N", "1e4",
                             "at the default N = 1e6 the stiff friction costs about 45 s over this "
                             "horizon (docs/internals.md, 'How the realization is integrated')"}},
    };
  }

  template <class S>
  Mat<S, n, n> metric(const Vec<S, n>& q) const {
    using std::cos;
    using std::sin;
    const S s = sin(q(2)), c = cos(q(2));
    Mat<S, n, n> A;
    A(0, 0) = S(mass);
    A(0, 1) = S(0.0);
    A(0, 2) = -mass * b * s;
    A(1, 0) = S(0.0);
    A(1, 1) = S(mass);
    A(1, 2) = mass * b * c;
    A(2, 0) = A(0, 2);
    A(2, 1) = A(1, 2);
    A(2, 2) = S(inertia + mass * b * b);
    return A;
  }

  template <class S>
  S potential(const Vec<S, n>& /*q*/, const S& /*t*/) const {
    return S(0.0);
  }

  State initial_state() const {
    return {.t = 0.0, .q = Eigen::Vector3d::Zero(), .v = Eigen::Vector3d(v0, 0.0, omega0)};
  }

  double horizon() const { return 10.0; }

  // The speed along the blade and the heading of the ideal motion at time t.
  struct Ideal {
    double I, c, k, s0, scale;
    double speed(double t) const { return c * std::tanh(k * t + s0); }
    double heading(double t) const { return scale * (gd(k * t + s0) - gd(s0)); }
    static double gd(double u) { return 2.0 * std::atan(std::tanh(0.5 * u)); }
  };
  Ideal ideal() const {
    Ideal w;
    w.I = inertia + mass * b * b;
    w.c = std::sqrt(v0 * v0 + w.I * omega0 * omega0 / mass);
    w.k = mass * b * w.c / w.I;
    w.s0 = std::atanh(v0 / w.c);
    w.scale = std::sqrt(w.I / mass) / b;
    return w;
  }

  Facts facts() const {
    const Ideal w = ideal();
    const auto nonholonomic = [w](double t, double) -> std::optional<Eigen::VectorXd> {
      if (t < 0.0) return std::nullopt;
      // Smooth integrands: a few 61-point Gauss–Kronrod panels reach 1e-14; a tolerance of
      // 1e-15 would subdivide in vain where x' or y' passes through zero.
      const auto integrate = [](auto f, double upper) {
        return boost::math::quadrature::gauss_kronrod<double, 61>::integrate(f, 0.0, upper, 6,
                                                                             1e-14);
      };
      const double x = integrate([&](double s) { return w.speed(s) * std::cos(w.heading(s)); }, t);
      const double y = integrate([&](double s) { return w.speed(s) * std::sin(w.heading(s)); }, t);
      return Eigen::Vector3d(x, y, w.heading(t));
    };
    const std::string source =
        "v = c tanh(k t + s0), theta = (sqrt(I/m)/b)(gd(k t + s0) - gd(s0)), x' = v cos(theta), "
        "y' = v sin(theta) by Gauss-Kronrod quadrature";
    Facts facts;
    facts.trajectories.push_back({.model = "classical",
                                  .source = "the ideal (nonholonomic) motion: " + source,
                                  .q = nonholonomic});
    facts.trajectories.push_back(
        {.model = "viscous",
         .source = "the limit of the viscous realization, the nonholonomic motion: " + source,
         .q = nonholonomic});
    facts.values.push_back({.name = "energy",
                            .value = 0.5 * mass * v0 * v0 + 0.5 * w.I * omega0 * omega0,
                            .source = "T at t = 0, kept by every member of the family"});
    facts.values.push_back({.name = "final turning rate",
                            .value = omega0 * std::cosh(w.s0) / std::cosh(w.k * horizon() + w.s0),
                            .source = "omega = omega0 cosh(s0)/cosh(k t + s0)"});
    return facts;
  }
};

}  // namespace crbench::cases
