// particle-on-circle: a unit point outside a circle of radius R in a vertical plane, released at
// the top with speed v0 along the circle (the classical example of leaving a surface; Deryabin &
// Kozlov 1995 §1 setting, Kugushev & Sorokina 2002 for the unilateral constraint). Polar
// coordinates (r, θ) about the centre, θ from the top: T = (ṙ² + r²θ̇²)/2, V = g r cos θ, f = r − R
// ≥ 0. On the circle, energy gives R²θ̇² = v0² + 2gR(1 − cos θ) and the r-equation gives λ = g cos θ
// − Rθ̇² = 3g cos θ − 2g − v0²/R (|∇f|_{A⁻¹} = 1, so μ = λ): the classical lift-off is at cos θ = (2
// + v0²/(gR))/3. The viscous limit (Deryabin & Kozlov 1995 Theorem 2) keeps the point on the circle
// until ∫λ dt = ∫λ(θ)/θ̇ dθ first vanishes.
#pragma once

#include <boost/math/special_functions/ellint_rd.hpp>
#include <boost/math/special_functions/ellint_rf.hpp>
#include <cmath>

#include "crbench/cases/analysis.hpp"
#include "crbench/cases/case.hpp"

namespace crbench::cases {

struct ParticleOnCircle : NoForce<2> {
  static constexpr int n = 2;
  static constexpr int m = 1;

  double R, g, v0;

  explicit ParticleOnCircle(const ParamValues& p) : R(p.at("R")), g(p.at("g")), v0(p.at("v0")) {}

  static CaseInfo info() {
    return {
        .name = "particle-on-circle",
        .description =
            "Unit point outside a circle of radius R in a vertical plane, gravity g; polar "
            "coordinates (r, theta) about the centre, theta from the top; T = (r'^2 + r^2 "
            "theta'^2)/2, V = g r cos(theta), f = r - R >= 0; released at the top with speed v0 "
            "along the circle. On the circle lambda = 3 g cos(theta) - 2 g - v0^2/R: the classical "
            "model leaves where cos(theta) = (2 + v0^2/(g R))/3; the viscous limit (Deryabin & "
            "Kozlov 1995 Theorem 2) where the integral of lambda first vanishes.",
        .params = {{.name = "R",
                    .default_value = 1.0,
                    .min = 0.0,
                    .max = 1e6,
                    .min_inclusive = false,
                    .unit = "length",
                    .description = "radius of the circle"},
                   {.name = "g",
                    .default_value = 1.0,
                    .min = 0.0,
                    .max = 1e6,
                    .min_inclusive = false,
                    .unit = "length/time^2",
                    .description = "gravity"},
                   {.name = "v0",
                    .default_value = 0.5,
                    .min = 0.0,
                    .max = 1e6,
                    .min_inclusive = false,
                    .unit = "length/time",
                    .description =
                        "initial speed along the circle (below sqrt(g R), else no contact)"}},
        .dof = n,
        .coordinates = {{"r", "length"}, {"theta", "angle (rad)"}},
        .constraint_units = {"length"},
        .constraint_names = {"circle"},
        .constraints = m,
        .switches = switches,
    };
  }

  template <class S>
  Mat<S, n, n> metric(const Vec<S, n>& q) const {
    Mat<S, n, n> A = Mat<S, n, n>::Zero();
    A(0, 0) = S(1.0);
    A(1, 1) = q(0) * q(0);
    return A;
  }
  template <class S>
  S potential(const Vec<S, n>& q, const S& /*t*/) const {
    using std::cos;
    return g * q(0) * cos(q(1));
  }
  template <class S>
  Vec<S, m> constraints(const Vec<S, n>& q, const S& /*t*/) const {
    return Vec<S, m>(q(0) - R);
  }
  State initial_state() const {
    return {.t = 0.0, .q = Eigen::Vector2d(R, 0.0), .v = Eigen::Vector2d(0.0, v0 / R)};
  }

  // Along the circle, as functions of θ.
  double theta_rate(double theta) const {
    return std::sqrt(v0 * v0 + 2.0 * g * R * (1.0 - std::cos(theta))) / R;
  }
  double lambda(double theta) const { return 3.0 * g * std::cos(theta) - 2.0 * g - v0 * v0 / R; }
  // t(θ) = ∫₀^θ R ds / √(v0² + 4 g R sin²(s/2)). Its integrand peaks at s = 0 with width
  // v0/√(g R): quadrature returned 53.2 for v0 = 5e-10 where the time is 21.95 (the particle
  // creeps off the top like sinh(t √(g/R))). In closed form, with φ = θ/2 and the homogeneity of
  // Carlson's R_F, t = 2R sin φ R_F(v0² cos² φ, v0² + 4 g R sin² φ, v0²) (the incomplete elliptic
  // integral F(φ | −4 g R/v0²), DLMF 19.25.5), for |φ| ≤ π/2 and by F(φ + jπ) = 2jK + F(φ)
  // beyond.
  double time_to(double theta) const {
    const double pi = 3.141592653589793;
    const auto F = [this](double phi) {
      const double s = std::sin(phi), c = std::cos(phi);
      return 2.0 * R * s *
             boost::math::ellint_rf(v0 * v0 * c * c, v0 * v0 + 4.0 * g * R * s * s, v0 * v0);
    };
    const double phi = 0.5 * theta;
    const double turns = std::round(phi / pi);
    return turns * 2.0 * F(0.5 * pi) + F(phi - turns * pi);
  }
  // ∫₀^θ λ/θ̇ ds with λ = g − v0²/R − 6 g sin²(s/2): (g − v0²/R) t(θ) − 6 g R I(θ).
  double impulse_to(double theta) const {
    return (g - v0 * v0 / R) * time_to(theta) - 6.0 * g * R * bounded_integral(theta);
  }
  // I(θ) = ∫₀^θ sin²(s/2) / √(v0² + k sin²(s/2)) ds, k = 4 g R, in closed form. With φ = s/2 it
  // is 2 ∫₀^{θ/2} sin²φ/√(v0² + k sin²φ) dφ, and sin²φ/√(v0² + k sin²φ) is
  // (√(v0² + k sin²φ) − v0²/√(v0² + k sin²φ))/k, whose integrals are v0 E(φ | m) and F(φ | m)/v0,
  // m = −k/v0². In Carlson's form (DLMF 19.25.5 and 19.25.9, with R_F of degree −1/2 and R_D of
  // degree −3/2) their R_F terms cancel, and for |φ| ≤ π/2
  //   I = (2/3) v0² sin³φ R_D(v0² cos²φ, v0² + k sin²φ, v0²);
  // beyond, each period of the integrand (π in φ, 2π in θ) adds I(2π) = 2 I(π). Quadrature of the
  // integrand, which this replaced, took 2–3 million evaluations at some θ (its error estimate
  // never met 1e-15) and was off by 3e-13 past θ = 2π for v0 = 5e-10; the closed form agrees
  // with a 50-digit quadrature to 3e-16 (tests/test_cases_library.cpp).
  double bounded_integral(double theta) const {
    const double pi = 3.141592653589793;
    const double k = 4.0 * g * R;
    const auto I = [this, k](double phi) {
      const double s = std::sin(phi), c = std::cos(phi);
      return 2.0 / 3.0 * v0 * v0 * s * s * s *
             boost::math::ellint_rd(v0 * v0 * c * c, v0 * v0 + k * s * s, v0 * v0);
    };
    const double phi = 0.5 * theta;
    const double turns = std::round(phi / pi);
    return turns * 2.0 * I(0.5 * pi) + I(phi - turns * pi);
  }
  double classical_angle() const {
    return std::acos(std::min(1.0, (2.0 + v0 * v0 / (g * R)) / 3.0));
  }
  std::optional<double> viscous_angle() const {
    const auto impulse = [this](double theta) { return impulse_to(theta); };
    return analysis::first_root(impulse, classical_angle(), 4.0 * 3.141592653589793, 0.05);
  }

  double horizon() const {
    const auto viscous = viscous_angle();
    return 1.5 * time_to(viscous ? *viscous : 2.0 * classical_angle()) + 0.5;
  }

  Facts facts() const {
    Facts facts;
    if (v0 * v0 < g * R) {
      facts.lift_off.push_back({.model = "classical",
                                .time = time_to(classical_angle()),
                                .source =
                                    "cos(theta) = (2 + v0^2/(g R))/3; t = integral of 1/theta' "
                                    "along the circle, in closed form (Carlson's R_F)"});
      facts.values.push_back({.name = "classical lift-off angle",
                              .value = classical_angle(),
                              .source = "lambda = 3 g cos(theta) - 2 g - v0^2/R = 0"});
      if (const auto viscous = viscous_angle()) {
        facts.lift_off.push_back(
            {.model = "viscous",
             .time = time_to(*viscous),
             .source = "first zero of the integral of lambda (Deryabin & Kozlov 1995 "
                       "Theorem 2), in closed form along the circle (Carlson's R_F and R_D)"});
      }
    }
    return facts;
  }
};

}  // namespace crbench::cases
