// kirgetov-bicycle: Kirgetov's bicycle (Kirgetov 1964 §6), a controlled nonholonomic system: the
// steering angle u(t) = u0 sin(Ω t) is prescribed, so the constraints depend on time. The frame
// stays vertical; q = (x, y, ψ, φ, φ1): the rear wheel's centre, the frame's heading, the rear and
// front wheels' rotation angles; a the wheels' radius, b the distance between their centres.
// Rolling without slipping, (6.2) for the rear wheel,
//   x' + a φ' cos ψ = 0,  y' + a φ' sin ψ = 0,
// and for the front wheel, whose centre is (x + b cos ψ, y + b sin ψ) and whose rolling direction
// is ψ + u: (x + b cos ψ)' + a φ1' cos(ψ + u) = 0 and the same with sin. Projected on the frame's
// direction and its normal, with the rear wheel's condition, these give (6.3),
//   φ' − φ1' cos u = 0,  b ψ' + a φ1' sin u = 0;
// the paper prints the first with +, a misprint: the frame's direction gives −a φ' = −a φ1' cos u.
// T = m |G'|²/2 + J ψ'²/2 + j (φ'² + φ1'²)/2 + J_f (ψ' + u')²/2: the frame and rider (mass m,
// centre of mass G a distance c ahead of the rear wheel's centre along the frame, moment J about
// G), each wheel's spin moment j, and the front assembly's moment J_f about the steering axis.
// The term J_f ψ' u'(t) is linear in the velocities with a time-dependent coefficient: Lagrange's
// equations turn it into the force −J_f u'' on ψ. With σ = φ1' the one velocity left free, the
// possible displacements (6.4) are δq = (−a cos u cos ψ, −a cos u sin ψ, −(a/b) sin u, cos u,
// 1) δσ, and d'Alembert–Lagrange (6.6) projected on them gives the reduced (Chaplygin) equation
//   A(u) σ' = (a/b) J_f sin u u'' − (k − m a² − j) sin u cos u u' σ,
//   A(u) = (m a² + j) cos² u + k sin² u + j,  k = (a/b)² (J + m c² + J_f),
// in which c enters only through J + m c² (the terms of m c ψ' cancel on the constraints), and
// ψ' = −(a/b) σ sin u, φ' = σ cos u, x' = −a σ cos u cos ψ, y' = −a σ cos u sin ψ. The facts
// integrate that reduced system by an independent method (Runge–Kutta–Fehlberg 7(8) of Boost
// Odeint) for the ideal motion, the limit of the viscous realization of the rolling conditions.
#pragma once

#include <array>
#include <boost/numeric/odeint.hpp>
#include <cmath>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "crbench/cases/case.hpp"

namespace crbench::cases {

struct KirgetovBicycle : NoUnilateralConstraints<5> {
  static constexpr int n = 5;
  static constexpr int kinematic = 4;
  static constexpr int switches = 0;

  double mass, inertia, c, wheel, steering, a, b, u0, omega, sigma0;

  explicit KirgetovBicycle(const ParamValues& p)
      : mass(p.at("m")),
        inertia(p.at("J")),
        c(p.at("c")),
        wheel(p.at("j")),
        steering(p.at("Jf")),
        a(p.at("a")),
        b(p.at("b")),
        u0(p.at("u0")),
        omega(p.at("Omega")),
        sigma0(p.at("sigma0")) {}

  static CaseInfo info() {
    const auto positive = [](const char* name, double value, double max, const char* unit,
                             const char* description) {
      return ParamSpec{.name = name,
                       .default_value = value,
                       .min = 0.0,
                       .max = max,
                       .min_inclusive = false,
                       .unit = unit,
                       .description = description};
    };
    return {
        .name = "kirgetov-bicycle",
        .description =
            "Kirgetov 1964 section 6: a bicycle with a vertical frame rolling without slipping on "
            "a horizontal plane, its steering angle prescribed, u(t) = u0 sin(Omega t): a "
            "controlled nonholonomic system. q = (x, y, psi, phi, phi1): rear wheel centre, "
            "heading, rear and front wheel angles; constraints (6.2) x' + a phi' cos(psi) = 0, y' "
            "+ a phi' sin(psi) = 0 and (6.3) phi' - phi1' cos(u) = 0 (printed with + in the paper, "
            "a misprint), b psi' + a phi1' sin(u) = 0. T = m |G'|^2/2 + J psi'^2/2 + j (phi'^2 + "
            "phi1'^2)/2 + Jf (psi' + u')^2/2, G a distance c ahead of the rear wheel's centre; "
            "the term Jf psi' u' acts as the force -Jf u'' on psi. Started straight (u(0) = 0) "
            "with front wheel rate sigma0. The ideal motion is the reduced equation A(u) sigma' = "
            "(a/b) Jf sin(u) u'' - (k - m a^2 - j) sin(u) cos(u) u' sigma, sigma = phi1', k = "
            "(a/b)^2 (J + m c^2 + Jf), A = (m a^2 + j) cos^2(u) + k sin^2(u) + j, integrated "
            "independently in the facts.",
        .params = {positive("m", 1.0, 1e6, "mass", "mass of the frame and rider"),
                   positive("J", 0.1, 1e6, "mass length^2",
                            "moment of the frame about the vertical through its centre of mass"),
                   {.name = "c",
                    .default_value = 0.4,
                    .min = -1e3,
                    .max = 1e3,
                    .unit = "length",
                    .description = "centre of mass ahead of the rear wheel's centre"},
                   positive("j", 0.05, 1e6, "mass length^2", "spin moment of each wheel"),
                   {.name = "Jf",
                    .default_value = 0.02,
                    .min = 0.0,
                    .max = 1e6,
                    .unit = "mass length^2",
                    .description = "moment of the front assembly about the steering axis"},
                   positive("a", 0.35, 1e3, "length", "radius of the wheels"),
                   positive("b", 1.0, 1e3, "length", "distance between the wheels' centres"),
                   {.name = "u0",
                    .default_value = 0.3,
                    .min = -1.5,
                    .max = 1.5,
                    .unit = "angle (rad)",
                    .description = "amplitude of the steering angle u(t) = u0 sin(Omega t)"},
                   {.name = "Omega",
                    .default_value = 1.0,
                    .min = 0.0,
                    .max = 1e3,
                    .unit = "1/time",
                    .description = "angular frequency of the steering"},
                   {.name = "sigma0",
                    .default_value = 3.0,
                    .min = -1e3,
                    .max = 1e3,
                    .unit = "1/time",
                    .description = "initial rate of the front wheel (the speed is a sigma0)"}},
        .dof = n,
        .coordinates = {{"x", "length"},
                        {"y", "length"},
                        {"psi", "angle (rad)"},
                        {"phi", "angle (rad)"},
                        {"phi1", "angle (rad)"}},
        .constraints = m,
        .switches = switches,
    };
  }

  template <class S>
  S steer(const S& t) const {
    using std::sin;
    return u0 * sin(omega * t);
  }

  template <class S>
  Mat<S, n, n> metric(const Vec<S, n>& q) const {
    using std::cos;
    using std::sin;
    Mat<S, n, n> A = Mat<S, n, n>::Zero();
    A(0, 0) = S(mass);
    A(1, 1) = S(mass);
    A(0, 2) = -mass * c * sin(q(2));
    A(1, 2) = mass * c * cos(q(2));
    A(2, 0) = A(0, 2);
    A(2, 1) = A(1, 2);
    A(2, 2) = S(inertia + mass * c * c + steering);
    A(3, 3) = S(wheel);
    A(4, 4) = S(wheel);
    return A;
  }

  template <class S>
  S potential(const Vec<S, n>& /*q*/, const S& /*t*/) const {
    return S(0.0);
  }

  // d/dt ∂T/∂ψ' contains J_f u'': the prescribed steering's force on the heading.
  template <class S>
  Vec<S, n> force(const Vec<S, n>& /*q*/, const Vec<S, n>& /*v*/, const S& t, Modes) const {
    using std::sin;
    Vec<S, n> Q = Vec<S, n>::Zero();
    Q(2) = steering * u0 * omega * omega * sin(omega * t);
    return Q;
  }
  Vec<double, 0> switching(const Vec<double, n>&, const Vec<double, n>&, double) const {
    return {};
  }

  // (6.2) and the corrected (6.3), rows of a(q, t) q' = 0.
  template <class S>
  Mat<S, kinematic, n> kinematic_rows(const Vec<S, n>& q, const S& t) const {
    using std::cos;
    using std::sin;
    const S u = steer(t);
    Mat<S, kinematic, n> rows = Mat<S, kinematic, n>::Zero();
    rows(0, 0) = S(1.0);
    rows(0, 3) = a * cos(q(2));
    rows(1, 1) = S(1.0);
    rows(1, 3) = a * sin(q(2));
    rows(2, 3) = S(1.0);
    rows(2, 4) = -cos(u);
    rows(3, 2) = S(b);
    rows(3, 4) = a * sin(u);
    return rows;
  }

  // On the constraints at t = 0 (u = 0): rolling straight along x with the front wheel's rate.
  State initial_state() const {
    Vec<double, n> v;
    v << -a * sigma0, 0.0, 0.0, sigma0, sigma0;
    return {.t = 0.0, .q = Vec<double, n>::Zero(), .v = v};
  }

  double horizon() const { return 10.0; }

  // The reduced system (x, y, ψ, φ, φ1, σ) of the header comment.
  using Reduced = std::array<double, 6>;
  void reduced_rate(const Reduced& w, Reduced& dw, double t) const {
    const double u = u0 * std::sin(omega * t), du = u0 * omega * std::cos(omega * t);
    const double ddu = -u0 * omega * omega * std::sin(omega * t);
    const double C = std::cos(u), S = std::sin(u), sigma = w[5];
    const double k = (a / b) * (a / b) * (inertia + mass * c * c + steering);
    const double A = (mass * a * a + wheel) * C * C + k * S * S + wheel;
    dw[0] = -a * sigma * C * std::cos(w[2]);
    dw[1] = -a * sigma * C * std::sin(w[2]);
    dw[2] = -(a / b) * sigma * S;
    dw[3] = sigma * C;
    dw[4] = sigma;
    dw[5] = ((a / b) * steering * S * ddu - (k - mass * a * a - wheel) * S * C * du * sigma) / A;
  }

  // q(t) of the reduced system: from checkpoints every tenth of a time unit (each integrated
  // once), the last one at or before t is carried to t, so a grid in any order costs a short
  // stretch per point. The checkpoints are the facts' own, behind a lock.
  struct Checkpoints {
    std::mutex lock;
    std::vector<Reduced> states;
  };
// GCC 12 flags a copy inside Boost Odeint's stepper construction as maybe uninitialized (a false
// positive of its inliner; clang and the sanitizers see nothing).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
  std::optional<Eigen::VectorXd> reduced_q(double t, Checkpoints& cache) const {
    namespace odeint = boost::numeric::odeint;
    if (!(t >= 0.0) || !(t <= 1e3 * horizon())) return std::nullopt;
    const auto rate = [this](const Reduced& w, Reduced& dw, double s) { reduced_rate(w, dw, s); };
    auto stepper = odeint::make_controlled(1e-14, 1e-14, odeint::runge_kutta_fehlberg78<Reduced>());
    constexpr double spacing = 0.1;
    const auto index = static_cast<std::size_t>(std::floor(t / spacing));
    Reduced w;
    {
      const std::lock_guard<std::mutex> hold(cache.lock);
      if (cache.states.empty()) cache.states.push_back({0.0, 0.0, 0.0, 0.0, 0.0, sigma0});
      while (cache.states.size() <= index) {
        Reduced next = cache.states.back();
        const double from = spacing * static_cast<double>(cache.states.size() - 1);
        odeint::integrate_adaptive(stepper, rate, next, from, from + spacing, 1e-3);
        cache.states.push_back(next);
      }
      w = cache.states[index];
    }
    const double from = spacing * static_cast<double>(index);
    if (t > from) odeint::integrate_adaptive(stepper, rate, w, from, t, 1e-3);
    Eigen::VectorXd q(n);
    for (int i = 0; i < n; ++i) q(i) = w[static_cast<std::size_t>(i)];
    return q;
  }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

  Facts facts() const {
    const auto cache = std::make_shared<Checkpoints>();
    const auto q = [self = *this, cache](double t, double) { return self.reduced_q(t, *cache); };
    const std::string source =
        "the reduced (Chaplygin) equation of the header, sigma = phi1', integrated by "
        "Runge-Kutta-Fehlberg 7(8) (Boost Odeint) at tolerances 1e-14";
    Facts facts;
    facts.trajectories.push_back(
        {.model = "classical", .source = "the ideal (nonholonomic) motion: " + source, .q = q});
    facts.trajectories.push_back(
        {.model = "viscous",
         .source = "the limit of the viscous realization, the nonholonomic motion: " + source,
         .q = q});
    return facts;
  }
};

}  // namespace crbench::cases
