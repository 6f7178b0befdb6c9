// The physics-engine solvers (solvers/engine_solver.hpp) against crbench's obstacle realization
// with the same (β, γ, N), and MuJoCo's contact against the model docs/engines.md derives for it:
// ODE's ERP/CFM contact is the realization's spring-damper integrated by implicit Euler, so the
// two agree to O(h); MuJoCo's soft contact is another realization, f'' = (1 − w)a₀ − b_eff f' −
// k_eff f while it pushes, whose predictions (sink velocity, resting depth, contact time) are
// checked here to the digits the step allows. Built with each engine's CMake option.
#if defined(CRBENCH_HAVE_MUJOCO) || defined(CRBENCH_HAVE_ODE) || defined(CRBENCH_HAVE_BULLET)
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <string>
#include <thread>
#include <vector>

#include "crbench/bench/study.hpp"
#include "crbench/cases/registry.hpp"
#include "crbench/solvers/record.hpp"
#include "tests/support.hpp"

namespace engines_tests {

namespace {

using crbench::Assignment;
using crbench::RunRecord;

RunRecord run(const std::string& case_name, const std::string& solver,
              std::vector<Assignment> solver_params, std::vector<Assignment> case_params = {},
              double t_end = std::numeric_limits<double>::quiet_NaN(),
              std::vector<double> output_times = {},
              std::function<void(const crbench::TrajectorySample&)> on_sample = {}) {
  const auto model = crbench::make_model(case_name, case_params);
  crbench::testing::SolveOptions o;
  o.solver = solver;
  o.solver_params = std::move(solver_params);
  o.t_end = t_end;
  o.output_times = std::move(output_times);
  o.on_sample = std::move(on_sample);
  return crbench::testing::solve(*model, o);
}

// The realization with the engines' obstacle interaction and the same coefficients.
RunRecord realization(const std::string& case_name, std::vector<Assignment> solver_params,
                      std::vector<Assignment> case_params = {},
                      double t_end = std::numeric_limits<double>::quiet_NaN()) {
  solver_params.push_back({"interaction", "obstacle"});
  return run(case_name, "realization", std::move(solver_params), std::move(case_params), t_end);
}

double first_exit(const RunRecord& r) {
  REQUIRE(!r.contact_episodes.empty());
  REQUIRE(r.contact_episodes.front().end);
  return *r.contact_episodes.front().end;
}

}  // namespace

#ifdef CRBENCH_HAVE_ODE
TEST_CASE("ode: the mapped ERP/CFM contact is the realization's obstacle to O(h)", "[engines]") {
  SECTION("dk-plane, viscous: the lift-off sqrt(2/N) late, as the realization's") {
    const RunRecord reference = realization("dk-plane", {{"N", "1e4"}});
    REQUIRE(reference.lift_off_time);
    std::vector<double> differences;
    for (const char* h : {"1e-4", "1e-5"}) {
      const RunRecord r = run("dk-plane", "ode", {{"N", "1e4"}, {"h", h}});
      REQUIRE(r.status == crbench::Status::ok);
      REQUIRE(r.lift_off_time);
      differences.push_back(std::abs(*r.lift_off_time - *reference.lift_off_time));
      // Measured: 8.1e-5 at h = 1e-4, 8.4e-6 at 1e-5.
      CHECK(differences.back() <= std::stod(h));
    }
    CHECK(differences[1] <= differences[0] / 5.0);
  }
  SECTION("bouncing-ball-siconos with m = 2: stiffness and damping are forces, not accelerations") {
    // kp = 1e6, kd = 1e3 on a mass of 2: the first contact's exit.
    const std::vector<Assignment> coefficients{{"beta", "1e-3"}, {"gamma", "1"}, {"N", "1e6"}};
    const RunRecord reference =
        realization("bouncing-ball-siconos", coefficients, {{"m", "2"}}, 0.5);
    std::vector<double> differences;
    for (const char* h : {"1e-5", "1e-6"}) {
      auto params = coefficients;
      params.push_back({"h", h});
      const RunRecord r = run("bouncing-ball-siconos", "ode", params, {{"m", "2"}}, 0.5);
      REQUIRE(r.status == crbench::Status::ok);
      differences.push_back(std::abs(first_exit(r) - first_exit(reference)));
      // Measured: 4.4e-6 at h = 1e-5, 4.3e-7 at 1e-6.
      CHECK(differences.back() <= std::stod(h));
    }
    CHECK(differences[1] <= differences[0] / 5.0);
  }
  SECTION(
      "ball-chain: sphere-sphere contacts pass the velocity on, losing O(h) to implicit Euler") {
    const std::vector<Assignment> chain{{"n", "3"}, {"gap", "0.1"}};
    const RunRecord reference =
        realization("ball-chain", {{"preset", "penalty"}, {"N", "1e4"}}, chain);
    REQUIRE(reference.final_state.v(2) == Approx(1.0).margin(1e-9));
    std::vector<double> losses;
    for (const char* h : {"1e-4", "1e-5"}) {
      const RunRecord r =
          run("ball-chain", "ode", {{"preset", "penalty"}, {"N", "1e4"}, {"h", h}}, chain);
      REQUIRE(r.status == crbench::Status::ok);
      REQUIRE(r.lift_off_time);
      // Implicit Euler damps the contact spring (omega h = 1.4e-2 at h = 1e-4) by a factor
      // (1 + omega^2 h^2)^(-1/2) a step: the last ball leaves at 0.978, then 0.9978.
      losses.push_back(1.0 - r.final_state.v(2));
      CHECK(losses.back() > 0.0);
      CHECK(losses.back() <= 250.0 * std::stod(h));
      CHECK(std::abs(*r.lift_off_time - *reference.lift_off_time) <= 10.0 * std::stod(h));
    }
    CHECK(losses[1] <= losses[0] / 5.0);
  }
}

TEST_CASE("ode: a failed LCP ends the record, and the quick step goes through", "[engines]") {
  // Touching balls: every contact at depth 0, the far ones with no relative velocity. dWorldStep's
  // Dantzig pivoting reports "LCP internal error" and goes on with forces under which the striker
  // passes through its neighbour; dWorldQuickStep's iterations share the momentum out.
  const RunRecord pivoting = run("ball-chain", "ode", {{"h", "1e-3"}}, {{"n", "3"}});
  CHECK(pivoting.status == crbench::Status::step_failure);
  CHECK_THAT(pivoting.reason, Catch::Contains("LCP internal error"));
  const RunRecord quick =
      run("ball-chain", "ode", {{"h", "1e-3"}, {"stepper", "quick"}}, {{"n", "3"}});
  REQUIRE(quick.status == crbench::Status::ok);
  for (int i = 0; i < 3; ++i) CHECK(quick.final_state.v(i) == Approx(1.0 / 3.0).margin(1e-9));
}

#ifdef CRBENCH_HAVE_MUJOCO
TEST_CASE("mujoco: a step MuJoCo resets on a huge acceleration ends the record at that step",
          "[engines]") {
  // The penalty wall at N = 1e12 with h = 1e-2: the step that meets the ground computes an
  // acceleration MuJoCo calls huge (above 1e10); it warns and resets its state, so the motion
  // is lost. The record keeps the state before that step.
  const RunRecord r =
      run("bouncing-ball-siconos", "mujoco", {{"preset", "penalty"}, {"N", "1e12"}, {"h", "1e-2"}});
  REQUIRE(r.status == crbench::Status::step_failure);
  CHECK_THAT(r.reason, Catch::StartsWith("at t = 0.46: MuJoCo warned (Nan, Inf or huge value in "
                                         "QACC"));
  CHECK_THAT(r.reason, Catch::EndsWith("; it then resets its state, so the motion is lost)"));
  CHECK(r.final_state.t == Approx(0.45).margin(1e-12));
  CHECK(r.steps == 45);
}
#endif

TEST_CASE("ode: the default contact (ERP 0.2, CFM 1e-10) lifts off within a step", "[engines]") {
  const RunRecord r = run("dk-plane", "ode", {{"preset", "engine-default"}, {"h", "1e-3"}});
  REQUIRE(r.status == crbench::Status::ok);
  REQUIRE(r.lift_off_time);
  CHECK(*r.lift_off_time - 1.0 <= 2e-3);
  CHECK(r.tolerances.at("world_erp") == 0.2);
}
#endif

#ifdef CRBENCH_HAVE_BULLET
TEST_CASE("bullet: the mapped contact is the realization's obstacle to O(h), ODE's to round-off",
          "[engines]") {
  // Bullet's sequential-impulse row with ERP = h kp/(h kp + kd), CFM = 1/(h kp + kd) and no split
  // impulse is ODE's implicit spring-damper; 100 iterations converge the single row.
  const RunRecord reference = realization("dk-plane", {{"N", "1e4"}});
  REQUIRE(reference.lift_off_time);
  std::vector<double> differences;
  for (const char* h : {"1e-4", "1e-5"}) {
    const RunRecord r = run("dk-plane", "bullet", {{"N", "1e4"}, {"h", h}});
    REQUIRE(r.status == crbench::Status::ok);
    REQUIRE(r.lift_off_time);
    differences.push_back(std::abs(*r.lift_off_time - *reference.lift_off_time));
    CHECK(differences.back() <= std::stod(h));
  }
  CHECK(differences[1] <= differences[0] / 5.0);
#ifdef CRBENCH_HAVE_ODE
  struct Setup {
    const char* case_name;
    std::vector<Assignment> solver, case_params;
  };
  const std::vector<Setup> setups{
      {"dk-plane", {{"preset", "penalty"}, {"N", "1e4"}, {"h", "1e-4"}}, {}},
      {"bouncing-ball-siconos",
       {{"beta", "1e-3"}, {"gamma", "1"}, {"N", "1e6"}, {"h", "1e-5"}},
       {{"m", "2"}}},
      {"ball-chain",
       {{"preset", "penalty"}, {"N", "1e4"}, {"h", "1e-4"}},
       {{"n", "3"}, {"gap", "0.1"}}},
  };
  for (const Setup& setup : setups) {
    INFO(setup.case_name);
    const RunRecord bullet = run(setup.case_name, "bullet", setup.solver, setup.case_params, 0.5);
    const RunRecord ode = run(setup.case_name, "ode", setup.solver, setup.case_params, 0.5);
    REQUIRE(bullet.status == crbench::Status::ok);
    REQUIRE(ode.status == crbench::Status::ok);
    CHECK((bullet.final_state.q - ode.final_state.q).lpNorm<Eigen::Infinity>() <= 1e-12);
    CHECK((bullet.final_state.v - ode.final_state.v).lpNorm<Eigen::Infinity>() <= 1e-12);
    REQUIRE(bullet.contact_episodes.size() == ode.contact_episodes.size());
  }
#endif
}

TEST_CASE("bullet: the default contact holds the body at f = 0 and lets go within a step",
          "[engines]") {
  // Bullet's contact acts on a gap about to close within the step (its speculative contact), and
  // split impulse corrects what penetration there is without a force: dk-plane's point rests on
  // the plane, f = 0, until the switch.
  const RunRecord r = run("dk-plane", "bullet", {{"preset", "engine-default"}, {"h", "1e-3"}});
  REQUIRE(r.status == crbench::Status::ok);
  REQUIRE(r.lift_off_time);
  CHECK(r.min_constraint[0] >= -1e-12);
  CHECK(*r.lift_off_time - 1.0 <= 2e-3);
  CHECK(r.tolerances.at("iterations") == 10.0);
}
#endif

TEST_CASE(
    "particle-on-circle as a sphere against a fixed sphere: ODE's and Bullet's contact is the "
    "realization's obstacle to O(h), MuJoCo's chatters as its tendon does",
    "[engines]") {
  // The rod f = r - R >= 0 as an ordinary sphere-sphere contact. ODE's and Bullet's row is the
  // implicit spring-damper at the contact's normal of the step's start, so the particle stays in
  // one episode and leaves where the realization's obstacle does, to O(h). Measured at N = 1e4:
  // 9.2e-3 from the realization's 1.2272381 at h = 1e-4, 8.1e-4 at 1e-5.
  const RunRecord reference = realization("particle-on-circle", {{"N", "1e4"}});
  REQUIRE(reference.lift_off_time);
  std::vector<std::string> engines;
#ifdef CRBENCH_HAVE_ODE
  engines.emplace_back("ode");
#endif
#ifdef CRBENCH_HAVE_BULLET
  engines.emplace_back("bullet");
#endif
  for (const std::string& engine : engines) {
    INFO(engine);
    std::vector<double> differences;
    for (const char* h : {"1e-4", "1e-5"}) {
      const RunRecord r = run("particle-on-circle", engine, {{"N", "1e4"}, {"h", h}});
      REQUIRE(r.status == crbench::Status::ok);
      REQUIRE(r.lift_off_time);
      CHECK(r.contact_episodes.size() == 1u);
      CHECK(r.diagnostics.at("scene").get<std::string>().find("fixed sphere") != std::string::npos);
      differences.push_back(std::abs(*r.lift_off_time - *reference.lift_off_time));
    }
    CHECK(differences[0] <= 100.0 * 1e-4);
    CHECK(differences[1] <= differences[0] / 8.0);
  }
#ifdef CRBENCH_HAVE_MUJOCO
  // MuJoCo's constraint solver sets J q'' of the contact, not f'' = J q'' + J' q': the
  // velocity-product term r theta'^2 it leaves points away from the circle, on the ordinary contact
  // as on the tendon's limit, and the particle chatters at the step's scale (measured at N = 1e4,
  // h = 1e-4: 254 episodes with the spheres, 259 with the tendon).
  for (const char* rod : {"sphere", "tendon"}) {
    INFO(rod);
    const RunRecord r =
        run("particle-on-circle", "mujoco", {{"N", "1e4"}, {"h", "1e-4"}, {"rod", rod}});
    REQUIRE(r.status == crbench::Status::ok);
    CHECK(r.contact_episodes.size() > 100u);
  }
#endif
}

#ifdef CRBENCH_HAVE_MUJOCO
namespace {

// MuJoCo's diagApprox of a contact over its J M⁻¹ Jᵀ for a body with two translational dofs: the
// body's translational invweight0, the mean of the three diagonal entries of its translational
// J M⁻¹ Jᵀ, is 2/(3m) where the contact's is 1/m (docs/engines.md).
constexpr double kDiagonalRatio = 2.0 / 3.0;

}  // namespace

TEST_CASE("mujoco: the mapped contact holds the body and leaks (1 - d) c of the free acceleration",
          "[engines]") {
  // While it pushes, f'' = (1 - w) a0 - b_eff f' with w = d/(d + (1 - d)c): the viscous contact
  // holds dk-plane's point sinking at f' = -g (1 - d) c / b (b = beta N), where the realization's
  // sinks at -g/b. Sampled at t = 0.5, after the transient. A free body's translational
  // invweight0 is 1/m in every direction: c = 1.
  for (const auto& [joints, c] : {std::pair{"planar", kDiagonalRatio}, std::pair{"free", 1.0}}) {
    for (const double d : {0.9999, 0.99}) {
      INFO(joints << ", impedance " << d);
      std::vector<crbench::TrajectorySample> samples;
      const RunRecord r =
          run("dk-plane", "mujoco",
              {{"N", "1e4"}, {"h", "1e-5"}, {"impedance", std::to_string(d)}, {"joints", joints}},
              {}, 1.2, {0.5}, [&](const crbench::TrajectorySample& s) { samples.push_back(s); });
      REQUIRE(r.status == crbench::Status::ok);
      REQUIRE(samples.size() == 1u);
      const double predicted = -(1.0 - d) * c / 1e4;
      CHECK(samples[0].x.v(1) == Approx(predicted).epsilon(1e-6));
    }
  }
  // Hence no delay of the realization's size: it lifts off sqrt(2/N) = 1.4e-2 late, MuJoCo's
  // contact 1.3e-4 late at the default impedance.
  const RunRecord reference = realization("dk-plane", {{"N", "1e4"}});
  const RunRecord engine = run("dk-plane", "mujoco", {{"N", "1e4"}, {"h", "1e-5"}}, {}, 1.2);
  REQUIRE(reference.lift_off_time);
  REQUIRE(engine.lift_off_time);
  CHECK(*engine.lift_off_time - 1.0 < (*reference.lift_off_time - 1.0) / 50.0);
}

TEST_CASE("mujoco: a tendon's limit leaks (1 - d) of the free acceleration (c = 1)", "[engines]") {
  // A tendon limit's diagonal approximation is the tendon's invweight0, J M^-1 J^T at the
  // reference configuration; for a point of mass m on two slide joints and a tendon from a fixed
  // point that is 1/m in every direction, the exact J M^-1 J^T anywhere: c = 1. The point hangs
  // on pendulum-string's string (started at the bottom with a speed of 1e-6) and the viscous
  // limit lets it sink at r' = g (1 - d)/b, b = beta N.
  for (const double d : {0.99, 0.9}) {
    INFO("impedance " << d);
    std::vector<crbench::TrajectorySample> samples;
    const RunRecord r = run("pendulum-string", "mujoco",
                            {{"N", "1e3"}, {"h", "1e-5"}, {"impedance", crbench::format_number(d)}},
                            {{"v0", "1e-6"}}, 1.0, {0.5},
                            [&](const crbench::TrajectorySample& s) { samples.push_back(s); });
    REQUIRE(r.status == crbench::Status::ok);
    REQUIRE(samples.size() == 1u);
    // Measured: 1.0000000000769842e-05 at d = 0.99.
    CHECK(samples[0].x.v(0) == Approx((1.0 - d) / 1e3).epsilon(1e-6));
  }
}

TEST_CASE(
    "mujoco: a tendon's limit cancels the applied force but not the velocity-product term "
    "(the string stretches at r theta'^2 / b)",
    "[engines]") {
  // MuJoCo's constraint solver sets the limit's J q'' to its reference; the tendon's length has
  // r'' = J q'' + J' q', and J' q' = r theta'^2 on pendulum-string (the string from the pivot) is
  // left to act. With the viscous reference the string then stretches at r' = r theta'^2 / b, b =
  // beta N, where the realization's medium stretches at lambda / b = (r theta'^2 + g cos(theta))
  // / b. Measured at t = 0.3, N = 1e3: r' = 4.02391e-3 against r theta'^2 / b = 4.02148e-3 (the
  // rest is the leak (1 - d) of g cos(theta) and the lag of the sinking rate).
  std::vector<crbench::TrajectorySample> samples;
  const RunRecord r = run("pendulum-string", "mujoco", {{"N", "1e3"}, {"h", "1e-5"}}, {}, 0.6,
                          {0.3}, [&](const crbench::TrajectorySample& s) { samples.push_back(s); });
  REQUIRE(r.status == crbench::Status::ok);
  REQUIRE(samples.size() == 1u);
  const auto& x = samples[0].x;
  const double velocity_product = x.q(0) * x.v(1) * x.v(1) / 1e3;
  CHECK(x.v(0) == Approx(velocity_product).epsilon(2e-3));
  CHECK(x.v(0) < 0.9 * (velocity_product + std::cos(x.q(1)) / 1e3));
}

TEST_CASE("mujoco: Runge-Kutta 4 evaluates the case's force at each stage", "[engines]") {
  // oscillator-at-wall (c = 0, E = 1) leaves the wall on the free arc q'' = -k1 - k2 q, q(t) = -1
  // + cos t + sqrt(2) sin t, off the wall until t = 1.9: no contact, only the case's force, which
  // MuJoCo's Runge-Kutta step must see at its stages for its fourth order (held over the step,
  // as qfrc_applied, it would be first order, as semi-implicit Euler is).
  const double exact = -1.0 + std::cos(1.0) + std::sqrt(2.0) * std::sin(1.0);
  const auto error = [&](const char* integrator, const char* h) {
    const RunRecord r = run("oscillator-at-wall", "mujoco",
                            {{"preset", "penalty"}, {"integrator", integrator}, {"h", h}},
                            {{"c", "0"}, {"E", "1"}}, 1.0);
    REQUIRE(r.status == crbench::Status::ok);
    CHECK(r.rhs_evaluations == (std::string(integrator) == "rk4" ? 4 : 1) * r.steps);
    return std::abs(r.final_state.q(0) - exact);
  };
  // Measured: 5.2e-12, 3.7e-13 (rk4); 4.2e-3, 2.1e-3 (euler).
  const double coarse = error("rk4", "1e-2"), fine = error("rk4", "5e-3");
  CHECK(coarse < 1e-10);
  CHECK(coarse / fine > 12.0);
  const double euler_coarse = error("euler", "1e-2"), euler_fine = error("euler", "5e-3");
  CHECK(euler_coarse / euler_fine == Approx(2.0).epsilon(0.05));
  // The contact then as the mapped viscous one on dk-plane: the same lift-off as the
  // semi-implicit step's to O(h) (measured: 1.0011574 and 1.0011612 at h = 1e-5, d = 0.99).
  const RunRecord rk4 =
      run("dk-plane", "mujoco",
          {{"N", "1e4"}, {"h", "1e-5"}, {"impedance", "0.99"}, {"integrator", "rk4"}}, {}, 1.2);
  const RunRecord euler =
      run("dk-plane", "mujoco", {{"N", "1e4"}, {"h", "1e-5"}, {"impedance", "0.99"}}, {}, 1.2);
  REQUIRE(rk4.lift_off_time);
  REQUIRE(euler.lift_off_time);
  CHECK(std::abs(*rk4.lift_off_time - *euler.lift_off_time) < 1e-5);
  // Past its stability bound (h sqrt(k) = 1 at N = 1e8, h = 1e-4 is inside; b h = 1e4 is not).
  const RunRecord unstable =
      run("dk-plane", "mujoco", {{"N", "1e8"}, {"h", "1e-4"}, {"integrator", "rk4"}}, {}, 1.2);
  REQUIRE(unstable.warnings.size() == 1u);
  CHECK_THAT(unstable.warnings[0], Catch::Contains("Runge-Kutta step amplifies"));
}

TEST_CASE(
    "mujoco: the default contact rests at the depth its solref and solimp give, and lifts "
    "off the time to cross it late whatever h: 7.7e-3 planar, 9.4e-3 free",
    "[engines]") {
  // At rest a1 = 0: aref = g (1 - d) c / d with aref = -K d r, K = 1/(dmax^2 timeconst^2
  // dampratio^2) = 1/(0.95^2 0.02^2), d = d(r) by solimp (0.9, 0.95, 0.001, 0.5, 2). After the
  // switch the point flies from r at rest under +g: the exit after sqrt(2|r|/g). The depths,
  // 2.9679950633e-5 (two slides, c = 2/3) and 4.4460270950e-5 (a free joint, c = 1), are a direct
  // MuJoCo run's to 10 digits.
  struct Expected {
    const char* joints;
    double c, delay;
  };
  for (const Expected& e :
       {Expected{"planar", kDiagonalRatio, 7.7045e-3}, Expected{"free", 1.0, 9.4298e-3}}) {
    INFO(e.joints);
    const double K = 1.0 / (0.95 * 0.95 * 0.02 * 0.02);
    double d = 0.9, r = 0.0;
    for (int i = 0; i < 50; ++i) {
      r = -(1.0 - d) * e.c / (K * d * d);
      const double x = std::abs(r) / 0.001;
      d = 0.9 + 0.05 * (x <= 0.5 ? 2.0 * x * x : 1.0 - 2.0 * (1.0 - x) * (1.0 - x));
    }
    const double delay = std::sqrt(2.0 * std::abs(r));
    CHECK(delay == Approx(e.delay).margin(1e-7));
    for (const double h : {1e-3, 1e-4}) {
      INFO("h = " << h);
      const RunRecord run_default = run(
          "dk-plane", "mujoco",
          {{"preset", "engine-default"}, {"h", crbench::format_number(h)}, {"joints", e.joints}},
          {}, 1.2);
      REQUIRE(run_default.status == crbench::Status::ok);
      REQUIRE(run_default.lift_off_time);
      CHECK(run_default.min_constraint[0] == Approx(r).epsilon(1e-10));
      // Measured (planar, free): 7.21e-3 and 8.94e-3 at h = 1e-3 (the explicit step's crossing,
      // n steps with g h^2 n (n + 1)/2 = |r|), 7.75e-3 and 9.48e-3 at 1e-4.
      CHECK(std::abs(*run_default.lift_off_time - 1.0 - delay) <= h);
    }
  }
}

TEST_CASE("mujoco: the mapped stiffness is mass-normalized (bouncing ball of mass 2)",
          "[engines]") {
  // gamma N = 1e6 on m = 2: k_eff = gamma N / m / (d + (1 - d) c), a contact of half a period
  // pi / sqrt(k_eff) (MuJoCo's contact cancels all but (1 - w) of gravity while it pushes).
  const double d = 0.9999, N = 1e6, m = 2.0, h = 1e-5;
  const RunRecord r = run("bouncing-ball-siconos", "mujoco",
                          {{"preset", "penalty"}, {"N", "1e6"}, {"h", "1e-5"}}, {{"m", "2"}}, 0.5);
  REQUIRE(r.status == crbench::Status::ok);
  REQUIRE(!r.contact_episodes.empty());
  const auto& first = r.contact_episodes.front();
  REQUIRE(first.end);
  const double k_eff = N / m / (d + (1.0 - d) * kDiagonalRatio);
  CHECK(std::abs(*first.end - first.start - std::numbers::pi / std::sqrt(k_eff)) <= 3.0 * h);
}

TEST_CASE("mujoco: ball-chain's sphere-sphere pairs pass the velocity on and report impulses",
          "[engines]") {
  const RunRecord r =
      run("ball-chain", "mujoco", {{"preset", "penalty"}, {"N", "1e4"}, {"h", "1e-5"}},
          {{"n", "3"}, {"gap", "0.1"}});
  REQUIRE(r.status == crbench::Status::ok);
  CHECK(r.final_state.v(2) == Approx(1.0).margin(1e-6));
  CHECK(std::abs(r.final_state.v(0)) <= 1e-6);
  for (const double impulse : r.constraint_impulse) CHECK(impulse == Approx(1.0).margin(1e-6));
}

TEST_CASE(
    "mujoco: pendulum-string's string as a limited spatial tendon goes slack near the "
    "classical angle, closer as N grows",
    "[engines]") {
  // The viscous obstacle on a string: the stretch O(1/N) gathered while the string pulls is
  // recovered after the tension vanishes in a time of order its cube root (the realization's
  // obstacle: 0.118 late at N = 1e4, 0.025 at 1e6). The tendon's impulse is the string's,
  // ∫T dt = 4.29 up to t = 1.8 at the defaults.
  const auto model = crbench::make_model("pendulum-string", {});
  const double slack = *model->facts().lift_off_time("classical");
  std::vector<double> errors;
  for (const char* N : {"1e4", "1e5"}) {
    const RunRecord r = run("pendulum-string", "mujoco", {{"N", N}, {"h", "1e-5"}}, {}, 1.8);
    REQUIRE(r.status == crbench::Status::ok);
    REQUIRE(r.lift_off_time);
    REQUIRE(r.contact_episodes.size() == 1u);
    CHECK(r.constraint_impulse[0] == Approx(4.285).margin(0.01));
    errors.push_back(*r.lift_off_time - slack);
    // Measured: 0.116 at N = 1e4, 0.043 at 1e5.
    CHECK(errors.back() > 0.0);
    CHECK(errors.back() <= 3.0 * std::cbrt(1.0 / std::stod(N)));
  }
  CHECK(errors[1] < errors[0] / 2.0);
}

TEST_CASE("mujoco: an explicit contact step past its stability bound is warned of", "[engines]") {
  const RunRecord r = run("dk-plane", "mujoco", {{"N", "1e12"}, {"h", "1e-4"}}, {}, 1.2);
  REQUIRE(r.status == crbench::Status::ok);
  REQUIRE(r.warnings.size() == 1u);
  CHECK(r.warnings[0].find("stability bound") != std::string::npos);
  const RunRecord stable = run("dk-plane", "mujoco", {{"N", "1e4"}, {"h", "1e-4"}}, {}, 1.2);
  CHECK(stable.warnings.empty());
}
#endif

#ifdef CRBENCH_HAVE_ODE
TEST_CASE("an engine's N ladder in a study is checked against the same point at h/2", "[engines]") {
  // A fixed-step solver takes no tolerances: its rows' discretization estimate is the same point
  // at half the step (bench/converge.cpp), not a copy of the row at tighter tolerances it ignores.
  const auto study = crbench::parse_study(nlohmann::json::parse(R"({
    "name": "engine-twin", "case": "dk-plane",
    "N": {"from": 100, "to": 1e4, "per_decade": 1},
    "observables": ["lift_off_time"], "digits": 2,
    "models": [{"label": "ode", "solver": "ode", "set": {"h": 1e-4}, "reference": "closed-form",
                "expected_order": {"lift_off_time": 0.5}}]
  })"));
  const auto dir = std::filesystem::temp_directory_path() / "crbench_engine_twin";
  std::filesystem::remove_all(dir);
  crbench::ConvergeOptions options;
  options.out_dir = dir.string();
  options.figures = false;
  const auto result = crbench::run_study(study, options);
  std::ifstream points(dir / "points.jsonl");
  int rows = 0;
  for (std::string line; std::getline(points, line);) {
    const auto point = nlohmann::json::parse(line);
    if (point["kind"] != "ladder") continue;
    ++rows;
    CHECK(point["tolerances"]["h"].get<double>() == 1e-4);
    CHECK(point["tight_tolerances"]["h"].get<double>() == 5e-5);
    // The two steps' lift-offs differ by O(h): an estimate, not 0.
    const double value = point["values"]["lift_off_time"].get<double>();
    const double tight = point["tight_values"]["lift_off_time"].get<double>();
    CHECK(std::abs(value - tight) > 0.0);
    CHECK(std::abs(value - tight) < 1e-4);
  }
  CHECK(rows == 3);
  const auto& model = result.summary["models"][0];
  INFO(model.dump(1));
  CHECK(model["observables"]["lift_off_time"]["fit"]["fitted_order"].get<double>() ==
        Approx(0.5).margin(0.05));
  std::filesystem::remove_all(dir);
}

TEST_CASE("an engine's h ladder at a fixed N is no rate in h against the classical lift-off",
          "[engines]") {
  // The mapped contact at N = 1e3 tends as h -> 0 to its own lift-off at that N; the engine's
  // default contact has no N, and neither has a ladder against a solver run at the same N.
  const auto study = crbench::parse_study(nlohmann::json::parse(R"({
    "name": "engine-h", "case": "dk-plane", "observables": ["lift_off_time"],
    "models": [
      {"label": "mapped", "solver": "ode", "set": {"N": 1000}, "reference": "closed-form",
       "ladder": {"axis": "h", "from": 1e-3, "to": 1e-5, "per_decade": 1}},
      {"label": "default", "solver": "ode", "set": {"preset": "engine-default"},
       "reference": "closed-form", "ladder": {"axis": "h", "from": 1e-3, "to": 1e-5,
       "per_decade": 1}}]
  })"));
  REQUIRE(study.models.size() == 2u);
  CHECK(study.models[0].fixed_N == 1e3);
  CHECK_FALSE(study.models[1].fixed_N);
}
#endif

TEST_CASE("engines refuse what they cannot express, naming it", "[engines]") {
  const auto dk_plane = crbench::make_model("dk-plane", {});
  const auto pendulum = crbench::make_model("pendulum-string", {});
  const auto table = crbench::make_model("vibrating-table", {});
  for (const char* solver : {"mujoco", "ode", "bullet"}) {
#ifndef CRBENCH_HAVE_MUJOCO
    if (std::string(solver) == "mujoco") continue;
#endif
#ifndef CRBENCH_HAVE_ODE
    if (std::string(solver) == "ode") continue;
#endif
#ifndef CRBENCH_HAVE_BULLET
    if (std::string(solver) == "bullet") continue;
#endif
    INFO(solver);
    const auto refused = [&](const crbench::Model& model, std::vector<Assignment> params,
                             const char* fragment) {
      crbench::testing::SolveOptions o;
      o.solver = solver;
      o.solver_params = std::move(params);
      try {
        crbench::testing::solve(model, o);
        FAIL("accepted");
      } catch (const crbench::InputError& e) {
        CHECK_THAT(e.what(), Catch::Contains(fragment));
      }
    };
    refused(*dk_plane, {{"interaction", "medium"}}, "interaction medium");
    refused(*table, {}, "no engine scene");
    if (std::string(solver) == "mujoco") {
      CHECK_FALSE(crbench::find_solver(solver).refusal(*pendulum, {}).has_value());
    } else {
      refused(*pendulum, {}, "(a tendon)");
    }
    refused(*dk_plane, {{"preset", "engine-default"}, {"N", "10"}}, "--N does not apply");
    refused(*dk_plane, {{"beta", "0"}, {"gamma", "0"}}, "beta and gamma are both 0");
    // The same run twice, and four times at once in four threads (a study's --jobs): the same
    // record, to the byte. (ODE's worlds once shared one job list and crashed stepped at once.)
    const auto chain = [&] { return run("ball-chain", solver, {{"h", "1e-3"}}, {{"gap", "0.1"}}); };
    const RunRecord a = chain();
    CHECK(a.status == crbench::Status::ok);
    const std::string expected = crbench::to_json(a, false).dump();
    CHECK(crbench::to_json(chain(), false).dump() == expected);
    std::vector<std::string> concurrent(4);
    std::vector<std::thread> threads;
    for (auto& text : concurrent) {
      threads.emplace_back([&text, &chain] { text = crbench::to_json(chain(), false).dump(); });
    }
    for (auto& t : threads) t.join();
    for (const auto& text : concurrent) CHECK(text == expected);
  }
}
#endif

TEST_CASE("engines: a case's own contact laws are refused, its default ones run", "[engines]") {
  for (const char* solver : {
#ifdef CRBENCH_HAVE_MUJOCO
           "mujoco",
#endif
#ifdef CRBENCH_HAVE_ODE
           "ode",
#endif
#ifdef CRBENCH_HAVE_BULLET
           "bullet",
#endif
       }) {
    INFO(solver);
    const auto model = crbench::make_model("ball-chain", {{"n", "3"}, {"stiffness_ratio", "10"}});
    const crbench::Solver& engine = crbench::find_solver(solver);
    crbench::RunSettings settings;
    const auto why = engine.refusal(*model, settings);
    REQUIRE(why);
    CHECK_THAT(*why, Catch::Contains("constraint contact1 has its own stiffness scale"));
    const auto plain = crbench::make_model("ball-chain", {{"n", "3"}});
    CHECK_FALSE(engine.refusal(*plain, settings));
  }
}

}  // namespace engines_tests
