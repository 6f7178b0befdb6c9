// rocking-block: the classical impacts checked by computations independent of the case's
// formulas (Newton–Euler about the pivoting corner by Odeint's Dormand–Prince, the impact as the
// momentum balance of the whole body), then event-driven's run against the case's facts.
#include <Eigen/Dense>
#include <array>
#include <boost/numeric/odeint.hpp>
#include <catch2/catch.hpp>
#include <cmath>

#include "crbench/bench/observables.hpp"
#include "crbench/bench/run_support.hpp"
#include "crbench/cases/registry.hpp"
#include "crbench/cases/rocking_block.hpp"
#include "support.hpp"

namespace rocking_block_tests {

using namespace crbench;

namespace {

// Newton–Euler of the block pivoting on one corner, in θ alone: the centre is at d(θ) from the
// corner, d = (±b cos θ − h sin θ, ±b sin θ + h cos θ) (+ for the left corner, − for the right),
// and the unknowns are θ̈ and the corner's force (H, V): ẍ_c = H, ÿ_c = V − g, J θ̈ = −d × (H, V)
// with the centre's acceleration θ̈ ẑ × d − θ̇² d. Nothing here comes from the case's energy.
struct Pivot {
  double b, h, g, side;  // side +1: the left corner, −1: the right
  double acceleration(double theta, double rate) const {
    const double J = (b * b + h * h) / 3.0;
    const double dx = side * b * std::cos(theta) - h * std::sin(theta);
    const double dy = side * b * std::sin(theta) + h * std::cos(theta);
    Eigen::Matrix3d K;
    Eigen::Vector3d rhs;
    // rows: −dy θ̈ − H = dx θ̇², dx θ̈ − V = dy θ̇² − g, J θ̈ + dx V − dy H = 0
    K << -dy, -1.0, 0.0,  //
        dx, 0.0, -1.0,    //
        J, -dy, dx;
    rhs << dx * rate * rate, dy * rate * rate - g, 0.0;
    return K.partialPivLu().solve(rhs)(0);
  }
};

// From (θ, θ̇) on the given corner to the next time θ crosses 0: the time taken and θ̇ there.
std::pair<double, double> swing_to_flat(const Pivot& pivot, double theta, double rate) {
  namespace odeint = boost::numeric::odeint;
  using state = std::array<double, 2>;
  const auto rhs = [&](const state& x, state& dx, double) {
    dx[0] = x[1];
    dx[1] = pivot.acceleration(x[0], x[1]);
  };
  auto stepper = odeint::make_dense_output(1e-14, 1e-14, odeint::runge_kutta_dopri5<state>());
  stepper.initialize(state{theta, rate}, 0.0, 1e-4);
  const double sign = theta != 0.0 ? (theta > 0.0 ? 1.0 : -1.0) : (rate > 0.0 ? 1.0 : -1.0);
  // Leave θ = 0 first when starting there.
  while (stepper.current_time() < 100.0) {
    const auto [t0, t1] = stepper.do_step(rhs);
    const state& x = stepper.current_state();
    if (sign * x[0] > 0.0 || (theta == 0.0 && t0 == 0.0)) continue;
    double a = t0, c = t1;
    state y{};
    for (int i = 0; i < 200 && c - a > 1e-16 * c; ++i) {
      const double mid = 0.5 * (a + c);
      stepper.calc_state(mid, y);
      (sign * y[0] > 0.0 ? a : c) = mid;
    }
    stepper.calc_state(0.5 * (a + c), y);
    return {0.5 * (a + c), y[1]};
  }
  FAIL("the block does not come back to theta = 0 within t = 100");
  return {};
}

// The impact of the right corner at θ = 0 while the block turns at θ̇⁻ about the left one, as
// the momentum balance of the body: unknowns the centre's velocity after (2), θ̇⁺ and the
// impulse (P_x, P_y) at the right corner; v⁺ = v⁻ + P, J θ̇⁺ = J θ̇⁻ + (b, −h) × P (= b P_y +
// h P_x), and the right
// corner at rest after it, v⁺ + θ̇⁺ ẑ × (b, −h) = 0.
double rate_after_impact(double b, double h, double before) {
  const double J = (b * b + h * h) / 3.0;
  Eigen::Matrix<double, 5, 5> K;
  Eigen::Matrix<double, 5, 1> rhs;
  // unknowns (vx, vy, θ̇⁺, Px, Py); before: v = θ̇⁻ ẑ × (b, h) = θ̇⁻ (−h, b)
  K << 1, 0, 0, -1, 0,  //
      0, 1, 0, 0, -1,   //
      0, 0, J, -h, -b,  //
      1, 0, h, 0, 0,    //
      0, 1, b, 0, 0;
  rhs << -h * before, b * before, J * before, 0, 0;
  return K.partialPivLu().solve(rhs)(2);
}

}  // namespace

TEST_CASE(
    "rocking-block: the classical impacts agree with an independent Newton-Euler integration "
    "and the momentum balance of the body",
    "[rocking-block][cases]") {
  for (const auto& [b, h, tilt] :
       {std::array<double, 3>{0.2, 1.0, 0.5}, std::array<double, 3>{0.5, 1.0, 0.6},
        std::array<double, 3>{0.1, 0.4, 0.8}}) {
    INFO("b = " << b << ", h = " << h << ", tilt = " << tilt);
    const double theta0 = tilt * std::atan2(b, h);
    const cases::RockingBlock block(
        ParamValues{{"aspect", b / h}, {"half_height", h}, {"g", 9.81}, {"tilt", tilt}});
    const auto [t1, before] = swing_to_flat({b, h, 9.81, 1.0}, theta0, 0.0);
    CHECK(block.impact_time(1) == Approx(t1).epsilon(1e-11));
    CHECK(-block.rate_at_flat(theta0) == Approx(before).epsilon(1e-11));
    const double after = rate_after_impact(b, h, before);
    CHECK(block.housner_ratio() == Approx(after / before).epsilon(1e-13));
    // About the right corner up to the other side and back: the second impact.
    const auto [swing, back] = swing_to_flat({b, h, 9.81, -1.0}, 0.0, after);
    CHECK(block.impact_time(2) == Approx(t1 + swing).epsilon(1e-11));
    CHECK(back == Approx(-after).epsilon(1e-10));
  }
}

TEST_CASE("rocking-block: event-driven's impacts follow Housner's law", "[rocking-block]") {
  RunRequest request;
  request.case_name = "rocking-block";
  request.solver_name = "event-driven";
  request.samples = 11;
  const auto run = solve_on_grid(request);
  REQUIRE(run.record.status == Status::ok);
  const auto model = make_model("rocking-block", {});
  const Facts facts = model->facts();
  // The left corner leaves the floor at the first impact, the right one at the second.
  const auto first_left = measure("first_lift_off_time", run, *model, 0);
  REQUIRE(first_left);
  CHECK(*first_left == Approx(*facts.value("first impact time")).epsilon(1e-10));
  const auto right = run.record.constraint_lift_off_time.at(1);
  REQUIRE(right);
  CHECK(*right == Approx(*facts.lift_off_time("classical", "right")).epsilon(1e-10));
  // θ̇ just after the first impact, from the sample the solver emits there.
  testing::SolveOptions o;
  o.solver_params = {{"restitution", "0"}};  // the case's setting (testing::solve takes none)
  double after = std::nan("");
  o.on_sample = [&](const TrajectorySample& s) {
    if (s.label == "impact+" && std::isnan(after)) after = s.x.v(2);
  };
  const RunRecord r = testing::solve(*model, o);
  REQUIRE(r.status == Status::ok);
  CHECK(after == Approx(*facts.value("theta' after the first impact")).epsilon(1e-10));
  // The corners do not slide: the run ends on the left corner, where it started.
  const cases::RockingBlock block(model->params());
  const auto left_corner = [&block](const State& x) {
    return x.q(0) - block.b * std::cos(x.q(2)) + block.h * std::sin(x.q(2));
  };
  CHECK(std::abs(left_corner(r.final_state) - left_corner(model->initial_state())) <= 1e-12);
}

TEST_CASE("rocking-block: the realization refuses two conditional rows", "[rocking-block]") {
  // At rest on both corners the two no-slip rows are one row; the medium's equations need
  // independent ones.
  const auto model = make_model("rocking-block", {});
  RunSettings settings;
  configure_solver(find_solver("realization"), {}, settings, &model->info());
  const auto why = find_solver("realization").refusal(*model, settings);
  REQUIRE(why);
  CHECK_THAT(*why, Catch::Contains("conditional kinematic rows"));
  // crbench check says so, and estimates no depth for a realization that does not run.
  const crbench::testing::CliResult r = crbench::testing::cli({"check", "--case", "rocking-block"});
  INFO(r.out << r.err);
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("the realization refuses this case, so no depth is estimated"));
  CHECK_THAT(r.out, !Catch::Contains("); depth "));
  const crbench::testing::CliResult j =
      crbench::testing::cli({"check", "--case", "rocking-block", "--json"});
  const auto floors = nlohmann::json::parse(j.out)["round_off_floors"];
  CHECK_THAT(floors["realization_refusal"].get<std::string>(),
             Catch::Contains("conditional kinematic rows"));
  for (const auto& c : floors["constraints"]) CHECK(c["largest_N"].is_null());
}

}  // namespace rocking_block_tests

namespace rocking_block_tests {

TEST_CASE("rocking-block: a block come to rest on both corners ends its run with a status",
          "[rocking-block]") {
  // At aspect 1.4 Housner's ratio is 0.007: the impacts accumulate within 0.01 and the block
  // settles on both corners, where the two no-slip rows are one. The projection onto them is
  // singular; the run ends with singular_active_set (it used to multiply by an empty projection
  // and crash).
  const auto model = crbench::make_model("rocking-block", {{"aspect", "1.4"}});
  crbench::testing::SolveOptions o;
  o.solver_params = {{"restitution", "0"}};
  o.t_end = 20.0;
  const crbench::RunRecord r = crbench::testing::solve(*model, o);
  CHECK(r.status == crbench::Status::singular_active_set);
  CHECK_THAT(r.reason, Catch::Contains("kinematic constraints are singular"));
}

}  // namespace rocking_block_tests
