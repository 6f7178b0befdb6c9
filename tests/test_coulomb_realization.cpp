// Coulomb friction under realization: the viscous slip friction beta_t N bounded by the cone
// mu lambda (docs/theory.md section 2), on block-on-incline. The creep below the friction angle
// against its closed form, the slide against an independent integration of the same compliant
// equations, and the O(1/N) shifts of the stop and slip times against their derived
// coefficients.
#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <boost/numeric/odeint.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "crbench/cases/block_on_incline.hpp"
#include "crbench/cases/registry.hpp"
#include "support.hpp"

namespace coulomb_realization_tests {

using namespace crbench;

constexpr double kG = 9.81;

testing::SolveOptions realization(double N, double slip_beta) {
  testing::SolveOptions o;
  o.solver = "realization";
  o.solver_params = {{"N", std::to_string(N)},
                     {"alpha", "0"},
                     {"beta", "1"},
                     {"gamma", "1"},
                     {"slip_beta", std::to_string(slip_beta)}};
  return o;
}

std::vector<const Event*> friction_events(const RunRecord& r) {
  std::vector<const Event*> out;
  for (const auto& e : r.events) {
    if (e.kind == EventKind::kinematic_contact || e.kind == EventKind::kinematic_release) {
      out.push_back(&e);
    }
  }
  return out;
}

// The compliant block written out apart from the solver: unit mass, x along the incline, y the
// height, lambda = -N(beta y' + gamma y) while positive, and the slip friction
// clamp(beta_t N x', -mu lambda, mu lambda). Odeint's Dormand-Prince 5 with dense output at
// 1e-12; returns (x, x', y, y') at t1 and the first time the friction leaves the cone after
// having been on it (the stop), or NaN.
struct Compliant {
  Eigen::Vector4d y;
  double stop;
};
Compliant integrate_compliant(double angle, double mu, double v0, double N, double beta_t,
                              double t1) {
  using Y = std::array<double, 4>;
  const double s = std::sin(angle), c = std::cos(angle);
  const auto cone_excess = [&](const Y& y) {
    const double lambda = std::max(0.0, -N * (y[3] + y[2]));
    return std::abs(beta_t * N * y[1]) - mu * lambda;
  };
  const auto rhs = [&](const Y& y, Y& dy, double /*t*/) {
    const double lambda = std::max(0.0, -N * (y[3] + y[2]));
    const double bound = mu * lambda;
    const double friction = std::clamp(beta_t * N * y[1], -bound, bound);
    dy[0] = y[1];
    dy[1] = kG * s - friction;
    dy[2] = y[3];
    dy[3] = -kG * c - N * (y[3] + y[2]);
  };
  namespace odeint = boost::numeric::odeint;
  auto stepper = odeint::make_dense_output(1e-12, 1e-12, odeint::runge_kutta_dopri5<Y>());
  stepper.initialize(Y{0.0, v0, 0.0, 0.0}, 0.0, 1e-3 / N);
  double stop = std::nan("");
  bool on_cone = false;
  while (stepper.current_time() < t1) {
    stepper.do_step(rhs);
    const double excess = cone_excess(stepper.current_state());
    if (excess > 0.0) on_cone = true;
    if (on_cone && std::isnan(stop) && excess < 0.0) {
      double lo = stepper.previous_time(), hi = stepper.current_time();
      Y y;
      while (hi - lo > 1e-15) {
        const double mid = 0.5 * (lo + hi);
        stepper.calc_state(mid, y);
        (cone_excess(y) > 0.0 ? lo : hi) = mid;
      }
      stop = hi;
    }
  }
  Y y;
  stepper.calc_state(t1, y);
  return {Eigen::Vector4d(y[0], y[1], y[2], y[3]), stop};
}

TEST_CASE(
    "realization: a block at rest below the friction angle creeps at g sin(angle)/(beta_t N), "
    "the closed form of its viscous stick",
    "[coulomb-realization][block-on-incline]") {
  const auto model = make_model("block-on-incline", {{"v0", "0"}});
  const double s = std::sin(0.3), T = 2.0;
  for (const double N : {1e3, 1e5}) {
    INFO("N " << N);
    // beta_t = 1: mu beta cos(angle) > beta_t sin(angle), so the friction never reaches the
    // cone while the normal reaction builds up, and x'' = g sin - beta_t N x' from the start.
    testing::SolveOptions o = realization(N, 1.0);
    o.t_end = T;
    const RunRecord r = testing::solve(*model, o);
    REQUIRE(r.status == Status::ok);
    const double D = N;
    const double x = kG * s / D * (T - (1.0 - std::exp(-D * T)) / D);
    CHECK(r.final_state.q(0) == Approx(x).epsilon(1e-9));
    CHECK(r.final_state.v(0) * N == Approx(kG * s).epsilon(1e-9));
    const auto events = friction_events(r);
    REQUIRE(events.size() == 1);
    CHECK(events[0]->kind == EventKind::kinematic_contact);
    CHECK(events[0]->t == 0.0);
    // beta_t = 2 > mu beta cos/sin: on the cone at first, while the reaction is still small,
    // then creeping at half the speed.
    o = realization(N, 2.0);
    o.t_end = T;
    const RunRecord fast = testing::solve(*model, o);
    REQUIRE(fast.status == Status::ok);
    const auto modes = friction_events(fast);
    REQUIRE(modes.size() == 2);
    CHECK(modes[0]->kind == EventKind::kinematic_release);
    CHECK(modes[0]->t == 0.0);
    CHECK(modes[1]->kind == EventKind::kinematic_contact);
    CHECK(modes[1]->t < 10.0 / N);
    CHECK(fast.final_state.v(0) * 2.0 * N == Approx(kG * s).epsilon(1e-9));
  }
}

TEST_CASE(
    "realization: a block launched below the friction angle slides and stops as the compliant "
    "equations integrated apart say, its stop O(1/N) early by the derived coefficient",
    "[coulomb-realization][block-on-incline]") {
  const auto model = make_model("block-on-incline", {});
  const cases::BlockOnIncline block(model->params());
  const double t_star = block.stop_time(), T = 2.0 * t_star;
  const auto stop_of = [](const RunRecord& r) {
    const auto events = friction_events(r);
    REQUIRE(events.size() == 2);
    CHECK(events[0]->kind == EventKind::kinematic_release);
    CHECK(events[1]->kind == EventKind::kinematic_contact);
    return events[1]->t;
  };
  {
    const double N = 1e3;
    testing::SolveOptions o = realization(N, 1.0);
    o.t_end = T;
    const RunRecord r = testing::solve(*model, o);
    REQUIRE(r.status == Status::ok);
    const Compliant c = integrate_compliant(0.3, 0.5, 1.0, N, 1.0, T);
    CHECK(stop_of(r) == Approx(c.stop).epsilon(1e-9));
    CHECK(r.final_state.q(0) == Approx(c.y(0)).epsilon(1e-8));
    CHECK(r.final_state.v(0) == Approx(c.y(1)).epsilon(1e-6));
    CHECK(r.final_state.q(1) == Approx(c.y(2)).epsilon(1e-8));
  }
  // The stop comes early by C/N: the slide ends where beta_t N x' = mu lambda, at the speed
  // mu g cos/(beta_t N), while the reaction's deficit int (g cos - lambda) = -y' =
  // g cos exp(-gamma t/beta)/(beta N) (the medium's slow mode) leaves the speed higher by mu
  // times it: C = mu g cos (exp(-gamma t*/beta)/beta - 1/beta_t)/|a|.
  const double a = block.slide_acceleration(), c = std::cos(0.3);
  const double C = 0.5 * kG * c * (std::exp(-t_star) - 1.0) / -a;
  for (const double N : {1e4, 1e5}) {
    INFO("N " << N);
    testing::SolveOptions o = realization(N, 1.0);
    o.t_end = T;
    const RunRecord r = testing::solve(*model, o);
    REQUIRE(r.status == Status::ok);
    CHECK(N * (stop_of(r) - t_star) == Approx(C).epsilon(2e-3));
  }
}

TEST_CASE(
    "realization: a block at rest pushed by the ramp leaves the cone O(1/N) late by the derived "
    "coefficient, and slides above the friction angle",
    "[coulomb-realization][block-on-incline]") {
  const double k = 3.0;
  const auto model = make_model("block-on-incline", {{"v0", "0"}, {"ramp", "3"}});
  const cases::BlockOnIncline block(model->params());
  const double ts = block.slip_time();
  // Creeping, beta_t N x' trails g sin + k t by k/(beta_t N), and lambda exceeds g cos by the
  // slow mode's y'' = g cos gamma exp(-gamma t/beta)/(beta^2 N): the cone is reached at
  // ts + (1/beta_t + mu g cos gamma exp(-gamma ts/beta)/(beta^2 k))/N.
  const double C = 1.0 + 0.5 * kG * std::cos(0.3) * std::exp(-ts) / k;
  for (const double N : {1e4, 1e5}) {
    INFO("N " << N);
    testing::SolveOptions o = realization(N, 1.0);
    o.t_end = 2.0 * ts;
    const RunRecord r = testing::solve(*model, o);
    REQUIRE(r.status == Status::ok);
    const auto events = friction_events(r);
    REQUIRE(events.size() == 2);
    CHECK(events[1]->kind == EventKind::kinematic_release);
    CHECK(N * (events[1]->t - ts) == Approx(C).epsilon(2e-3));
  }
  // Above the friction angle from rest: on the cone from the start, and x(T) within O(1/N) of
  // the rigid slide, as the separate integration says.
  const auto steep = make_model("block-on-incline", {{"angle", "0.6"}, {"mu", "0.3"}, {"v0", "0"}});
  const cases::BlockOnIncline steep_block(steep->params());
  testing::SolveOptions o = realization(1e3, 1.0);
  o.t_end = 1.5;
  const RunRecord r = testing::solve(*steep, o);
  REQUIRE(r.status == Status::ok);
  const auto events = friction_events(r);
  REQUIRE(events.size() == 1);
  CHECK(events[0]->kind == EventKind::kinematic_release);
  const Compliant c = integrate_compliant(0.6, 0.3, 0.0, 1e3, 1.0, 1.5);
  CHECK(r.final_state.q(0) == Approx(c.y(0)).epsilon(1e-8));
  CHECK(std::abs(r.final_state.q(0) - (*steep_block.classical_q(1.5))(0)) < 10.0 / 1e3);
}

// The cone bounds the viscous friction alone (kinematic_dynamics needs alpha = 0), and a case with
// unilateral and kinematic constraints is realized without added mass anyway.
TEST_CASE("realization: Coulomb friction refuses the added mass", "[coulomb-realization][cli]") {
  testing::check_refused(
      {"run", "--case", "block-on-incline", "--solver", "realization", "--alpha", "1"},
      "alpha = 1 with unilateral and kinematic constraints in one case");
}

}  // namespace coulomb_realization_tests
