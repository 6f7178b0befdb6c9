// The impulse process of one contact with Coulomb friction (solvers/impulse_process.hpp): against
// Newton's law without friction, against the closed form of Painleve's rod written from the
// energy balance, and against a time integration of the compliant contact at the fixed
// configuration (a normal spring, exact Coulomb friction) that does not use the segments. Then
// event-driven's impact without collision on painleve-rod.
#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <boost/numeric/odeint.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "crbench/cases/registry.hpp"
#include "crbench/solvers/impulse_process.hpp"
#include "support.hpp"

namespace impulse_process_tests {

using namespace crbench;

// Painleve's rod (unit mass and half-length, I = 1/3) with its end on the floor at theta: the
// Delassus matrix of the end's (normal, horizontal) velocities, W = [J; a] A^-1 [J; a]^T with
// J = (0, 1, -cos), a = (1, 0, -sin).
Eigen::Matrix2d rod_W(double theta) {
  const double s = std::sin(theta), c = std::cos(theta);
  Eigen::Matrix2d W;
  W << 1.0 + 3.0 * c * c, 3.0 * s * c, 3.0 * s * c, 1.0 + 3.0 * s * s;
  return W;
}

// The compliant contact at the fixed configuration integrated in time: a normal spring
// F_n = delta (delta' = -v_n), the tangential force -mu s F_n while slipping and the one that
// keeps v_t = 0 while sticking, (v_n, v_t)' = W (F_n, F_t). Odeint's Dormand-Prince 5 with dense
// output at 1e-13 from v_n = -seed (the spring needs a first compression to start an impact without
// collision), stepped until delta returns to 0 (bisected on the dense output); the slip's stop
// is bisected the same way. Returns (v_n, v_t, P_n) after.
std::array<double, 3> integrate_contact(const Eigen::Matrix2d& W, double vn, double vt, double mu,
                                        double seed) {
  using Y = std::array<double, 4>;  // v_n, v_t, delta, P_n
  int s = vt > 0.0 ? 1 : -1;
  bool stuck = false;
  const auto rhs = [&](const Y& y, Y& dy, double) {
    const double Fn = std::max(y[2], 0.0);
    const double Ft = stuck ? -W(1, 0) / W(1, 1) * Fn : -mu * s * Fn;
    dy[0] = W(0, 0) * Fn + W(0, 1) * Ft;
    dy[1] = stuck ? 0.0 : W(1, 0) * Fn + W(1, 1) * Ft;
    dy[2] = -y[0];
    dy[3] = Fn;
  };
  namespace odeint = boost::numeric::odeint;
  auto stepper = odeint::make_dense_output(1e-13, 1e-13, odeint::runge_kutta_dopri5<Y>());
  stepper.initialize(Y{vn - seed, vt, 0.0, 0.0}, 0.0, 1e-3);
  bool compressed = false;
  for (int i = 0; i < 1000000; ++i) {
    stepper.do_step(rhs);
    const Y& y = stepper.current_state();
    const auto bisect = [&](auto sign_of) {
      double lo = stepper.previous_time(), hi = stepper.current_time();
      Y mid_y;
      while (hi - lo > 1e-14 * std::max(1.0, hi)) {
        const double mid = 0.5 * (lo + hi);
        stepper.calc_state(mid, mid_y);
        (sign_of(mid_y) ? lo : hi) = mid;
      }
      stepper.calc_state(hi, mid_y);
      return mid_y;
    };
    if (!stuck && s * y[1] <= 0.0) {
      Y at = bisect([&](const Y& z) { return s * z[1] > 0.0; });
      at[1] = 0.0;
      stuck = true;
      stepper.initialize(at, stepper.current_time(), stepper.current_time_step());
      continue;
    }
    if (y[2] > 0.0) compressed = true;
    if (compressed && y[2] <= 0.0) {
      const Y at = bisect([](const Y& z) { return z[2] > 0.0; });
      return {at[0], at[1], at[3]};
    }
  }
  FAIL("the compliant contact did not open");
  return {};
}

TEST_CASE("impulse process: without friction it is Newton's law", "[impulse-process]") {
  Eigen::Matrix2d W;
  W << 2.0, 0.0, 0.0, 1.0;
  for (const double e : {1.0, 0.6, 0.0}) {
    const ImpulseProcessResult r =
        frictional_impulse_process({.W = W, .vn = -3.0, .vt = 0.5, .mu = 0.0, .restitution = e});
    REQUIRE(r.end == ImpulseProcessEnd::ended);
    CHECK(r.vn == Approx(3.0 * e).margin(1e-15));
    CHECK(r.Pn == Approx(3.0 * (1.0 + e) / 2.0).epsilon(1e-15));
    CHECK(r.vt == 0.5);
    CHECK(r.compression_energy == Approx(9.0 / 4.0).epsilon(1e-15));
  }
  // At rest with nothing making the normal velocity fall: no impulse.
  CHECK(frictional_impulse_process({.W = W, .vn = 0.0, .vt = 1.0, .mu = 0.3}).end ==
        ImpulseProcessEnd::no_impulse);
}

TEST_CASE(
    "impulse process: Painleve's rod's impact without collision against its energy balance and "
    "a time integration of the compliant contact",
    "[impulse-process][painleve]") {
  const double theta = std::atan(2.0), mu = 2.0, u0 = 1.0;
  const Eigen::Matrix2d W = rod_W(theta);
  const ImpulseProcessResult r =
      frictional_impulse_process({.W = W, .vn = 0.0, .vt = u0, .mu = mu, .restitution = 1.0});
  REQUIRE(r.end == ImpulseProcessEnd::ended);
  CHECK(r.stuck);
  CHECK(r.segments == 3);  // slip and compression, stick and compression, stick and restitution
  // The energy balance: slipping, d(v_n, v_t)/dP_n = (p, q) until v_t = 0 at P1 = u0/(-q), where
  // the spring holds E1 = -p P1^2/2 and v_n = p P1; sticking, v_n rises at the Schur complement
  // p_s = W_nn - W_nt^2/W_tt, and the spring gives back all it holds: v_n+ = sqrt(v1^2 + 2 p_s E1).
  const double p = W(0, 0) - mu * W(0, 1), q = W(1, 0) - mu * W(1, 1);
  REQUIRE(p < 0.0);
  const double P1 = u0 / -q, v1 = p * P1, E1 = -p * P1 * P1 / 2.0;
  const double ps = W(0, 0) - W(0, 1) * W(0, 1) / W(1, 1);
  const double vn_after = std::sqrt(v1 * v1 + 2.0 * ps * E1);
  const double Pn = P1 + (vn_after - v1) / ps;
  CHECK(r.vn == Approx(vn_after).epsilon(1e-14));
  CHECK(r.Pn == Approx(Pn).epsilon(1e-14));
  CHECK(r.Pt == Approx(-mu * P1 - W(1, 0) / W(1, 1) * (Pn - P1)).epsilon(1e-14));
  CHECK(r.vt == 0.0);
  // The compliant contact in time, from a normal velocity 1e-10 below 0.
  const auto [vn, vt, P] = integrate_contact(W, 0.0, u0, mu, 1e-10);
  CHECK(vn == Approx(r.vn).epsilon(1e-7));
  CHECK(P == Approx(r.Pn).epsilon(1e-7));
  CHECK(std::abs(vt) < 1e-9);
  // An impact with friction that stops the slip, and one that does not (small mu), against the
  // same integration.
  for (const auto& [m, e_vn, e_vt] :
       {std::array<double, 3>{0.8, -1.0, 0.3}, std::array<double, 3>{0.1, -1.0, 2.0}}) {
    INFO("mu " << m << ", vt " << e_vt);
    const ImpulseProcessResult hit =
        frictional_impulse_process({.W = W, .vn = e_vn, .vt = e_vt, .mu = m, .restitution = 1.0});
    REQUIRE(hit.end == ImpulseProcessEnd::ended);
    const auto [hn, ht, hP] = integrate_contact(W, e_vn, e_vt, m, 0.0);
    CHECK(hit.vn == Approx(hn).epsilon(1e-9));
    CHECK(hit.vt == Approx(ht).margin(1e-9));
    CHECK(hit.Pn == Approx(hP).epsilon(1e-9));
  }
}

TEST_CASE(
    "event-driven with impact_law energetic: Painleve's inconsistent start is an impact without "
    "collision with the impulse process's outcome",
    "[impulse-process][painleve]") {
  const auto model = make_model(
      "painleve-rod", {{"mu", "2"}, {"theta0", std::to_string(std::atan(2.0))}, {"u0", "1"}});
  testing::SolveOptions o;
  o.solver_params = {{"impact_law", "energetic"}, {"restitution", "1"}};
  o.t_end = 0.01;
  // Sampled: the state before the impulse has no reaction to report, and is not sampled.
  o.output_times = testing::grid(0.0, 0.01, 11);
  int samples = 0;
  o.on_sample = [&](const TrajectorySample&) { ++samples; };
  const RunRecord r = testing::solve(*model, o);
  INFO(r.reason);
  REQUIRE(r.status == Status::ok);
  const double theta = std::stod(std::to_string(std::atan(2.0)));
  const ImpulseProcessResult iwc = frictional_impulse_process(
      {.W = rod_W(theta), .vn = 0.0, .vt = 1.0, .mu = 2.0, .restitution = 1.0});
  const Event* impact = nullptr;
  bool lifted = false;
  for (const auto& e : r.events) {
    if (e.kind == EventKind::impact && impact == nullptr) impact = &e;
    if (e.kind == EventKind::lift_off && e.t == 0.0) lifted = true;
  }
  REQUIRE(impact != nullptr);
  CHECK(impact->t == 0.0);
  CHECK(*impact->rate_before == 0.0);
  CHECK(*impact->rate_after == Approx(iwc.vn).epsilon(1e-12));
  CHECK(lifted);
  CHECK(samples >= 11);
  // Newton's law leaves the paradox a failure.
  o.solver_params = {};
  o.on_sample = nullptr;
  CHECK(testing::solve(*model, o).status == Status::painleve_paradox);
}

TEST_CASE(
    "impulse process: the impact without collision's exit velocity rises at sqrt(1 + p_s/|p|) "
    "with the normal velocity it starts with, and painleve-rod's vy0 starts it so",
    "[impulse-process][painleve]") {
  // From v_n = -a the slip stores E1 = P1 (a - p P1/2) and leaves v_n = -a + p P1; the stuck
  // contact compresses on to v_n = 0 and gives all back: v_n+^2 = (a - p P1)^2 + 2 p_s E1, whose
  // derivative at a = 0 is P1 (p_s - p)/v_n+ = sqrt(1 + p_s/|p|) (docs/theory.md section 2).
  // theta0 as the study friction writes it: p = -4/5, p_s = 20/17 there.
  const double theta = 1.1071487177940904, mu = 2.0;
  const Eigen::Matrix2d W = rod_W(theta);
  const double p = W(0, 0) - mu * W(0, 1), q = W(1, 0) - mu * W(1, 1);
  const double ps = W(0, 0) - W(0, 1) * W(0, 1) / W(1, 1);
  const double P1 = 1.0 / -q;
  const auto exit_velocity = [&](double a) {
    return frictional_impulse_process({.W = W, .vn = -a, .vt = 1.0, .mu = mu, .restitution = 1.0})
        .vn;
  };
  for (const double a : {1e-3, 0.1, 1.0}) {
    INFO("approach " << a);
    const double closed = std::sqrt((a - p * P1) * (a - p * P1) + ps * P1 * (2.0 * a - p * P1));
    CHECK(exit_velocity(a) == Approx(closed).epsilon(1e-13));
  }
  // The derivative by Richardson's rule on two differences.
  const double h = 1e-6, e0 = exit_velocity(0.0);
  const double slope =
      2.0 * (exit_velocity(h) - e0) / h - (exit_velocity(2.0 * h) - e0) / (2.0 * h);
  CHECK(slope == Approx(std::sqrt(1.0 - ps / p)).epsilon(1e-6));
  CHECK(std::sqrt(1.0 - ps / p) == Approx(1.5718104959867516).epsilon(1e-12));
  // event-driven from the rod's start with the centre falling at 1e-3: an impact at t = 0 whose
  // outcome is the process's from v_n = -1e-3 (f' = y' at theta' = 0).
  const auto model =
      make_model("painleve-rod",
                 {{"mu", "2"}, {"theta0", "1.1071487177940904"}, {"u0", "1"}, {"vy0", "-1e-3"}});
  testing::SolveOptions o;
  o.solver_params = {{"impact_law", "energetic"}, {"restitution", "1"}};
  o.t_end = 0.01;
  const RunRecord r = testing::solve(*model, o);
  REQUIRE(r.status == Status::ok);
  REQUIRE_FALSE(r.events.empty());
  CHECK(r.events.front().kind == EventKind::impact);
  CHECK(r.events.front().t == 0.0);
  CHECK(*r.events.front().rate_before == -1e-3);
  CHECK(*r.events.front().rate_after == Approx(exit_velocity(1e-3)).epsilon(1e-12));
}

}  // namespace impulse_process_tests

namespace impulse_process_tests {

// The undamped normal spring with the cone-bounded slip friction (realization, preset penalty,
// obstacle) from the same inconsistent start: the exit velocity tends to the impact without
// collision's, and the episode lasts (ln N)/(2 sqrt(|p| gamma N)) + O(1/sqrt(N)): the depth grows
// like exp(sqrt(|p| gamma N) t) from the seed g/(|p| gamma N) that gravity gives it to the
// O(1/sqrt(N)) of the impulse process (docs/theory.md section 2).
TEST_CASE(
    "realization: the compliant rod's inconsistent start converges to the impact without "
    "collision, over an episode of (ln N)/(2 sqrt(|p| gamma N))",
    "[impulse-process][painleve][coulomb-realization]") {
  const std::string theta0 = std::to_string(std::atan(2.0));
  const auto model = make_model("painleve-rod", {{"mu", "2"}, {"theta0", theta0}, {"u0", "1"}});
  const double theta = std::stod(theta0);
  const Eigen::Matrix2d W = rod_W(theta);
  const double p = W(0, 0) - 2.0 * W(0, 1);
  const double iwc =
      frictional_impulse_process({.W = W, .vn = 0.0, .vt = 1.0, .mu = 2.0, .restitution = 1.0}).vn;
  std::vector<double> error, scaled_duration;
  for (const double N : {1e6, 1e8, 1e10}) {
    INFO("N " << N);
    testing::SolveOptions o;
    o.solver = "realization";
    o.solver_params = {
        {"N", std::to_string(N)}, {"preset", "penalty"}, {"interaction", "obstacle"}};
    o.t_end = 0.02;
    const RunRecord r = testing::solve(*model, o);
    REQUIRE(r.status == Status::ok);
    const Event* exit = nullptr;
    for (const auto& e : r.events) {
      if (e.kind == EventKind::exit_medium) {
        exit = &e;
        break;
      }
    }
    REQUIRE(exit != nullptr);
    error.push_back(*exit->rate_after - iwc);
    scaled_duration.push_back(exit->t * std::sqrt(N));
  }
  CHECK(error[0] > error[1]);
  CHECK(error[1] > error[2]);
  CHECK(error[2] > 0.0);
  CHECK(error[2] < 2e-3);
  // Two decades of N add ln(100)/(2 sqrt(|p| gamma)) to T sqrt(N).
  const double slope = (scaled_duration[2] - scaled_duration[1]) / std::log(100.0);
  CHECK(slope == Approx(0.5 / std::sqrt(-p)).epsilon(0.03));
  // The rod flies freely through the episode, so the impulse process starts with v_n = -g T:
  // the exit velocity's error is sqrt(1 + p_s/|p|) g T + O(1/sqrt(N)), and two decades add
  // g sqrt(1 + p_s/|p|) ln(100)/(2 sqrt(|p| gamma)) to error sqrt(N) (8.4 measured a unit of
  // ln N from 1e8 to 1e10 against 8.62: the next terms fall as ln N / sqrt(N)).
  const double ps = W(0, 0) - W(0, 1) * W(0, 1) / W(1, 1);
  const double error_slope =
      (error[2] * std::sqrt(1e10) - error[1] * std::sqrt(1e8)) / std::log(100.0);
  CHECK(error_slope == Approx(9.81 * std::sqrt(1.0 - ps / p) * 0.5 / std::sqrt(-p)).epsilon(0.03));
}

// [slow]: the run at rtol 1e-13 takes about 15 s.
TEST_CASE(
    "realization: a root of the exit function at the round-off of f, with f' < 0, is not an exit",
    "[impulse-process][painleve][coulomb-realization][slow]") {
  // The rod's medium is entered at f = 0 with f' = 0 and f = y - l sin(theta) is a difference of
  // coordinates of order 1. At N = 1e11 and rtol 1e-13 the first instants' depth is below f's
  // round-off, and a root of -f there (at t = 9.3e-9 with f' = -9.1e-8) was once taken as the
  // exit. The episode is (ln N)/(2 sqrt(|p| gamma N)) + O(N^-1/2) long: 3.848e-5 here. Where
  // such a root falls depends on every step, so the run is the one crbench run makes.
  std::vector<nlohmann::json> runs;
  for (const std::string rtol : {"1e-12", "1e-13"}) {
    const testing::CliResult r = testing::cli({"run",
                                               "--case",
                                               "painleve-rod",
                                               "--set",
                                               "mu=2",
                                               "--set",
                                               "theta0=1.1071487177940904",
                                               "--solver",
                                               "realization",
                                               "--N",
                                               "1e11",
                                               "--preset",
                                               "penalty",
                                               "--interaction",
                                               "obstacle",
                                               "--t-end",
                                               "0.06",
                                               "--rtol",
                                               rtol,
                                               "--atol",
                                               rtol == "1e-12" ? "1e-14" : "1e-15",
                                               "--json"});
    REQUIRE(r.status == 0);
    runs.push_back(nlohmann::json::parse(r.out));
    REQUIRE(runs.back()["status"] == "ok");
  }
  std::vector<double> exit_times;
  for (const auto& run : runs) {
    for (const auto& e : run["events"]) {
      if (e["kind"] != "exit_medium") continue;
      exit_times.push_back(e["t"].get<double>());
      INFO("exit at " << e["t"] << " with f' " << e["rate_after"]);
      CHECK(e["t"].get<double>() > 3.8e-5);
      CHECK(e["t"].get<double>() < 3.9e-5);
      CHECK(e["rate_after"].get<double>() > 0.2);
      break;
    }
    CHECK_FALSE(run.contains("warnings"));
  }
  REQUIRE(exit_times.size() == 2u);
  CHECK(exit_times[1] == Approx(exit_times[0]).epsilon(1e-3));
  // The tight run met such a root and stayed in the medium.
  CHECK(runs[1]["diagnostics"].value("round_off_exits_ignored", 0) >= 1);
}

}  // namespace impulse_process_tests
