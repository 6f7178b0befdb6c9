// The impulse of each constraint's reaction over a run (RunRecord::constraint_impulse, the
// observable total_impulse), against closed forms and against the momentum balance: with a
// constant ∇f, a constant mass matrix and F independent of the motion along ∇f, the reaction's
// impulse is the momentum change along the constraint minus the impulse of the applied forces.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "crbench/bench/observables.hpp"
#include "crbench/bench/run_support.hpp"
#include "crbench/cases/registry.hpp"
#include "tests/support.hpp"

namespace impulse_tests {

namespace {

using crbench::Assignment;
using crbench::RunRecord;

// dk-plane (unit point, f = y, F_y = −g for x ≤ 0 and +g after, x = −1 + t throughout):
// ∫λ dt = ẏ(T) − ẏ(0) − ∫F_y dt = ẏ(T) + g min(T, 1) − g max(T − 1, 0).
double dk_plane_balance(const RunRecord& r, double g) {
  const double t = r.final_state.t;
  return r.final_state.v(1) + g * std::min(t, 1.0) - g * std::max(t - 1.0, 0.0);
}

RunRecord dk_plane(const std::string& solver, std::vector<Assignment> set, double t_end = 3.0) {
  const auto model = crbench::make_model("dk-plane", {});
  crbench::testing::SolveOptions o;
  o.solver = solver;
  o.solver_params = std::move(set);
  o.t_end = t_end;
  return crbench::testing::solve(*model, o);
}

}  // namespace

TEST_CASE("Constraint impulse: dk-plane's closed forms and its momentum balance", "[impulse]") {
  // The classical model presses with λ = g until it leaves at t = 1: ∫λ dt = g.
  const RunRecord ideal = dk_plane("event-driven", {});
  REQUIRE(ideal.status == crbench::Status::ok);
  REQUIRE(ideal.constraint_impulse.size() == 1);
  CHECK(ideal.constraint_impulse[0] == Approx(1.0).margin(1e-10));
  CHECK(ideal.diagnostics.at("impulse_quadrature_evaluations").get<long>() > 0);
  // The viscous limit stays until t = 2, pulling with λ = −g after t = 1: ∫λ dt = 0.
  const RunRecord viscous = dk_plane("limit", {{"preset", "viscous"}});
  REQUIRE(viscous.status == crbench::Status::ok);
  CHECK(std::abs(viscous.constraint_impulse[0]) < 1e-10);
  // Moreau–Jean's sum of impulses: g to O(h) (its force switches at a step's start).
  const RunRecord mj = dk_plane("moreau-jean", {{"h", "1e-3"}});
  REQUIRE(mj.status == crbench::Status::ok);
  CHECK(mj.constraint_impulse[0] == Approx(1.0).margin(3e-3));
  // The realization's ∫−N(βḟ + γf) dt keeps the momentum balance to the integration tolerance.
  for (const std::string preset : {"viscous", "penalty"}) {
    for (const std::string n : {"1e2", "1e4"}) {
      INFO(preset << " at N = " << n);
      const RunRecord r = dk_plane("realization", {{"preset", preset}, {"N", n}});
      REQUIRE(r.status == crbench::Status::ok);
      REQUIRE(r.constraint_impulse.size() == 1);
      CHECK(r.constraint_impulse[0] == Approx(dk_plane_balance(r, 1.0)).margin(1e-8));
    }
  }
  // The viscous medium's ∫−βN ḟ dt over an episode that enters and leaves at f = 0 is 0 at
  // every N, as its limit's.
  for (const std::string n : {"1e3", "1e5"}) {
    CHECK(
        std::abs(dk_plane("realization", {{"preset", "viscous"}, {"N", n}}).constraint_impulse[0]) <
        1e-10);
  }
  // The (0,1,1) limit presses with λ = g until t = 1 and pulls with −g until its lift-off t_l:
  // ∫λ dt = 2 − t_l (g = 1); the realization's impulse tends to it at order 1 in 1/N.
  const std::vector<Assignment> kelvin_voigt{{"alpha", "0"}, {"beta", "1"}, {"gamma", "1"}};
  const RunRecord limit = dk_plane("limit", kelvin_voigt);
  REQUIRE(limit.status == crbench::Status::ok);
  REQUIRE(limit.lift_off_time);
  CHECK(limit.constraint_impulse[0] == Approx(2.0 - *limit.lift_off_time).margin(1e-10));
  const auto error = [&](const std::string& n) {
    std::vector<Assignment> set = kelvin_voigt;
    set.push_back({"N", n});
    return std::abs(dk_plane("realization", set).constraint_impulse[0] -
                    limit.constraint_impulse[0]);
  };
  CHECK(std::log10(error("1e3") / error("1e5")) / 2.0 == Approx(1.0).margin(0.02));
}

TEST_CASE("Constraint impulse: impacts and contact on the bouncing ball", "[impulse]") {
  // f = height, M = diag(m, m, 2/5 m R²), V = m g height: ∫λ dt + Σ P = m(v(T) − v(0)) + m g T.
  const auto model = crbench::make_model("bouncing-ball-siconos", {});
  const double m = 1.0, g = 9.81;
  const auto balance = [&](const RunRecord& r) {
    const crbench::State start = model->initial_state();
    return m * (r.final_state.v(0) - start.v(0)) + m * g * (r.final_state.t - start.t);
  };
  struct Run {
    std::string solver;
    std::vector<Assignment> set;
    double margin;
  };
  for (const Run& run : std::vector<Run>{
           {"event-driven", {{"restitution", "0.9"}}, 1e-10},
           {"moreau-jean", {{"restitution", "0.9"}, {"h", "1e-3"}}, 1e-10},
           {"realization", {{"preset", "kozlov-impact"}, {"N", "1e4"}}, 1e-6},
       }) {
    INFO(run.solver);
    crbench::testing::SolveOptions o;
    o.solver = run.solver;
    o.solver_params = run.set;
    const RunRecord r = crbench::testing::solve(*model, o);
    REQUIRE(r.status == crbench::Status::ok);
    REQUIRE(r.constraint_impulse.size() == 1);
    CHECK(r.constraint_impulse[0] == Approx(balance(r)).margin(run.margin));
    // The observable is that impulse, in momentum (f is a length).
    crbench::GridRun grid;
    grid.record = r;
    CHECK(crbench::measure("total_impulse", grid, *model) ==
          Approx(std::abs(r.constraint_impulse[0])));
  }
  CHECK(crbench::observable("total_impulse").unit(*model) == "momentum");
  // A case without constraints f has no impulse to report.
  const auto knife = crbench::make_model("knife-edge-incline", {});
  crbench::testing::SolveOptions o;
  crbench::GridRun none;
  none.record = crbench::testing::solve(*knife, o);
  CHECK_FALSE(crbench::measure("total_impulse", none, *knife).has_value());
}

}  // namespace impulse_tests
