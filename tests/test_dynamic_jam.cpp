// The dynamic jam of Painleve's rod (Genot & Brogliato 1999; Glocker's example: g = 10,
// mu = 5/3, theta0 = 31 degrees, the end sliding at 30): a consistent slip whose p = (1 + 3 cos^2 -
// 5 sin cos) reaches 0 at tan(theta) = 1 together with b = -g + l sin(theta) theta'^2, the reaction
// -b/p growing without bound. event-driven against an integration of the same slip written apart
// in the time tau of dt/dtau = p, in which the equations are smooth (p lambda = -b); then what the
// realization does there.
#include <Eigen/Dense>
#include <array>
#include <boost/numeric/odeint.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "crbench/cases/registry.hpp"
#include "support.hpp"

namespace dynamic_jam_tests {

using namespace crbench;

constexpr double kG = 10.0, kMu = 5.0 / 3.0, kU0 = 30.0;
const double kTheta0 = 31.0 * std::numbers::pi / 180.0;

std::vector<Assignment> glocker() {
  return {{"g", "10"},
          {"mu", format_number(kMu)},
          {"theta0", format_number(kTheta0)},
          {"u0", format_number(kU0)}};
}

// The rod (unit mass and half-length, I = 1/3) sliding forward on the floor, from Newton-Euler:
// y = (x, y, theta, x', y', theta', t) in tau, the contact force lambda (J - mu a) with
// J = (0, 1, -cos), a = (1, 0, -sin) and p lambda = -b. Returns (p, b) at y.
std::array<double, 2> p_and_b(const std::array<double, 7>& y) {
  const double s = std::sin(y[2]), c = std::cos(y[2]);
  return {1.0 + 3.0 * c * c - 3.0 * kMu * s * c, -kG + s * y[5] * y[5]};
}

// The jam's time and state: the tau-integration run until p is below 1e-13 (t then moves by
// less than p/|dp/dt|, about 1e-14).
std::array<double, 7> jam_by_tau() {
  using Y = std::array<double, 7>;
  const auto rhs = [](const Y& y, Y& dy, double) {
    const auto [p, b] = p_and_b(y);
    const double s = std::sin(y[2]), c = std::cos(y[2]);
    // p times (F + (J - mu a) lambda), with p lambda = -b; A^-1 = diag(1, 1, 3).
    const Eigen::Vector3d Jmu(-kMu, 1.0, -c + kMu * s);
    const Eigen::Vector3d force = p * Eigen::Vector3d(0.0, -kG, 0.0) - b * Jmu;
    for (int i = 0; i < 3; ++i)
      dy[static_cast<std::size_t>(i)] = p * y[static_cast<std::size_t>(3 + i)];
    dy[3] = force(0);
    dy[4] = force(1);
    dy[5] = 3.0 * force(2);
    dy[6] = p;
  };
  namespace odeint = boost::numeric::odeint;
  auto stepper = odeint::make_controlled(1e-14, 1e-14, odeint::runge_kutta_dopri5<Y>());
  Y y{0.0, std::sin(kTheta0), kTheta0, kU0, 0.0, 0.0, 0.0};
  double tau = 0.0, dtau = 1e-4;
  while (p_and_b(y)[0] > 1e-13 && tau < 100.0) {
    Y trial = y;
    double t_trial = tau, dt = std::min(dtau, 1e-2);
    if (stepper.try_step(rhs, trial, t_trial, dt) == odeint::success) {
      y = trial;
      tau = t_trial;
    }
    dtau = dt;
  }
  REQUIRE(tau < 100.0);
  return y;
}

TEST_CASE(
    "event-driven: Glocker's slipping rod reaches the dynamic jam, located to 2e-12 against an "
    "integration in the desingularized time, and the run ends there with dynamic_jam",
    "[painleve][dynamic-jam]") {
  const auto jam = jam_by_tau();
  const auto [p_jam, b_jam] = p_and_b(jam);
  CHECK(std::abs(b_jam) < 1e-6);
  const auto model = make_model("painleve-rod", glocker());
  for (const char* integrator : {"dopri5", "dop853"}) {
    INFO(integrator);
    testing::SolveOptions o;
    o.t_end = 1.0;
    o.solver_params = {{"integrator", integrator}};
    const RunRecord r = testing::solve(*model, o);
    INFO(r.reason);
    REQUIRE(r.status == Status::dynamic_jam);
    REQUIRE_FALSE(r.events.empty());
    const Event& last = r.events.back();
    CHECK(last.kind == EventKind::dynamic_jam);
    CHECK(last.index == 0);
    CHECK(last.t == Approx(jam[6]).margin(2e-12));
    // The record's final state is the jam's: p = 0 at tan(theta) = 1 for mu = 5/3 (1 + 3 c^2 =
    // 5 s c), and b = 0 there, theta' = sqrt(g/sin(theta)).
    CHECK(r.final_state.t == last.t);
    CHECK(r.final_state.q(2) == Approx(std::numbers::pi / 4.0).margin(1e-10));
    CHECK(r.final_state.v(2) == Approx(std::sqrt(kG * std::numbers::sqrt2)).epsilon(1e-6));
    for (int i = 0; i < 3; ++i) {
      CHECK(r.final_state.v(i) == Approx(jam[static_cast<std::size_t>(3 + i)]).epsilon(1e-6));
    }
    // The impulse up to the jam is finite: y' at the jam = -g t_j + its integral.
    CHECK(r.constraint_impulse[0] == Approx(jam[4] + kG * jam[6]).epsilon(1e-8));
  }
}

// The velocities just after the impulse that stops the slip at the jam with v_n unchanged: P_n =
// -u/q, q = W_tn - mu W_tt, (x', y', theta') += A^-1 (J - mu a) P_n, from the tau-integration's
// state (the limit p -> 0- of the impact without collision, written apart from the solver).
std::array<double, 3> after_jam_impulse(const std::array<double, 7>& jam) {
  const double s = std::sin(jam[2]), c = std::cos(jam[2]);
  const double W_tn = 3.0 * s * c, W_tt = 1.0 + 3.0 * s * s;
  const double u = jam[3] - s * jam[5];
  const double Pn = -u / (W_tn - kMu * W_tt);
  return {jam[3] - kMu * Pn, jam[4] + Pn, jam[5] + 3.0 * (-c + kMu * s) * Pn};
}

TEST_CASE(
    "event-driven with impact_law energetic continues past the jam (an impulse stops the slip and "
    "leaves v_n at 0, the rod lifts off) and the damped realization converges to it",
    "[painleve][dynamic-jam][coulomb-realization]") {
  const auto jam = jam_by_tau();
  const auto after = after_jam_impulse(jam);
  const auto model = make_model("painleve-rod", glocker());
  testing::SolveOptions o;
  o.t_end = 1.0;
  o.solver_params = {{"impact_law", "energetic"}, {"restitution", "0"}};
  const RunRecord ideal = testing::solve(*model, o);
  INFO(ideal.reason);
  REQUIRE(ideal.status == Status::ok);
  std::vector<EventKind> kinds;
  for (const auto& e : ideal.events) {
    if (e.t > 0.0) {
      kinds.push_back(e.kind);
      CHECK(e.t == Approx(jam[6]).margin(1e-9));
    }
    if (e.kind == EventKind::impact) {
      CHECK(*e.rate_before == Approx(0.0).margin(1e-8));
      CHECK(*e.rate_after == Approx(0.0).margin(1e-8));
    }
  }
  CHECK(kinds ==
        std::vector<EventKind>{EventKind::dynamic_jam, EventKind::impact, EventKind::lift_off});
  // In flight after: x' and theta' stay, y' falls at g.
  CHECK(ideal.final_state.v(0) == Approx(after[0]).epsilon(1e-7));
  CHECK(ideal.final_state.v(1) == Approx(after[1] - kG * (1.0 - jam[6])).epsilon(1e-7));
  CHECK(ideal.final_state.v(2) == Approx(after[2]).epsilon(1e-7));
  // Stronge's e* does not matter there: the compression stores nothing.
  o.solver_params = {{"impact_law", "energetic"}, {"restitution", "1"}};
  CHECK(testing::solve(*model, o).final_state.v(0) == Approx(ideal.final_state.v(0)));

  // The medium (0, 1, 1) on one side (obstacle): after the jam its slip stops within
  // O(N^(-1/2)) (up to logarithms: the rate of growth |p| beta N with |p| rising linearly from
  // 0) and the rod leaves; its velocities after tend to the impulse's.
  std::vector<double> exit_delay, error;
  for (const double N : {1e4, 1e5, 1e6}) {
    INFO("N " << N);
    testing::SolveOptions r;
    r.solver = "realization";
    r.t_end = 1.0;
    r.solver_params = {{"N", format_number(N)},
                       {"alpha", "0"},
                       {"beta", "1"},
                       {"gamma", "1"},
                       {"interaction", "obstacle"}};
    const RunRecord run = testing::solve(*model, r);
    REQUIRE(run.status == Status::ok);
    REQUIRE(run.lift_off_time);
    exit_delay.push_back(*run.lift_off_time - jam[6]);
    error.push_back((run.final_state.v - ideal.final_state.v).lpNorm<Eigen::Infinity>());
  }
  for (std::size_t i = 0; i < 3; ++i) CHECK(exit_delay[i] > 0.0);
  for (std::size_t i = 1; i < 3; ++i) {
    CHECK(exit_delay[i] < exit_delay[i - 1] / 2.5);
    CHECK(error[i] < error[i - 1] / 2.5);
  }
  CHECK(error[2] < 0.05);
}

}  // namespace dynamic_jam_tests
