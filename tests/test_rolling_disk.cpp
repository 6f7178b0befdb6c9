// rolling-disk: a disk or a sphere launched sliding with spin on a rough floor. The case's closed
// forms against an integration of the sliding equations that does not use them; event-driven's
// start of rolling and rolling speed; the realization's start of rolling O(1/N) late by the
// derived coefficient.
#include <Eigen/Dense>
#include <array>
#include <boost/numeric/odeint.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "crbench/cases/registry.hpp"
#include "crbench/cases/rolling_disk.hpp"
#include "support.hpp"

namespace rolling_disk_tests {

using namespace crbench;

const Event* first_event(const RunRecord& r, EventKind kind) {
  for (const auto& e : r.events) {
    if (e.kind == kind) return &e;
  }
  return nullptr;
}

// x'' = -mu g s, phi'' = -mu g s r/J while u = x' + r phi' keeps the sign s it starts with, by
// Odeint's Dormand-Prince 5 at 1e-13, the stop of u bisected on the dense output: (t_r, x', phi').
std::array<double, 3> integrate_slide(double r, double J, double mu, double g, double vx0,
                                      double omega0) {
  using Y = std::array<double, 4>;  // x, x', phi, phi'
  const double s = vx0 + r * omega0 > 0.0 ? 1.0 : -1.0;
  const auto rhs = [&](const Y& y, Y& dy, double) {
    dy[0] = y[1];
    dy[1] = -mu * g * s;
    dy[2] = y[3];
    dy[3] = -mu * g * s * r / J;
  };
  namespace odeint = boost::numeric::odeint;
  auto stepper = odeint::make_dense_output(1e-13, 1e-13, odeint::runge_kutta_dopri5<Y>());
  stepper.initialize(Y{0.0, vx0, 0.0, omega0}, 0.0, 1e-4);
  const auto slip = [&](const Y& y) { return s * (y[1] + r * y[3]); };
  for (;;) {
    stepper.do_step(rhs);
    if (slip(stepper.current_state()) > 0.0) continue;
    double lo = stepper.previous_time(), hi = stepper.current_time();
    Y y;
    while (hi - lo > 1e-15) {
      const double mid = 0.5 * (lo + hi);
      stepper.calc_state(mid, y);
      (slip(y) > 0.0 ? lo : hi) = mid;
    }
    stepper.calc_state(hi, y);
    return {hi, y[1], y[3]};
  }
}

TEST_CASE("rolling-disk: the closed forms agree with an integration of the slide",
          "[rolling-disk][cases]") {
  for (const auto& [sphere, vx0, omega0, mu] :
       {std::array<double, 4>{0.0, 2.0, 4.0, 0.3}, std::array<double, 4>{1.0, 2.0, 4.0, 0.3},
        std::array<double, 4>{0.0, 2.0, -10.0, 0.5}, std::array<double, 4>{1.0, -1.0, 0.0, 0.1}}) {
    INFO("sphere " << sphere << ", vx0 " << vx0 << ", omega0 " << omega0 << ", mu " << mu);
    const cases::RollingDisk disk(ParamValues{
        {"r", 0.5}, {"g", 9.81}, {"mu", mu}, {"sphere", sphere}, {"vx0", vx0}, {"omega0", omega0}});
    const double J = (sphere != 0.0 ? 0.4 : 0.5) * 0.25;
    const auto [tr, v, w] = integrate_slide(0.5, J, mu, 9.81, vx0, omega0);
    CHECK(disk.roll_time() == Approx(tr).epsilon(1e-12));
    CHECK(disk.roll_speed() == Approx(v).epsilon(1e-11).margin(1e-12));
    CHECK(v + 0.5 * w == Approx(0.0).margin(1e-11));  // rolling: the contact point at rest
  }
}

TEST_CASE("rolling-disk: event-driven slides, then rolls at the speed no mu changes",
          "[rolling-disk]") {
  for (const char* sphere : {"0", "1"}) {
    for (const char* mu : {"0.3", "0.8"}) {
      INFO("sphere " << sphere << ", mu " << mu);
      const auto model = make_model("rolling-disk", {{"sphere", sphere}, {"mu", mu}});
      const cases::RollingDisk disk(model->params());
      double worst = 0.0;
      testing::SolveOptions o;
      o.output_times = testing::grid(0.0, model->horizon(), 101);
      o.on_sample = [&](const TrajectorySample& s) {
        if (!s.label.empty()) return;
        worst = std::max(worst, (s.x.q - *disk.classical_q(s.x.t)).lpNorm<Eigen::Infinity>());
      };
      const RunRecord r = testing::solve(*model, o);
      REQUIRE(r.status == Status::ok);
      const Event* roll = first_event(r, EventKind::kinematic_contact);
      REQUIRE(roll != nullptr);
      CHECK(roll->t == Approx(disk.roll_time()).epsilon(1e-10));
      CHECK(r.final_state.v(0) == Approx(disk.roll_speed()).epsilon(1e-10));
      CHECK(worst <= 1e-10);
    }
  }
  // The rolling speed is the same for both coefficients (the moment about the contact point).
  const cases::RollingDisk a(make_model("rolling-disk", {{"mu", "0.3"}})->params());
  const cases::RollingDisk b(make_model("rolling-disk", {{"mu", "0.8"}})->params());
  CHECK(a.roll_speed() == b.roll_speed());
  CHECK(a.roll_time() > b.roll_time());
}

TEST_CASE(
    "rolling-disk: the realization starts to roll O(1/N) late by the derived coefficient and "
    "rolls at v_r",
    "[rolling-disk][coulomb-realization]") {
  const auto model = make_model("rolling-disk", {});
  const cases::RollingDisk disk(model->params());
  const double tr = disk.roll_time();
  // The slip u falls at (1 + 1/k) mu lambda on the cone and leaves it at u = mu g/(beta_t N);
  // the medium's slow mode leaves the friction impulse short by mu g exp(-gamma t/beta)/(beta N),
  // so u is higher by (1 + 1/k) times that: t_N = t_r + (exp(-gamma t_r/beta)/beta -
  // 1/(beta_t (1 + 1/k)))/N, here with beta = gamma = beta_t = 1 and k = 1/2.
  const double C = std::exp(-tr) - 1.0 / 3.0;
  for (const double N : {1e4, 1e5}) {
    INFO("N " << N);
    testing::SolveOptions o;
    o.solver = "realization";
    o.solver_params = {{"N", std::to_string(N)}, {"alpha", "0"}, {"beta", "1"}, {"gamma", "1"}};
    const RunRecord r = testing::solve(*model, o);
    REQUIRE(r.status == Status::ok);
    const Event* roll = first_event(r, EventKind::kinematic_contact);
    REQUIRE(roll != nullptr);
    CHECK(N * (roll->t - tr) == Approx(C).epsilon(3e-3));
    CHECK(r.final_state.v(0) == Approx(disk.roll_speed()).epsilon(10.0 / N));
  }
}

}  // namespace rolling_disk_tests
