// The solvers backed by the Siconos kernel (solvers/siconos_bridge.cpp): siconos-moreau-jean
// against Siconos's own BouncingBallTS output and crbench's moreau-jean where the two schemes
// coincide; siconos-event-driven against crbench's event-driven (lift-offs, impacts, final
// states) at their tight tolerances; the cases both refuse. Built only with the kernel
// (CRBENCH_SICONOS).
#ifdef CRBENCH_HAVE_SICONOS
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "crbench/bench/run_support.hpp"
#include "crbench/cases/registry.hpp"
#include "tests/support.hpp"

namespace siconos_tests {

namespace {

using crbench::RunRecord;
using crbench::TrajectorySample;

RunRecord run_case(const std::string& case_name, const std::string& solver,
                   std::vector<TrajectorySample>* rows = nullptr,
                   std::vector<crbench::Assignment> set = {}) {
  const auto model = crbench::make_model(case_name, {});
  crbench::testing::SolveOptions o;
  o.solver = solver;
  o.solver_params = std::move(set);
  if (rows != nullptr) {
    o.output_times = crbench::testing::grid(model->initial_state().t, model->horizon(), 2001);
    o.on_sample = [rows](const TrajectorySample& s) { rows->push_back(s); };
  }
  return crbench::testing::solve(*model, o);
}

}  // namespace

TEST_CASE("siconos-moreau-jean reproduces the 2001 rows of BouncingBallTS to 1e-12", "[siconos]") {
  std::ifstream in(CRBENCH_TEST_DATA "/siconos/BouncingBallTS.ref");
  REQUIRE(in.good());
  int rows = 0, columns = 0;
  in >> rows >> columns;
  REQUIRE(rows == 2001);
  REQUIRE(columns == 5);
  // BouncingBallTS's h = 0.005, theta = 0.5 and e = 0.9 (the case carries them for the CLI).
  std::vector<TrajectorySample> samples;
  const RunRecord r = run_case("bouncing-ball-siconos", "siconos-moreau-jean", &samples,
                               {{"h", "0.005"}, {"theta", "0.5"}, {"restitution", "0.9"}});
  REQUIRE(r.status == crbench::Status::ok);
  REQUIRE(samples.size() == 2001u);
  double worst = 0.0;
  int impulses = 0;
  for (const TrajectorySample& s : samples) {
    double t = 0, height = 0, velocity = 0, impulse = 0, lambda = 0;
    in >> t >> height >> velocity >> impulse >> lambda;
    REQUIRE(std::abs(s.x.t - t) <= 1e-12);
    worst = std::max({worst, std::abs(s.x.q(0) - height), std::abs(s.x.v(0) - velocity),
                      std::abs(s.impulse(0) - impulse)});
    impulses += impulse != 0.0;
  }
  CHECK(worst <= 1e-12);
  CHECK(impulses > 40);
  CHECK(r.steps == 2000);
  CHECK(r.tolerances.at("h") == 0.005);
}

TEST_CASE("siconos-moreau-jean and moreau-jean coincide where their schemes do", "[siconos]") {
  // One constraint with a constant gradient and forces without switches inside a step: the same
  // θ-method, activation and Newton law, so the same numbers to round-off.
  for (const std::string c : {"bouncing-ball-siconos", "dk-plane"}) {
    INFO(c);
    const RunRecord ours = run_case(c, "moreau-jean");
    const RunRecord theirs = run_case(c, "siconos-moreau-jean");
    REQUIRE(ours.status == crbench::Status::ok);
    REQUIRE(theirs.status == crbench::Status::ok);
    CHECK(theirs.steps == ours.steps);
    CHECK(crbench::testing::close(theirs.final_state.q, ours.final_state.q, 1e-14));
    CHECK(crbench::testing::close(theirs.final_state.v, ours.final_state.v, 1e-14));
    CHECK(theirs.constraint_impulse[0] == Approx(ours.constraint_impulse[0]).epsilon(1e-13));
    CHECK(theirs.events.size() == ours.events.size());
    CHECK(theirs.lift_off_time.has_value() == ours.lift_off_time.has_value());
    if (theirs.lift_off_time && ours.lift_off_time) {
      CHECK(*theirs.lift_off_time == Approx(*ours.lift_off_time).margin(1e-12));
    }
  }
}

// With Coulomb friction the kernel's NewtonImpactFrictionNSL interactions and FrictionContact
// problem (fc2d enumeration) against crbench's frictional contact problem (fc2d Lemke, checked):
// the same θ-method, activation and laws where the constraint's gradient and the forces are
// constant, so the same numbers to round-off through slides, stops, rest and the disk's start of
// rolling. (A force that depends on t, the ramp, is taken at another time of the step by the
// kernel, and the block leaves the cone a step later there; at Painleve's inconsistent start the
// kernel leaves the contact out of its first two steps.)
TEST_CASE("siconos-moreau-jean and moreau-jean coincide with Coulomb friction", "[siconos]") {
  const std::vector<std::pair<std::string, std::vector<crbench::Assignment>>> settings = {
      {"block-on-incline", {}},
      {"block-on-incline", {{"v0", "0"}}},
      {"block-on-incline", {{"v0", "0"}, {"angle", "0.6"}}},
      {"rolling-disk", {}},
      {"rolling-disk", {{"mu", "0.8"}, {"omega0", "-4"}}}};
  for (const auto& [case_name, params] : settings) {
    const auto model = crbench::make_model(case_name, params);
    INFO(case_name << " with " << params.size() << " parameter(s) set");
    RunRecord runs[2];
    const char* solvers[2] = {"moreau-jean", "siconos-moreau-jean"};
    for (int i = 0; i < 2; ++i) {
      crbench::testing::SolveOptions o;
      o.solver = solvers[i];
      o.solver_params = {{"restitution", "0"}};
      runs[i] = crbench::testing::solve(*model, o);
      REQUIRE(runs[i].status == crbench::Status::ok);
    }
    CHECK(runs[1].steps == runs[0].steps);
    const double scale = std::max(1.0, runs[0].final_state.q.lpNorm<Eigen::Infinity>());
    CHECK((runs[1].final_state.q - runs[0].final_state.q).lpNorm<Eigen::Infinity>() <=
          1e-13 * scale);
    CHECK((runs[1].final_state.v - runs[0].final_state.v).lpNorm<Eigen::Infinity>() <=
          1e-13 * scale);
    CHECK(runs[1].constraint_impulse[0] == Approx(runs[0].constraint_impulse[0]).epsilon(1e-12));
  }
}

TEST_CASE("the Siconos solvers refuse what the kernel's relations cannot say", "[siconos]") {
  // Kinematic rows, a bilateral constraint, and for the event-driven scheme a constraint that
  // moves with time: exit 2, one line.
  const auto moving = crbench::testing::cli(
      {"run", "--case", "vibrating-table", "--solver", "siconos-event-driven"});
  CHECK(moving.status == 2);
  CHECK_THAT(moving.err, Catch::Contains("no acceleration-level LCP"));
  for (const std::string solver : {"siconos-moreau-jean", "siconos-event-driven"}) {
    const auto refused = [&](const std::string& c, const std::string& why) {
      INFO(solver << " on " << c);
      const auto r = crbench::testing::cli({"run", "--case", c, "--solver", solver});
      CHECK(r.status == 2);
      CHECK_THAT(r.err, Catch::Contains(why));
      CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    };
    refused("skate-wall", "kinematic constraints");
  }
  const auto bilateral = crbench::testing::cli(
      {"run", "--case", "stiff-pendulum", "--solver", "siconos-event-driven"});
  CHECK(bilateral.status == 2);
  CHECK_THAT(bilateral.err, Catch::Contains("bilateral constraints"));
}

TEST_CASE("siconos-moreau-jean holds a bilateral constraint as an equality of its MLCP",
          "[siconos]") {
  // stiff-pendulum with vr = 0 (f = 0 and f' = 0 at the start, Kozlov 1992 condition (10)): the
  // rigid pendulum. Against event-driven's holonomic motion the final state is first order in h
  // (measured 1.1e-3 at h = 1e-3, 1.1e-4 at h = 1e-4) and the velocity-level equality lets f drift
  // at second order (min f -1.25e-7, -1.25e-9).
  const auto model = crbench::make_model("stiff-pendulum", {{"vr", "0"}});
  crbench::testing::SolveOptions o;
  o.solver = "event-driven";
  const RunRecord exact = crbench::testing::solve(*model, o);
  REQUIRE(exact.status == crbench::Status::ok);
  double distance[2] = {0.0, 0.0};
  const char* steps[2] = {"1e-3", "1e-4"};
  for (int i = 0; i < 2; ++i) {
    INFO("h = " << steps[i]);
    o.solver = "siconos-moreau-jean";
    o.solver_params = {{"h", steps[i]}};
    const RunRecord r = crbench::testing::solve(*model, o);
    REQUIRE(r.status == crbench::Status::ok);
    const double h = std::stod(steps[i]);
    distance[i] = (r.final_state.q - exact.final_state.q).lpNorm<Eigen::Infinity>();
    CHECK(distance[i] <= 2.0 * h);
    CHECK(std::abs(r.min_constraint[0]) <= 0.2 * h * h);
    CHECK(r.events.empty());
  }
  CHECK(distance[0] / distance[1] == Approx(10.0).epsilon(0.1));
  // Data that violate (10) are refused, as by event-driven.
  const auto refused =
      crbench::testing::cli({"run", "--case", "stiff-pendulum", "--solver", "siconos-moreau-jean"});
  CHECK(refused.status == 2);
  CHECK_THAT(refused.err, Catch::Contains("Kozlov 1992 condition (10)"));
}

TEST_CASE("The Siconos solvers end a run from a non-finite start with a record", "[siconos]") {
  // pendulum-string with L = 5e-324: the angular velocity v0/L is infinite. The kernel asserts on
  // the NaN gap this makes and aborts the process (Debian keeps its assertions); the solvers stop
  // before it, as moreau-jean does.
  for (const std::string solver : {"siconos-moreau-jean", "siconos-event-driven", "moreau-jean"}) {
    INFO(solver);
    const auto model = crbench::make_model("pendulum-string", {{"L", "4.9406564584124654e-324"}});
    crbench::testing::SolveOptions o;
    o.solver = solver;
    const RunRecord r = crbench::testing::solve(*model, o);
    CHECK(r.status == crbench::Status::non_finite);
    CHECK_THAT(r.reason, Catch::Contains("non-finite initial state"));
  }
}

TEST_CASE("siconos-moreau-jean holds the kernel's time grid to max_wall_time", "[siconos]") {
  // dk-plane at h = 1e-8 needs 3e8 steps, whose times the kernel takes before the first step (2.4
  // GB; 5 GB and 10 s in all before this bound). Stopped while the grid is built, the run ends
  // with the bound's status long before the grid would be done.
  crbench::RunRequest request;
  request.case_name = "dk-plane";
  request.solver_name = "siconos-moreau-jean";
  request.solver_assignments = {{"h", "1e-8"}};
  request.max_wall_time = 0.05;
  const RunRecord r = crbench::execute(request);
  CHECK(r.status == crbench::Status::wall_time_exceeded);
  CHECK_THAT(r.reason, Catch::Contains("max_wall_time = 0.05 s") &&
                           Catch::Contains("building the 3e+08 step times"));
  CHECK(r.steps == 0);
  CHECK(r.final_state.t == 0.0);
  // A bound, not a speed: the grid alone takes seconds.
  CHECK(r.wall_time_s < 1.0);
}

namespace {

// siconos-event-driven against event-driven, both at rtol 1e-12, atol 1e-14: the same lift-off
// (kLiftOffDefinition), the same events and the same final state.
void check_lift_off_agreement(const std::string& case_name) {
  const RunRecord ours = run_case(case_name, "event-driven");
  const RunRecord theirs = run_case(case_name, "siconos-event-driven");
  REQUIRE(ours.status == crbench::Status::ok);
  REQUIRE(theirs.status == crbench::Status::ok);
  REQUIRE(ours.lift_off_time.has_value());
  REQUIRE(theirs.lift_off_time.has_value());
  CHECK(std::abs(*theirs.lift_off_time - *ours.lift_off_time) <= 1e-9);
  REQUIRE(theirs.events.size() == ours.events.size());
  for (std::size_t i = 0; i < ours.events.size(); ++i) {
    CHECK(theirs.events[i].kind == ours.events[i].kind);
    CHECK(theirs.events[i].index == ours.events[i].index);
    CHECK(std::abs(theirs.events[i].t - ours.events[i].t) <= 1e-9);
  }
  CHECK(crbench::testing::close(theirs.final_state.q, ours.final_state.q, 1e-9));
  CHECK(crbench::testing::close(theirs.final_state.v, ours.final_state.v, 1e-9));
  CHECK(theirs.tolerances.at("rtol") == 1e-12);
  CHECK(theirs.rhs_evaluations >= theirs.steps);
  CHECK(theirs.steps > 0);
}

}  // namespace

// One entry per case with a classical lift-off that the kernel takes (the others: vibrating-table
// moves its constraint with time, the stiff pendulum's is bilateral).
TEST_CASE("siconos-event-driven lifts off with event-driven: particle-on-circle", "[siconos]") {
  // Measured: 6.8e-11 apart.
  check_lift_off_agreement("particle-on-circle");
}
TEST_CASE("siconos-event-driven lifts off with event-driven: pendulum-string", "[siconos]") {
  // Measured: 2.1e-11 apart.
  check_lift_off_agreement("pendulum-string");
}
TEST_CASE("siconos-event-driven lifts off with event-driven: dk-plane", "[siconos]") {
  // The lift-off is the force's switch at x = 0: without stopping there DLSODAR stepped across
  // the discontinuity in 4e5 steps of 5e-14. Measured: 7e-16 apart.
  check_lift_off_agreement("dk-plane");
  const RunRecord theirs = run_case("dk-plane", "siconos-event-driven");
  CHECK(theirs.steps < 100);
}
TEST_CASE("siconos-event-driven lifts off with event-driven: plane-reparametrized", "[siconos]") {
  check_lift_off_agreement("plane-reparametrized");
}
TEST_CASE("siconos-event-driven lifts off with event-driven: oscillator-at-wall", "[siconos]") {
  // Five elastic impacts; the lift-off is the last (an impact is an episode of zero duration).
  check_lift_off_agreement("oscillator-at-wall");
}

TEST_CASE("siconos-event-driven impacts with event-driven", "[siconos]") {
  // BouncingBallTS's ball with e = 0.9: the first 100 impacts at the same
  // times and velocities (measured 1.9e-11 apart at the 100th). Past them the impacts accumulate
  // at t = 8.5789491 and the two codes end the accumulation by different rules (event-driven: an
  // arrival below contact_velocity_tol 1e-8 ends plastically; Siconos: the gap root is not
  // watched once |f| and |f'| are within its contact_tol 1e-10): 190 and 180 events, the last
  // ones 4e-8 apart, both at rest at the end.
  const RunRecord ours =
      run_case("bouncing-ball-siconos", "event-driven", nullptr, {{"restitution", "0.9"}});
  const RunRecord theirs =
      run_case("bouncing-ball-siconos", "siconos-event-driven", nullptr, {{"restitution", "0.9"}});
  REQUIRE(ours.status == crbench::Status::ok);
  REQUIRE(theirs.status == crbench::Status::ok);
  REQUIRE(ours.events.size() > 100);
  REQUIRE(theirs.events.size() > 100);
  for (std::size_t i = 0; i < 100; ++i) {
    INFO("impact " << i);
    REQUIRE(theirs.events[i].kind == crbench::EventKind::impact);
    REQUIRE(ours.events[i].kind == crbench::EventKind::impact);
    CHECK(std::abs(theirs.events[i].t - ours.events[i].t) <= 1e-9);
    CHECK(*theirs.events[i].rate_after == Approx(*ours.events[i].rate_after).epsilon(1e-6));
    CHECK(*theirs.events[i].rate_after ==
          Approx(-0.9 * *theirs.events[i].rate_before).epsilon(1e-12));
  }
  CHECK(theirs.events.back().kind == crbench::EventKind::contact);
  CHECK(std::abs(theirs.final_state.q(0)) <= 1e-9);
  CHECK(std::abs(ours.final_state.q(0)) <= 1e-9);
}

TEST_CASE("siconos-event-driven keeps contact through a switch and runs Newton's cradle",
          "[siconos]") {
  // dk-counterexample: the pressing force halves at t = 3 pi/2 and the point stays on the plane.
  const RunRecord ours = run_case("dk-counterexample", "event-driven");
  const RunRecord theirs = run_case("dk-counterexample", "siconos-event-driven");
  REQUIRE(theirs.status == crbench::Status::ok);
  CHECK(!theirs.lift_off_time.has_value());
  REQUIRE(theirs.events.size() == 2u);
  CHECK(theirs.events[1].kind == crbench::EventKind::switch_function);
  CHECK(theirs.events[1].t == Approx(1.5 * M_PI).margin(1e-12));
  CHECK(crbench::testing::close(theirs.final_state.q, ours.final_state.q, 1e-12));
  // ball-chain: the striker hits four touching balls; Newton's law with e = 1 solved as one LCP
  // by both codes gives the same velocities.
  const RunRecord chain_ours = run_case("ball-chain", "event-driven");
  const RunRecord chain_theirs = run_case("ball-chain", "siconos-event-driven");
  REQUIRE(chain_theirs.status == crbench::Status::ok);
  CHECK(crbench::testing::close(chain_theirs.final_state.v, chain_ours.final_state.v, 1e-12));
  CHECK(crbench::testing::close(chain_theirs.final_state.q, chain_ours.final_state.q, 1e-12));
}

namespace {

// Three touching unit balls (v0 = 1) through siconos-event-driven with Liu, Zhao & Brogliato's
// multiple-impact law at the given impulse step: the final velocities.
Eigen::VectorXd lzb_cradle(double r, double eta, double step, double restitution = 1.0,
                           int balls = 3) {
  const auto model =
      crbench::make_model("ball-chain", {{"n", std::to_string(balls)},
                                         {"stiffness_ratio", crbench::format_number(r)},
                                         {"exponent", crbench::format_number(eta)}});
  crbench::testing::SolveOptions o;
  o.solver = "siconos-event-driven";
  o.solver_params = {{"impact_law", "lzb"},
                     {"impulse_step", crbench::format_number(step)},
                     {"restitution", crbench::format_number(restitution)}};
  const RunRecord r_ = crbench::testing::solve(*model, o);
  INFO(r_.status << " " << r_.reason);
  REQUIRE(r_.status == crbench::Status::ok);
  CHECK(r_.tolerances.at("impulse_step") == step);
  return r_.final_state.v;
}

}  // namespace

TEST_CASE("siconos-event-driven's LZB law gives the penalty cradle's limit within its bar",
          "[siconos]") {
  // The compliant contacts integrated in the impulse with the configuration frozen (Liu, Zhao &
  // Brogliato 2008) are the penalty's N -> infinity limit wherever no contact reopens and closes
  // again within the impact, as on three touching balls: the reference is the springs at N = 1
  // integrated apart from the suite. The kernel's process is explicit in the impulse step; the
  // difference between the steps 1e-4 and 1e-5 bounds the error at 1e-5 (as over the report's
  // 34 ratios, results/chain-outcome).
  for (const double eta : {1.0, 1.5}) {
    for (const double r : {0.01, 1.0, 100.0}) {
      Eigen::MatrixXd G(2, 3);
      G << -1.0, 1.0, 0.0, 0.0, -1.0, 1.0;
      const Eigen::VectorXd reference = crbench::testing::penalty_contacts_by_odeint(
          G, Eigen::Vector2d(-1.0, -1.0), Eigen::Vector2d(1.0, 1.0 / r), eta,
          Eigen::Vector3d(0.0, 1.0, 2.0), Eigen::Vector3d(1.0, 0.0, 0.0));
      const Eigen::VectorXd coarse = lzb_cradle(r, eta, 1e-4), fine = lzb_cradle(r, eta, 1e-5);
      const double bar = (coarse - fine).cwiseAbs().maxCoeff();
      INFO("eta = " << eta << ", r = " << r << ": LZB " << fine.transpose() << ", penalty "
                    << reference.transpose() << ", bar " << bar);
      CHECK((fine - reference).cwiseAbs().maxCoeff() <= bar);
      CHECK(bar <= 1e-3);
      // The impulses are equal and opposite: momentum is kept to round-off.
      CHECK(std::abs(fine.sum() - 1.0) <= 1e-12);
    }
  }
}

TEST_CASE("siconos-event-driven's LZB law: the energetic restitution of one contact is Newton's",
          "[siconos]") {
  // Two balls, one contact: the restitution e returns e^2 of the compression's energy, so the
  // relative velocity leaves at e times its approach, as Newton's law (v = ((1 - e)/2, (1 +
  // e)/2)). The process ends within one step of the impulse.
  for (const double e : {0.0, 0.5, 1.0}) {
    const Eigen::VectorXd v = lzb_cradle(1.0, 1.5, 1e-5, e, 2);
    INFO("e = " << e << ": " << v.transpose());
    CHECK(std::abs(v(0) - 0.5 * (1.0 - e)) <= 2e-5);
    CHECK(std::abs(v(1) - 0.5 * (1.0 + e)) <= 2e-5);
  }
}

TEST_CASE("siconos-event-driven takes the LZB law's settings only with it", "[siconos]") {
  const auto model = crbench::make_model("ball-chain", {});
  for (const char* name : {"impulse_step", "contact_scale"}) {
    crbench::RunSettings settings;
    const std::string value = std::string(name) == "impulse_step" ? "1e-5" : "contact=2";
    const std::string flag =
        std::string(name) == "impulse_step" ? "--impulse-step" : "--contact-scale";
    CHECK_THROWS_WITH(crbench::configure_solver(crbench::find_solver("siconos-event-driven"),
                                                {{name, value}}, settings, &model->info()),
                      Catch::Contains(flag) && Catch::Contains("applies to --impact-law lzb only"));
  }
}
#endif

}  // namespace siconos_tests
