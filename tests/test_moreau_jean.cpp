// Moreau–Jean against the external Siconos reference, and its order of convergence against the
// event-driven solver and the closed form of dk-plane.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "crbench/bench/cli.hpp"
#include "support.hpp"
#include "test_cases.hpp"

namespace moreau_jean_tests {

using namespace crbench;

namespace {

struct ReferenceRow {
  double t, height, velocity, impulse, lambda;
};

std::vector<ReferenceRow> read_reference(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  int rows = 0, columns = 0;
  in >> rows >> columns;
  REQUIRE(rows == 2001);
  REQUIRE(columns == 5);
  std::vector<ReferenceRow> out(static_cast<std::size_t>(rows));
  for (auto& r : out) in >> r.t >> r.height >> r.velocity >> r.impulse >> r.lambda;
  REQUIRE(in.good());
  return out;
}

}  // namespace

TEST_CASE("moreau-jean reproduces all 2001 rows of Siconos's BouncingBallTS reference to 1e-12",
          "[moreau-jean]") {
  const auto reference = read_reference(CRBENCH_TEST_DATA "/siconos/BouncingBallTS.ref");
  const auto model = make_model("bouncing-ball-siconos", {});
  std::vector<TrajectorySample> rows;
  testing::SolveOptions o;
  o.solver = "moreau-jean";
  o.solver_params = {{"h", "0.005"}, {"theta", "0.5"}, {"restitution", "0.9"}};
  o.output_times = testing::grid(0.0, 10.0, 2001);
  o.on_sample = [&](const TrajectorySample& s) { rows.push_back(s); };
  const RunRecord r = testing::solve(*model, o);
  REQUIRE(r.status == Status::ok);
  REQUIRE(rows.size() == reference.size());
  double worst = 0.0;
  int impulses = 0;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const auto& ref = reference[k];
    const auto& row = rows[k];
    INFO("row " << k << " t = " << ref.t);
    CHECK(std::abs(row.x.t - ref.t) <= 1e-12);
    CHECK(std::abs(row.x.q(0) - ref.height) <= 1e-12);
    CHECK(std::abs(row.x.v(0) - ref.velocity) <= 1e-12);
    CHECK(std::abs(row.impulse(0) - ref.impulse) <= 1e-12);
    CHECK(row.x.q(1) == 0.0);
    CHECK(row.x.q(2) == 0.0);
    worst = std::max({worst, std::abs(row.x.q(0) - ref.height), std::abs(row.x.v(0) - ref.velocity),
                      std::abs(row.impulse(0) - ref.impulse)});
    impulses += ref.impulse != 0.0;
  }
  CHECK(impulses > 40);  // the reference is not trivial: it has its bounces and its resting phase
  WARN("largest deviation from the Siconos reference: " << worst);
}

TEST_CASE("moreau-jean on dk-plane: lift-off within 2h of 1 and max|dy| = O(h)", "[moreau-jean]") {
  const auto model = make_model("dk-plane", {});
  const Facts facts = model->facts();
  const ClosedFormTrajectory* exact = facts.trajectory("classical");
  // h = 1/(10^j + 1/2), j = 2..5 (1e-2 … 1e-5): the switch x = 0 at t = 1 always falls in the
  // middle of a step, so every h sees the same situation; with 1/h an integer the switch sits on
  // a step boundary and rounding of x decides on which side.
  std::vector<double> steps, errors;
  for (const double inverse : {100.5, 1000.5, 10000.5, 100000.5}) {
    const double h = 1.0 / inverse;
    double max_dy = 0.0;
    testing::SolveOptions o;
    o.solver = "moreau-jean";
    o.solver_params = {{"h", format_number(h)}};
    o.output_times = testing::grid(0.0, 3.0, 3001);
    o.on_sample = [&](const TrajectorySample& s) {
      max_dy = std::max(max_dy, std::abs(s.x.q(1) - (*exact->q(s.x.t, std::nan("")))(1)));
    };
    const RunRecord r = testing::solve(*model, o);
    INFO("h = " << h);
    REQUIRE(r.status == Status::ok);
    REQUIRE(r.lift_off_time);
    CHECK(std::abs(*r.lift_off_time - 1.0) <= 2.0 * h);
    steps.push_back(h);
    errors.push_back(max_dy);
  }
  const double order = testing::fitted_slope(steps, errors);
  INFO("max|dy| = " << Catch::Detail::stringify(errors) << ", fitted order " << order);
  CHECK(order == Approx(1.0).margin(0.1));
}

TEST_CASE("moreau-jean impact times converge to the event-driven ones with order 1 (e = 0.5)",
          "[moreau-jean]") {
  const auto model = make_model("bouncing-ball-siconos", {});
  const auto impact_times = [](const RunRecord& r) {
    std::vector<double> t;
    for (const auto& e : r.events) {
      if (e.kind == EventKind::impact) t.push_back(e.t);
    }
    return t;
  };
  testing::SolveOptions exact_options;
  exact_options.solver_params = {{"restitution", "0.5"}};
  exact_options.t_end = 1.5;
  const auto exact = impact_times(testing::solve(*model, exact_options));
  REQUIRE(exact.size() >= 3);
  std::vector<double> steps, errors;
  for (const double h : {1e-2, 1e-3, 1e-4, 1e-5}) {
    testing::SolveOptions o;
    o.solver = "moreau-jean";
    o.solver_params = {{"h", format_number(h)}, {"restitution", "0.5"}};
    o.t_end = 1.5;
    const auto times = impact_times(testing::solve(*model, o));
    REQUIRE(times.size() >= 3);
    double worst = 0.0;
    for (std::size_t i = 0; i < 3; ++i) worst = std::max(worst, std::abs(times[i] - exact[i]));
    steps.push_back(h);
    errors.push_back(worst);
  }
  const double order = testing::fitted_slope(steps, errors);
  INFO("errors " << Catch::Detail::stringify(errors) << ", fitted order " << order);
  CHECK(order == Approx(1.0).margin(0.1));
}

TEST_CASE("crbench run --case dk-plane --solver moreau-jean --h 1e-4: lift-off within 2e-4 of 1",
          "[moreau-jean]") {
  const auto model = make_model("dk-plane", {});
  testing::SolveOptions o;
  o.solver = "moreau-jean";
  o.solver_params = {{"h", "1e-4"}};
  const RunRecord r = testing::solve(*model, o);
  REQUIRE(r.status == Status::ok);
  REQUIRE(r.lift_off_time);
  CHECK(std::abs(*r.lift_off_time - 1.0) <= 2e-4);
  CHECK(r.min_constraint.at(0) >= 0.0);
}

TEST_CASE("Two simultaneous impacts (a corner): both normal velocities reversed", "[moreau-jean]") {
  // Event-driven: both constraints reached at t = 0.5 in one event, one impact LCP.
  // Moreau-Jean: both active in one step, solved by the enumerative LCP.
  const auto model = testing::model_of<test_cases::Corner>();
  for (const char* solver : {"event-driven", "moreau-jean"}) {
    testing::SolveOptions o;
    o.solver = solver;
    if (std::string(solver) == "moreau-jean") o.solver_params = {{"h", "1e-3"}};
    const RunRecord r = testing::solve(*model, o);
    INFO(solver);
    REQUIRE(r.status == Status::ok);
    CHECK(r.final_state.v(0) == Approx(1.0).margin(1e-12));
    CHECK(r.final_state.v(1) == Approx(1.0).margin(1e-12));
    int impacts = 0;
    for (const auto& e : r.events) impacts += e.kind == EventKind::impact;
    CHECK(impacts == 2);
    CHECK(r.min_constraint.at(0) >= -2e-3);
    CHECK(r.min_constraint.at(1) >= -2e-3);
  }
}

TEST_CASE(
    "crbench run --case bouncing-ball-siconos --solver moreau-jean reproduces Siconos with "
    "no extra flags (the case carries h, theta, restitution)",
    "[moreau-jean][cli]") {
  const auto reference = read_reference(CRBENCH_TEST_DATA "/siconos/BouncingBallTS.ref");
  const char* argv[] = {"crbench",  "run",         "--case", "bouncing-ball-siconos",
                        "--solver", "moreau-jean", "--json"};
  std::ostringstream out, err;
  REQUIRE(run_cli(7, argv, out, err) == 0);
  const auto j = nlohmann::json::parse(out.str());
  CHECK(j["parameter_sources"]["h"] == "case");
  CHECK(j["parameter_sources"]["restitution"] == "case");
  CHECK(j["parameter_sources"]["theta"] == "case");
  CHECK(j["final_state"]["t"].get<double>() == reference.back().t);
  CHECK(std::abs(j["final_state"]["q"][0].get<double>() - reference.back().height) <= 1e-12);
  CHECK(std::abs(j["final_state"]["v"][0].get<double>() - reference.back().velocity) <= 1e-12);
  // The user's flag overrides the case's setting, and the record says so.
  const char* user[] = {"crbench",  "run",         "--case", "bouncing-ball-siconos",
                        "--solver", "moreau-jean", "--json", "--h",
                        "0.001"};
  std::ostringstream out2;
  REQUIRE(run_cli(9, user, out2, err) == 0);
  const auto k = nlohmann::json::parse(out2.str());
  CHECK(k["solver_params"]["h"].get<double>() == 0.001);
  CHECK(k["parameter_sources"]["h"] == "user");
  CHECK(k["parameter_sources"]["restitution"] == "case");
}

TEST_CASE("moreau-jean: Lemke and PGS impulses agree with the enumeration on rows of balls",
          "[moreau-jean]") {
  // Simultaneous impacts in a row of K balls (K − 1 = 2, 4, 8 active rows): the three LCP methods
  // give the same motion, momentum is kept exactly, and with e = 1 the first ball stops and
  // the momentum spreads along the row (Newton's law at every contact at once is not the
  // cradle's sequence of binary collisions).
  const auto check = [](const Model& model) {
    const auto solve_with = [&](const char* lcp) {
      testing::SolveOptions o;
      o.solver = "moreau-jean";
      o.solver_params = {{"h", "1e-3"}, {"restitution", "1"}, {"lcp", lcp}};
      return testing::solve(model, o);
    };
    const RunRecord exact = solve_with("enumeration");
    const RunRecord lemke = solve_with("lemke");
    const RunRecord pgs = solve_with("pgs");
    INFO(model.info().name);
    REQUIRE(exact.status == Status::ok);
    REQUIRE(lemke.status == Status::ok);
    REQUIRE(pgs.status == Status::ok);
    CHECK(exact.diagnostics.at("lcp_solves").get<long>() >= 1);
    CHECK((lemke.final_state.q - exact.final_state.q).lpNorm<Eigen::Infinity>() <= 1e-12);
    CHECK((lemke.final_state.v - exact.final_state.v).lpNorm<Eigen::Infinity>() <= 1e-12);
    CHECK((pgs.final_state.v - exact.final_state.v).lpNorm<Eigen::Infinity>() <= 1e-9);
    CHECK(pgs.tolerances.at("lcp_tolerance") == 1e-14);
    CHECK(exact.final_state.v.sum() == Approx(1.0).epsilon(1e-13));
  };
  check(*testing::model_of<test_cases::BallRow<3>>());
  check(*testing::model_of<test_cases::BallRow<5>>());
  // The fixed-size case layer stops near n = 10 (the nested AD types of a 13-ball row exceed
  // Eigen's stack limit); solvers/lcp.hpp's own test covers Lemke against the enumeration to
  // m = 12 and chains of 1000 rows.
  check(*testing::model_of<test_cases::BallRow<9>>());
}

TEST_CASE(
    "bouncing-ball-siconos comes to rest: every solver ends in an open episode with no lift-off "
    "(e = 0, e = 0.9, Siconos's settings)",
    "[moreau-jean][episodes]") {
  // With e = 0 the ball stays on the floor after its first impact; with e = 0.9 the bounces
  // accumulate and it rests well before t = 10. A resting contact is one episode that stays open
  // (docs/theory.md section 5), so no solver reports a lift-off.
  const auto model = make_model("bouncing-ball-siconos", {});
  struct Row {
    std::string solver;
    std::vector<crbench::Assignment> params;
  };
  const std::vector<Row> rows{
      {"moreau-jean", {{"restitution", "0"}}},
      {"moreau-jean", {{"restitution", "0.9"}, {"h", "0.005"}}},
      {"moreau-jean", {{"restitution", "0.9"}, {"h", "0.005"}, {"theta", "0.5"}}},
      {"event-driven", {{"restitution", "0"}}},
      {"event-driven", {{"restitution", "0.9"}}},
      {"limit", {{"preset", "penalty"}, {"restitution", "0"}}},
      {"realization", {{"preset", "viscous"}, {"N", "1e4"}}},
  };
  for (const Row& row : rows) {
    crbench::testing::SolveOptions o;
    o.solver = row.solver;
    o.solver_params = row.params;
    const crbench::RunRecord r = crbench::testing::solve(*model, o);
    INFO(row.solver << " " << r.status << ": " << r.reason);
    REQUIRE(r.status == Status::ok);
    CHECK_FALSE(r.lift_off_time);
    REQUIRE(!r.contact_episodes.empty());
    CHECK_FALSE(r.contact_episodes.back().end);
    // No episode starts before the first impact (a lift-off is never read as an episode from t0).
    CHECK(r.contact_episodes.front().start > 0.4);
  }
  // The first bounces of e = 0.9 are episodes of zero length.
  crbench::testing::SolveOptions o;
  o.solver = "moreau-jean";
  o.solver_params = {{"restitution", "0.9"}, {"h", "0.005"}};
  const crbench::RunRecord r = crbench::testing::solve(*model, o);
  REQUIRE(r.contact_episodes.size() > 3);
  CHECK(r.contact_episodes[0].impact);
  CHECK(r.contact_episodes[0].end == r.contact_episodes[0].start);
}

}  // namespace moreau_jean_tests
