// The dopri5 stepper (solvers/dopri5.hpp) against Boost.Odeint's make_dense_output(atol, rtol,
// max_dt, runge_kutta_dopri5<std::vector<double>>()), which it replaces in the event-driven
// solver: the same step times, states and dense output, bit for bit, on problems that exercise
// accepted and rejected steps, the step bound, a time-dependent right-hand side and four
// variables, the event-driven solver's size. Every stepper of the smooth phases as one concept
// (solvers/dense_stepper.hpp), stepped by one algorithm, and the one way a failed step ends a run.
// The event-driven and limit solvers give the same records with Odeint's own stepper.
#include <algorithm>
#include <boost/numeric/odeint.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "crbench/cases/registry.hpp"
#include "crbench/solvers/dense_stepper.hpp"
#include "crbench/solvers/dop853.hpp"
#include "crbench/solvers/dopri5.hpp"
#include "crbench/solvers/rosenbrock.hpp"
#include "support.hpp"

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

namespace {

using Vector = Eigen::VectorXd;
// The systems each stepper takes: arrays (the dopri5s), Eigen vectors (DOP853), and the pair of
// Eigen right-hand side and Jacobian (Rosenbrock, as Odeint's implicit steppers).
using ArrayRhs = void (*)(double, const double*, double*);
using VectorRhs = void (*)(double, const Vector&, Vector&);
using Jacobian = void (*)(double, const Vector&, Eigen::MatrixXd&, Vector&);
using StiffSystem = std::pair<VectorRhs, Jacobian>;
static_assert(crbench::DenseStepper<crbench::Dopri5Dense, ArrayRhs>);
static_assert(crbench::DenseStepper<crbench::OdeintDopri5, ArrayRhs>);
static_assert(crbench::DenseStepper<crbench::Dop853Dense, VectorRhs>);
static_assert(crbench::DenseStepper<crbench::RosenbrockDense, StiffSystem>);

// The harmonic oscillator y'' = -y from (1, 0), with every stepper the same algorithm: steps to
// t_end (the last one cut to end there) and the dense output at mid-step; the largest deviation
// from (cos t, -sin t).
template <class Stepper, class System>
requires crbench::DenseStepper<Stepper, System>
double oscillator_error(Stepper& stepper, System& system, double t_end) {
  stepper.initialize(Vector::Unit(2, 0), 0.0, 1e-3);
  double error = 0.0;
  Vector y;
  const auto deviation = [&](double t) {
    stepper.calc_state(t, y);
    return std::max(std::abs(y(0) - std::cos(t)), std::abs(y(1) + std::sin(t)));
  };
  while (stepper.current_time() < t_end) {
    if (stepper.current_time() + stepper.step_size() > t_end) {
      const Vector current = crbench::current_state_of(stepper);
      stepper.initialize(current, stepper.current_time(), t_end - stepper.current_time());
    }
    const auto [t0, t1] = crbench::checked_step(stepper, system);
    error = std::max({error, deviation(0.5 * (t0 + t1)), deviation(t1)});
  }
  CHECK(stepper.current_time() == t_end);
  return error;
}

void oscillator_array(double, const double* y, double* dy) {
  dy[0] = y[1];
  dy[1] = -y[0];
}
void oscillator_vector(double, const Vector& y, Vector& dy) { dy << y(1), -y(0); }
void oscillator_jacobian(double, const Vector&, Eigen::MatrixXd& J, Vector& dfdt) {
  J.resize(2, 2);
  J << 0.0, 1.0, -1.0, 0.0;
  dfdt.setZero(2);
}

// a/t after t = 0 (0 there): every trial step from t = 0 (where the state and its derivative are
// 0) changes the state by the same amount whatever its length, so the error estimate is the same
// at every try. With a = 0.25 and atol 1e-3 it is about 2 for dopri5: each rejection shrinks the
// step by 0.71 only (no underflow to a zero step in 500 tries), and none is ever accepted.
void singular_array(double t, const double*, double* dy) {
  dy[0] = t > 0.0 ? 0.25 / t : 0.0;
  dy[1] = 0.0;
}
void singular_vector(double t, const Vector&, Vector& dy) { dy << (t > 0.0 ? 0.25 / t : 0.0), 0.0; }

template <class Stepper, class System>
void expect_step_failure(Stepper& stepper, System& system, const std::string& name) {
  INFO(name);
  stepper.initialize(Vector::Zero(2), 0.0, 0.1);
  try {
    crbench::checked_step(stepper, system);
    FAIL("the step was taken");
  } catch (const crbench::RunFailure& failure) {
    CHECK(failure.status == crbench::Status::step_failure);
    CHECK(failure.reason.rfind("integrator: ", 0) == 0);
    CHECK(failure.reason.find(" at t = 0") != std::string::npos);
  }
}

}  // namespace

TEST_CASE("Every dense stepper is one concept, stepped by one algorithm", "[dopri5][fast]") {
  ArrayRhs array = oscillator_array;
  VectorRhs vector = oscillator_vector;
  StiffSystem stiff{oscillator_vector, oscillator_jacobian};
  crbench::Dopri5Dense dopri5(1e-14, 1e-12, 0.5);
  crbench::OdeintDopri5 odeint_dopri5(1e-14, 1e-12, 0.5);
  crbench::Dop853Dense dop853(Vector::Constant(2, 1e-14), 1e-12, 0.5);
  crbench::RosenbrockDense rosenbrock(Vector::Constant(2, 1e-12), 1e-10, 0.5);
  const double e_dopri5 = oscillator_error(dopri5, array, 10.0);
  const double e_odeint = oscillator_error(odeint_dopri5, array, 10.0);
  const double e_dop853 = oscillator_error(dop853, vector, 10.0);
  const double e_rosenbrock = oscillator_error(rosenbrock, stiff, 10.0);
  INFO("dopri5 " << e_dopri5 << ", odeint " << e_odeint << ", dop853 " << e_dop853
                 << ", rosenbrock " << e_rosenbrock);
  // The port and Odeint's own: the same numbers through the same algorithm.
  CHECK(e_dopri5 == e_odeint);
  CHECK(e_dopri5 < 1e-10);
  CHECK(e_dop853 < 1e-10);
  CHECK(e_rosenbrock < 1e-7);
}

TEST_CASE("A stepper that finds no step ends the run as step_failure, in one way",
          "[dopri5][fast]") {
  ArrayRhs array = singular_array;
  VectorRhs vector = singular_vector;
  crbench::Dopri5Dense dopri5(1e-3, 1e-12, 1.0);
  crbench::OdeintDopri5 odeint_dopri5(1e-3, 1e-12, 1.0);
  crbench::Dop853Dense dop853(Vector::Constant(2, 1e-3), 1e-12, 1.0);
  expect_step_failure(dopri5, array, "dopri5");
  expect_step_failure(odeint_dopri5, array, "odeint-dopri5");
  expect_step_failure(dop853, vector, "dop853");
}

TEST_CASE("event-driven and limit: the same records with Odeint's dopri5 as with the port",
          "[dopri5]") {
  using namespace crbench;
  for (const auto& [case_name, solver] :
       std::vector<std::pair<std::string, std::string>>{{"dk-plane", "event-driven"},
                                                        {"particle-on-circle", "event-driven"},
                                                        {"bouncing-ball-siconos", "event-driven"},
                                                        {"dk-plane", "limit"},
                                                        {"particle-on-circle", "limit"}}) {
    INFO(case_name << " / " << solver);
    const auto model = make_model(case_name, {});
    const auto record = [&](const char* integrator) {
      testing::SolveOptions o;
      o.solver = solver;
      o.solver_params = {{"integrator", integrator}};
      o.output_times = testing::grid(model->initial_state().t, model->horizon(), 101);
      nlohmann::ordered_json j = to_json(testing::solve(*model, o), false);
      for (const char* part : {"solver_params", "solver_choices", "parameter_sources"}) {
        if (j.contains(part)) j[part].erase("integrator");
      }
      return j;
    };
    const nlohmann::ordered_json port = record("dopri5"), odeint = record("odeint-dopri5");
    CHECK(port["status"] == "ok");
    CHECK(port["steps"].get<long>() > 10);
    for (const auto& [key, value] : port.items()) {
      INFO(key);
      CHECK(value.dump() == odeint[key].dump());
    }
    CHECK(port.size() == odeint.size());
  }
}

}  // namespace dopri5_tests
