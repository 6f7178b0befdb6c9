// The dopri5 stepper (solvers/dopri5.hpp) against Boost.Odeint's make_dense_output(atol, rtol,
// max_dt, runge_kutta_dopri5<std::vector<double>>()), which it replaces in the event-driven
// solver: the same step times, states and dense output, bit for bit, on problems that exercise
// accepted and rejected steps, the step bound, a time-dependent right-hand side and four
// variables, the event-driven solver's size.
#include <boost/numeric/odeint.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "crbench/solvers/dopri5.hpp"

namespace dopri5_tests {
namespace {

namespace odeint = boost::numeric::odeint;
using State = std::vector<double>;

struct Problem {
  std::string name;
  State y0;
  double t_end, atol, rtol, max_dt, dt0;
  // dy/dt at (t, y), n values.
  void (*rate)(double t, const double* y, double* dy);
};

struct Count {
  long steps = 0;
  long evaluations = 0;  // of the right-hand side by crbench's stepper
};

// Compares the two steppers over [0, t_end]: every step's (t_old, t_new), and the dense output at
// five points of every step (its ends included), bit for bit.
Count compare(const Problem& p) {
  const std::size_t n = p.y0.size();
  auto reference =
      odeint::make_dense_output(p.atol, p.rtol, p.max_dt, odeint::runge_kutta_dopri5<State>());
  reference.initialize(p.y0, 0.0, p.dt0);
  crbench::Dopri5Dense stepper(p.atol, p.rtol, p.max_dt);
  stepper.initialize(p.y0.data(), n, 0.0, p.dt0);
  const auto system = [&p](const State& y, State& dy, double t) {
    dy.resize(y.size());
    p.rate(t, y.data(), dy.data());
  };
  Count count;
  State expected(n), got(n);
  while (stepper.current_time() < p.t_end) {
    const auto [ta, tb] = reference.do_step(system);
    const auto [sa, sb] = stepper.do_step([&](double t, const double* y, double* dy) {
      ++count.evaluations;
      p.rate(t, y, dy);
    });
    ++count.steps;
    INFO(p.name << ", step " << count.steps);
    REQUIRE(sa == ta);
    REQUIRE(sb == tb);
    for (const double theta : {0.0, 0.25, 0.5, 0.75, 1.0}) {
      const double t = ta + theta * (tb - ta);
      reference.calc_state(t, expected);
      stepper.calc_state(t, got.data());
      for (std::size_t i = 0; i < n; ++i) REQUIRE(got[i] == expected[i]);
    }
  }
  return count;
}

}  // namespace

TEST_CASE("dopri5 gives Odeint's dense-output dopri5 bit for bit", "[dopri5][fast]") {
  const std::vector<Problem> problems = {
      // The harmonic oscillator at the event-driven solver's tolerances.
      {"harmonic",
       {1.0, 0.0},
       20.0,
       1e-14,
       1e-12,
       0.5,
       1e-3,
       [](double, const double* y, double* dy) {
         dy[0] = y[1];
         dy[1] = -y[0];
       }},
      // Van der Pol with μ = 5: relaxation oscillations, with rejected steps at the fast jumps.
      {"van der Pol",
       {2.0, 0.0},
       30.0,
       1e-10,
       1e-8,
       1.0,
       0.1,
       [](double, const double* y, double* dy) {
         dy[0] = y[1];
         dy[1] = 5.0 * (1.0 - y[0] * y[0]) * y[1] - y[0];
       }},
      // A particle under a time-dependent force in the plane (four variables), the step bounded
      // by max_dt as the event-driven solver bounds it, and a first step too large (rejected).
      {"forced plane",
       {-1.0, 0.0, 1.0, 0.0},
       3.0,
       1e-14,
       1e-12,
       0.06,
       2.0,
       [](double t, const double* y, double* dy) {
         dy[0] = y[2];
         dy[1] = y[3];
         dy[2] = std::sin(3.0 * t) - 0.1 * y[2];
         dy[3] = -1.0 + std::cos(t) * y[1];
       }},
  };
  for (const Problem& p : problems) {
    const Count count = compare(p);
    // Six evaluations a try (and the first derivative once): the tries beyond the steps were
    // rejected by the error estimate (a try cut to the step bound evaluates nothing).
    const long rejected = (count.evaluations - 1) / 6 - count.steps;
    INFO(p.name << ": " << count.steps << " steps, " << rejected << " rejected");
    CHECK(count.steps > 10);
    if (p.name == "van der Pol") CHECK(rejected > 0);
  }
}

}  // namespace dopri5_tests
