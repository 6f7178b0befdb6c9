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
#include "crbench/solvers/realization_dynamics.hpp"
#include "crbench/solvers/velocity_chart.hpp"
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

namespace {

// The compliant block written out again, apart from the case and the realization: q = (x, y, θ),
// unit mass, J = (b² + h²)/3, gravity g; a corner below the floor (f < 0) is pushed by the viscous
// obstacle λ = max(0, −βN ḟ) along its height's gradient and held by the friction −β_t N aᵀ(a q̇)
// on its horizontal velocity. Integrated by Odeint's Dormand–Prince with dense output; the exits
// (f back to 0 from below) located by bisection on it.
struct CompliantBlock {
  double b, h, g, N, beta = 1.0, slip_beta = 1.0;
  using Vec = std::array<double, 6>;
  // Height, its gradient's θ component and the horizontal velocity's θ coefficient of a corner
  // (side +1: left at (−b, −h), −1: right at (b, −h)).
  double height(const Vec& s, double side) const {
    return s[1] - side * b * std::sin(s[2]) - h * std::cos(s[2]);
  }
  double height_slope(double theta, double side) const {
    return -side * b * std::cos(theta) + h * std::sin(theta);
  }
  double slip_slope(double theta, double side) const {
    return h * std::cos(theta) + side * b * std::sin(theta);
  }
  void operator()(const Vec& s, Vec& ds, double /*t*/) const {
    const double J = (b * b + h * h) / 3.0;
    double Fx = 0.0, Fy = -g, M = 0.0;
    for (const double side : {1.0, -1.0}) {
      if (!(height(s, side) < 0.0)) continue;
      const double fs = height_slope(s[2], side);
      const double rate = s[4] + fs * s[5];
      const double lambda = std::max(0.0, -beta * N * rate);
      Fy += lambda;
      M += lambda * fs;
      const double as = slip_slope(s[2], side);
      const double slip = s[3] + as * s[5];
      Fx -= slip_beta * N * slip;
      M -= slip_beta * N * slip * as;
    }
    ds = {s[3], s[4], s[5], Fx, Fy, M / J};
  }
  // The times at which each corner leaves the floor (f rises through 0), up to t_end.
  std::vector<std::pair<double, int>> exits(const Vec& start, double t_end) const {
    namespace odeint = boost::numeric::odeint;
    auto stepper = odeint::make_dense_output(1e-12, 1e-12, odeint::runge_kutta_dopri5<Vec>());
    stepper.initialize(start, 0.0, 1e-6);
    std::vector<std::pair<double, int>> out;
    while (stepper.current_time() < t_end) {
      const Vec before = stepper.current_state();
      const double t0 = stepper.current_time();
      stepper.do_step(*this);
      const Vec after = stepper.current_state();
      for (int c = 0; c < 2; ++c) {
        const double side = c == 0 ? 1.0 : -1.0;
        if (!(height(before, side) < 0.0 && height(after, side) >= 0.0)) continue;
        double lo = t0, hi = stepper.current_time();
        Vec x;
        for (int i = 0; i < 60; ++i) {
          const double mid = 0.5 * (lo + hi);
          stepper.calc_state(mid, x);
          (height(x, side) < 0.0 ? lo : hi) = mid;
        }
        out.emplace_back(hi, c);
      }
    }
    return out;
  }
};

std::vector<std::pair<double, int>> realization_exits(const RunRecord& r) {
  std::vector<std::pair<double, int>> out;
  for (const Event& e : r.events) {
    if (e.kind == EventKind::exit_medium) out.emplace_back(e.t, e.index);
  }
  return out;
}

}  // namespace

TEST_CASE("rocking-block: the compliant corners as written out again", "[rocking-block]") {
  // Several conditional rows: the realization's chart takes the acting, independent ones (the
  // two corners' rows coincide at θ = 0, where the second corner strikes).
  const auto model = make_model("rocking-block", {});
  const cases::RockingBlock block(model->params());
  testing::SolveOptions o;
  o.solver = "realization";
  o.solver_params = {{"N", "1e3"}, {"preset", "viscous"}, {"interaction", "obstacle"}};
  o.rtol = 1e-11;
  o.atol = 1e-13;
  const RunRecord r = testing::solve(*model, o);
  REQUIRE(r.status == Status::ok);
  const State x0 = model->initial_state();
  const CompliantBlock twin{.b = block.b, .h = block.h, .g = block.g, .N = 1e3};
  const auto expected =
      twin.exits({x0.q(0), x0.q(1), x0.q(2), x0.v(0), x0.v(1), x0.v(2)}, r.final_state.t);
  const auto exits = realization_exits(r);
  // At N = 1e3: the left corner leaves after the first impact, the right after the second.
  REQUIRE(expected.size() == 2);
  REQUIRE(exits.size() == expected.size());
  for (std::size_t i = 0; i < exits.size(); ++i) {
    INFO("exit " << i);
    CHECK(exits[i].second == expected[i].second);
    CHECK(exits[i].first == Approx(expected[i].first).margin(1e-8));
  }
}

TEST_CASE("rocking-block: the viscous corners' limit is Housner's impact",
          "[rocking-block][slow]") {
  // The second impact (the right corner's last exit) and the left corner's exit rate after the
  // first impact tend as 1/N to the classical ones: Housner's law, whose rate is 2b|θ̇⁺|.
  const auto model = make_model("rocking-block", {});
  const cases::RockingBlock block(model->params());
  const double classical = block.impact_time(2);
  const double housner_rate =
      2.0 * block.b * block.housner_ratio() * block.rate_at_flat(block.theta0);
  std::vector<double> errors, rates;
  for (const char* N : {"1e4", "1e5"}) {
    testing::SolveOptions o;
    o.solver = "realization";
    o.solver_params = {{"N", N}, {"preset", "viscous"}, {"interaction", "obstacle"}};
    o.rtol = 1e-10;
    o.atol = 1e-12;
    const RunRecord r = testing::solve(*model, o);
    REQUIRE(r.status == Status::ok);
    const auto right = r.constraint_lift_off_time.at(1);
    REQUIRE(right);
    errors.push_back(*right - classical);
    const auto it = std::find_if(r.events.begin(), r.events.end(), [](const Event& e) {
      return e.kind == EventKind::exit_medium && e.index == 0;
    });
    REQUIRE(it != r.events.end());
    REQUIRE(it->rate_after);
    rates.push_back(*it->rate_after);
  }
  INFO("errors " << errors[0] << ", " << errors[1] << "; rates " << rates[0] << ", " << rates[1]);
  CHECK(errors[0] < 0.0);
  CHECK(std::log10(errors[0] / errors[1]) == Approx(1.0).margin(0.05));
  CHECK(std::log10((rates[0] - housner_rate) / (rates[1] - housner_rate)) ==
        Approx(1.0).margin(0.05));
  // Extrapolated with order 1, the rate is Housner's to a few parts in 1e5 (the O(1/N²) left).
  const double extrapolated = rates[1] + (rates[1] - rates[0]) / 9.0;
  CHECK(extrapolated == Approx(housner_rate).epsilon(2e-5));
}

TEST_CASE("rocking-block: the AD Jacobian of a chart over one of two coinciding rows",
          "[rocking-block][ad]") {
  // Both corners just below the floor at θ = 2e-4: the rows differ by 2b sin θ, the chart keeps
  // one, and the other's ν is N g from q̇, in the right-hand side and in its Jacobian alike.
  const auto model = make_model("rocking-block", {});
  const cases::RockingBlock block(model->params());
  const int n = model->dof();
  State x;
  x.t = 0.3;
  x.q = Eigen::Vector3d(0.01, block.h - 1e-6, 2e-4);
  x.v = Eigen::Vector3d(0.05, -0.02, -0.4);
  Eigen::MatrixXd a;
  Eigen::VectorXd b;
  model->kinematic_affine(x.t, x.q, a, b);
  const double N = 1e4;
  const VelocityChart chart = VelocityChart::independent_rows(a, {0, 1}, N, kIndependentRowMargin);
  REQUIRE(chart.rows() == 1);
  REQUIRE_FALSE(chart.all_rows(2));
  const Medium medium{.mass = 0.0, .damping = N, .stiffness = 0.0, .obstacle = true};
  const std::vector<double> damping{N, N};
  const std::vector<char> in_medium{1, 1}, pushing{1, 1};
  const Modes modes = model->modes_at(x);
  const Eigen::VectorXd y = chart.point(*model, x);
  const auto rhs = [&](double t, const Eigen::VectorXd& yy) {
    Eigen::MatrixXd aa;
    Eigen::VectorXd bb;
    const State s = chart.state(*model, t, yy, aa, bb);
    Point p;
    model->evaluate(s, modes, p);
    p.Q += medium_force<double>(p, s.v, pushing, medium);
    const Eigen::VectorXd nu = chart.all_nu(aa, bb, s.v, yy.tail(n));
    Eigen::VectorXd qdd, nu_dot;
    kinematic_dynamics<double>(p, nu, N, medium, qdd, nu_dot, &damping);
    Eigen::VectorXd dy(2 * n);
    dy << s.v, chart.rate<double>(nu_dot, qdd);
    return dy;
  };
  // The dropped row's ν is N g at x: the chart maps velocities both ways.
  CHECK(chart.all_nu(a, b, x.v, y.tail(n)).isApprox(N * (a * x.v + b), 1e-12));
  Eigen::MatrixXd a_out;
  Eigen::VectorXd b_out;
  CHECK(testing::close(chart.state(*model, x.t, y, a_out, b_out).v, x.v, 1e-13));
  RealizationJacobianWork work;
  Eigen::MatrixXd jac;
  Eigen::VectorXd dfdt;
  realization_jacobian(*model, chart, x.t, y, modes, in_medium, pushing, medium, work, jac, dfdt,
                       &damping);
  testing::check_jacobian_columns(
      jac, [&](const Eigen::VectorXd& yy) { return rhs(x.t, yy); }, y, 1e-7);
}

TEST_CASE("rocking-block: crbench check estimates the corners' depths", "[rocking-block]") {
  const crbench::testing::CliResult j =
      crbench::testing::cli({"check", "--case", "rocking-block", "--json"});
  INFO(j.out << j.err);
  REQUIRE(j.status == 0);
  const auto floors = nlohmann::json::parse(j.out)["round_off_floors"];
  CHECK(floors["realization_refusal"] == "");
  CHECK(floors["constraints"][0]["largest_N"].is_number());
  // Nearly flat, the two no-slip rows nearly coincide: the depth is estimated with one of them.
  const crbench::testing::CliResult flat =
      crbench::testing::cli({"check", "--case", "rocking-block", "--set", "tilt=1e-9", "--json"});
  INFO(flat.out << flat.err);
  const auto flat_floors = nlohmann::json::parse(flat.out)["round_off_floors"];
  CHECK(flat_floors["constraints"][0]["largest_N"].is_number());
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
