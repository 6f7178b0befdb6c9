// siconos-moreau-jean (the Siconos kernel through solvers/siconos_bridge.cpp): Siconos's own
// BouncingBallTS output, agreement with crbench's moreau-jean where the two schemes coincide, and
// the cases it refuses. Built only with the kernel (CRBENCH_SICONOS).
#ifdef CRBENCH_HAVE_SICONOS
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "crbench/cases/registry.hpp"
#include "tests/support.hpp"

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
  REQUIRE(r.status == "ok");
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
    REQUIRE(ours.status == "ok");
    REQUIRE(theirs.status == "ok");
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

TEST_CASE("siconos-moreau-jean refuses what a scleronomous relation cannot say", "[siconos]") {
  // A constraint that moves with time, kinematic rows, a bilateral constraint: exit 2, one line.
  const auto refused = [](const std::string& c, const std::string& why) {
    INFO(c);
    const auto r = crbench::testing::cli({"run", "--case", c, "--solver", "siconos-moreau-jean"});
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains(why));
  };
  refused("vibrating-table", "depends on time");
  refused("skate-wall", "kinematic constraints");
  refused("stiff-pendulum", "bilateral constraints");
}
#endif
