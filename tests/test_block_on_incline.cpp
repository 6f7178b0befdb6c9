// block-on-incline: Coulomb friction in the ideal model. The case's closed forms against an
// integration of the sliding equation that does not use them, and event-driven's stick and slip
// against the closed forms; the solvers without Coulomb friction refuse the case.
#include <Eigen/Dense>
#include <array>
#include <boost/numeric/odeint.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "crbench/cases/block_on_incline.hpp"
#include "crbench/cases/painleve_rod.hpp"
#include "crbench/cases/registry.hpp"
#include "support.hpp"

namespace block_on_incline_tests {

using namespace crbench;

// x'' = g sin(angle) + k t - mu g cos(angle) sign(x') from (t0, x0, v0) while x' stays of one
// sign (a sliding block), by Odeint's Runge-Kutta-Fehlberg 7(8) at 1e-13, to t1 or to where the
// slip reaches 0 (bisected on the dense output to 1e-14): the end time and (x, x').
struct Slide {
  double t;
  double x;
  double v;
};
Slide integrate_slide(const std::array<double, 5>& p, double t0, double x0, double v0, double t1) {
  const auto [angle, mu, g, k, sign] = p;
  using Y = std::array<double, 2>;
  const auto rhs = [&](const Y& y, Y& dy, double t) {
    dy[0] = y[1];
    dy[1] = g * std::sin(angle) + k * t - mu * g * std::cos(angle) * sign;
  };
  namespace odeint = boost::numeric::odeint;
  auto stepper = odeint::make_dense_output(1e-13, 1e-13, odeint::runge_kutta_dopri5<Y>());
  stepper.initialize(Y{x0, v0}, t0, 1e-4);
  while (stepper.current_time() < t1) {
    stepper.do_step(rhs);
    if (sign * stepper.current_state()[1] <= 0.0) {
      double lo = stepper.previous_time(), hi = stepper.current_time();
      Y y;
      while (hi - lo > 1e-14) {
        const double mid = 0.5 * (lo + hi);
        stepper.calc_state(mid, y);
        (sign * y[1] > 0.0 ? lo : hi) = mid;
      }
      stepper.calc_state(hi, y);
      return {hi, y[0], y[1]};
    }
  }
  Y y;
  stepper.calc_state(t1, y);
  return {t1, y[0], y[1]};
}

const Event* first_event(const RunRecord& r, EventKind kind) {
  for (const auto& e : r.events) {
    if (e.kind == kind) return &e;
  }
  return nullptr;
}

TEST_CASE("block-on-incline: the closed forms agree with an integration of the slide",
          "[block-on-incline][cases]") {
  // Launched down an incline below the friction angle: it stops.
  for (const auto& [angle, mu, v0] :
       {std::array<double, 3>{0.3, 0.5, 1.0}, std::array<double, 3>{0.1, 0.9, 3.0},
        std::array<double, 3>{0.7, 1.2, 0.5}}) {
    INFO("angle " << angle << ", mu " << mu << ", v0 " << v0);
    const cases::BlockOnIncline block(
        ParamValues{{"angle", angle}, {"mu", mu}, {"g", 9.81}, {"v0", v0}, {"ramp", 0.0}});
    const Slide stop = integrate_slide({angle, mu, 9.81, 0.0, 1.0}, 0.0, 0.0, v0, 100.0);
    CHECK(block.stop_time() == Approx(stop.t).epsilon(1e-12));
    CHECK((*block.classical_q(2.0 * stop.t))(0) == Approx(stop.x).epsilon(1e-12));
  }
  // At rest below the friction angle, pushed by the ramp: the slide after the threshold.
  const cases::BlockOnIncline pushed(
      ParamValues{{"angle", 0.3}, {"mu", 0.5}, {"g", 9.81}, {"v0", 0.0}, {"ramp", 2.0}});
  const double ts = pushed.slip_time();
  // At ts the driving force equals the cone: g sin(angle) + k ts = mu g cos(angle).
  CHECK(9.81 * std::sin(0.3) + 2.0 * ts == Approx(0.5 * 9.81 * std::cos(0.3)).epsilon(1e-14));
  const Slide later = integrate_slide({0.3, 0.5, 9.81, 2.0, 1.0}, ts, 0.0, 0.0, 2.0 * ts);
  CHECK((*pushed.classical_q(2.0 * ts))(0) == Approx(later.x).epsilon(1e-11));
  // Above the friction angle from rest: it slides at once.
  const cases::BlockOnIncline steep(
      ParamValues{{"angle", 0.6}, {"mu", 0.5}, {"g", 9.81}, {"v0", 0.0}, {"ramp", 0.0}});
  CHECK(steep.slip_time() == 0.0);
  const Slide slide = integrate_slide({0.6, 0.5, 9.81, 0.0, 1.0}, 0.0, 0.0, 0.0, 1.5);
  CHECK((*steep.classical_q(1.5))(0) == Approx(slide.x).epsilon(1e-12));
}

TEST_CASE("block-on-incline: event-driven slides, stops and sticks where Coulomb's law says",
          "[block-on-incline]") {
  const auto check_run = [](const std::vector<Assignment>& params, EventKind kind,
                            double event_time) {
    const auto model = make_model("block-on-incline", params);
    const cases::BlockOnIncline block(model->params());
    double worst = 0.0;
    testing::SolveOptions o;
    o.output_times = testing::grid(0.0, model->horizon(), 201);
    o.on_sample = [&](const TrajectorySample& s) {
      if (!s.label.empty()) return;
      const auto q = block.classical_q(s.x.t);
      REQUIRE(q);
      worst = std::max(worst, (s.x.q - *q).lpNorm<Eigen::Infinity>());
      // On the incline the normal reaction is g cos(angle), sliding or not.
      if (s.x.t > 0.0) CHECK(s.lambda(0) == Approx(9.81 * std::cos(0.3)).epsilon(1e-12));
    };
    const RunRecord r = testing::solve(*model, o);
    REQUIRE(r.status == Status::ok);
    const Event* e = first_event(r, kind);
    REQUIRE(e != nullptr);
    CHECK(e->t == Approx(event_time).epsilon(1e-10));
    CHECK(worst <= 1e-10);
    return r;
  };
  SECTION("launched down below the friction angle, it stops at the closed form's time") {
    const auto model = make_model("block-on-incline", {});
    const cases::BlockOnIncline block(model->params());
    const RunRecord r = check_run({}, EventKind::kinematic_contact, block.stop_time());
    // It slides from the start and sticks after: no other friction event.
    REQUIRE(first_event(r, EventKind::kinematic_release) != nullptr);
    CHECK(first_event(r, EventKind::kinematic_release)->t == 0.0);
    CHECK(std::abs(r.final_state.v(0)) <= 1e-12);
  }
  SECTION("at rest, pushed by the ramp, it starts to slide where the cone is reached") {
    const std::vector<Assignment> params = {{"v0", "0"}, {"ramp", "2"}};
    const cases::BlockOnIncline block(make_model("block-on-incline", params)->params());
    const RunRecord r = check_run(params, EventKind::kinematic_release, block.slip_time());
    CHECK(first_event(r, EventKind::kinematic_contact) == nullptr);
  }
}

TEST_CASE(
    "block-on-incline: a steep incline slides at once, and a solver without Coulomb friction "
    "refuses the case",
    "[block-on-incline][cli]") {
  const auto model = make_model("block-on-incline", {{"angle", "0.6"}, {"v0", "0"}});
  const cases::BlockOnIncline block(model->params());
  testing::SolveOptions o;
  const RunRecord r = testing::solve(*model, o);
  REQUIRE(r.status == Status::ok);
  const double t = r.final_state.t;
  CHECK(r.final_state.q(0) == Approx((*block.classical_q(t))(0)).epsilon(1e-11));
  testing::check_refused({"run", "--case", "block-on-incline", "--solver", "limit"},
                         "does not compute Coulomb friction");
}

// The rod's reaction at the start of a slide, from its Newton-Euler equations about the centre
// (independent of the case's generalized coordinates): m x'' = -mu s lambda, m y'' = lambda - m g,
// and the torque tau of the force (-mu s lambda, lambda) at A = centre + l (cos, -sin) turns the
// body counter-clockwise, i.e. by -theta (A hangs below the centre at angle theta): I theta'' =
// -tau. A's height y - l sin(theta) then has y_A'' = y'' - l cos(theta) theta'' at theta' = 0,
// and the p of y_A'' = -g + p lambda gives lambda = g/p where p > 0.
double rod_p(double m, double l, double mu, double theta, int s) {
  const double I = m * l * l / 3.0;
  const double c = std::cos(theta), si = std::sin(theta);
  // tau per unit lambda: r_x F_y - r_y F_x with r = (l c, -l si), F = (-mu s, 1).
  const double tau = l * c * 1.0 - (-l * si) * (-mu * s);
  return 1.0 / m - l * c * (-tau / I);
}

TEST_CASE(
    "painleve-rod: a consistent slip carries the coupled reaction, and an inconsistent start "
    "ends the run with painleve_paradox at t = 0",
    "[block-on-incline][painleve]") {
  // Consistent: mu = 0.3 at 45 degrees, the end sliding forward.
  const auto model = make_model("painleve-rod", {});
  const cases::PainleveRod rod(model->params());
  const double p = rod_p(1.0, 1.0, 0.3, rod.theta0, 1);
  CHECK(p == Approx(rod.p(rod.theta0, 1)).epsilon(1e-14));
  REQUIRE(p > 0.0);
  double lambda0 = std::nan("");
  testing::SolveOptions o;
  o.output_times = {0.0};
  o.on_sample = [&](const TrajectorySample& s) {
    if (s.label.empty() && std::isnan(lambda0)) lambda0 = s.lambda(0);
  };
  const RunRecord r = testing::solve(*model, o);
  INFO(r.reason);
  REQUIRE(r.status == Status::ok);
  // The friction lowers the reaction below the frictionless g/(1 + 3 cos^2) by the coupling.
  CHECK(lambda0 == Approx(9.81 / p).epsilon(1e-12));
  CHECK(lambda0 == Approx(*model->facts().value("lambda at the start")).epsilon(1e-12));
  CHECK(std::abs(lambda0 - 9.81 / (1.0 + 3.0 * 0.5)) > 0.1);
  // Inconsistent: mu = 2, tan(theta0) = 2, u0 = 1 (p < 0, b = -g < 0): no reaction solves it.
  const auto inconsistent = make_model(
      "painleve-rod", {{"mu", "2"}, {"theta0", std::to_string(std::atan(2.0))}, {"u0", "1"}});
  CHECK(rod_p(1.0, 1.0, 2.0, std::atan(2.0), 1) < 0.0);
  const RunRecord bad = testing::solve(*inconsistent, {});
  CHECK(bad.status == Status::painleve_paradox);
  CHECK(bad.final_state.t == 0.0);
  CHECK_THAT(bad.reason, Catch::Contains("no solution or several"));
  // Sliding the other way the same rod is consistent (p > 0).
  const auto backward = make_model(
      "painleve-rod", {{"mu", "2"}, {"theta0", std::to_string(std::atan(2.0))}, {"u0", "-1"}});
  CHECK(rod_p(1.0, 1.0, 2.0, std::atan(2.0), -1) > 0.0);
  CHECK(testing::solve(*backward, {}).status == Status::ok);
}

}  // namespace block_on_incline_tests
