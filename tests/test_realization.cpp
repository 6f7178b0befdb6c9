// The (α,β,γ)N realization against the closed form (6.5) of Deryabin & Kozlov 1995 and the known
// limits: viscous lift-off 2 + O(1/N), obstacle lift-off 1 + √(2/N), Kozlov's restitution e =
// exp(−πk/ω) (Kozlov 1992 §5).
#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>

#include "crbench/solvers/realization_dynamics.hpp"
#include "support.hpp"
#include "test_cases.hpp"

namespace realization_tests {

using namespace crbench;

namespace {

RunRecord realize(const Model& model, std::vector<Assignment> params,
                  const std::function<void(const TrajectorySample&)>& on_sample = {},
                  std::vector<double> grid = {}) {
  testing::SolveOptions o;
  o.solver = "realization";
  o.solver_params = std::move(params);
  o.on_sample = on_sample;
  o.output_times = std::move(grid);
  return testing::solve(model, o);
}

}  // namespace

TEST_CASE("realization viscous: dk-plane trajectory matches (6.5) to 1e-9 for N = 1e2 ... 1e6",
          "[realization]") {
  const auto model = make_model("dk-plane", {});
  const Facts facts = model->facts();
  const ClosedFormTrajectory* exact = facts.trajectory("viscous");
  REQUIRE(exact != nullptr);
  for (const double N : {1e2, 1e3, 1e4, 1e5, 1e6}) {
    double worst = 0.0;
    int compared = 0;
    const RunRecord r = realize(
        *model, {{"N", format_number(N)}},
        [&](const TrajectorySample& s) {
          if (const auto q = exact->q(s.x.t, N)) {
            worst = std::max(worst, (s.x.q - *q).lpNorm<Eigen::Infinity>());
            ++compared;
          }
        },
        testing::grid(0.0, 3.0, 601));
    INFO("N = " << N << ", max |q - q(6.5)| = " << worst << " over " << compared << " points");
    REQUIRE(r.status == Status::ok);
    CHECK(compared > 390);  // (6.5) holds until the exit, t ≈ 2
    CHECK(worst <= 1e-9);
  }
}

TEST_CASE("realization viscous: lift_off_time - 2 shrinks like 1/N (order 1 +- 0.05)",
          "[realization]") {
  const auto model = make_model("dk-plane", {});
  std::vector<double> Ns, delays;
  for (const double N : {1e3, 1e4, 1e5, 1e6, 1e7, 1e8}) {
    const RunRecord r = realize(*model, {{"N", format_number(N)}});
    REQUIRE(r.status == Status::ok);
    REQUIRE(r.lift_off_time);
    Ns.push_back(N);
    delays.push_back(*r.lift_off_time - 2.0);
    // (6.5) for t ≥ 1 vanishes at 2 + 1/N up to e^{-N} terms: the constant is 1 as well.
    CHECK(N * (*r.lift_off_time - 2.0) == Approx(1.0).epsilon(1e-5));
  }
  const double order = -testing::fitted_slope(Ns, delays);
  INFO("delays " << Catch::Detail::stringify(delays) << ", order " << order);
  CHECK(order == Approx(1.0).margin(0.05));
}

TEST_CASE("realization viscous obstacle: lift-off -> 1 as 1 + sqrt(2/N) (order 1/2)",
          "[realization]") {
  // The obstacle stops pushing at 1 + O(1/N) (Deryabin & Kozlov 1995, end of §6), at depth y ≈ −g/N
  // with ẏ = 0; free flight y'' = g then leaves y < 0 after √(2/N).
  const auto model = make_model("dk-plane", {});
  std::vector<double> Ns, delays;
  for (const double N : {1e4, 1e6, 1e8, 1e10, 1e12}) {
    const RunRecord r = realize(*model, {{"N", format_number(N)}, {"interaction", "obstacle"}});
    REQUIRE(r.status == Status::ok);
    REQUIRE(r.lift_off_time);
    Ns.push_back(N);
    delays.push_back(*r.lift_off_time - 1.0);
    // Exactly: the pushing ends where ẏ = 0, at 1 + ln2/N by (6.5), at depth (g/N)(1 − ln2/N);
    // free flight from rest then takes √(2/N)·√(1 − ln2/N).
    const double exact =
        1.0 + std::log(2.0) / N + std::sqrt(2.0 / N) * std::sqrt(1.0 - std::log(2.0) / N);
    CHECK(std::abs(*r.lift_off_time - exact) <= 1e-10);
    bool released = false;
    for (const auto& e : r.events) released = released || e.kind == EventKind::release;
    CHECK(released);
  }
  const double order = -testing::fitted_slope(Ns, delays);
  INFO("delays " << Catch::Detail::stringify(delays) << ", order " << order);
  CHECK(order == Approx(0.5).margin(0.01));
}

TEST_CASE("realization penalty: exact oscillation phase at N = 1e2 ... 1e10", "[realization]") {
  // y'' = −Ny ∓ g in y < 0 from rest: y(1) = −(g/N)(1 − cos √N), ẏ(1) = −(g/√N) sin √N, then
  // y = g/N + a cos(√N s) + b sin(√N s) with s = t − 1 until y = 0. At N = 1e10 that is 16 000
  // periods of the normal oscillation followed before the switch.
  const auto model = make_model("dk-plane", {});
  for (const double N : {1e2, 1e4, 1e6, 1e8, 1e10}) {
    const double w = std::sqrt(N);
    const double a = -(1.0 - std::cos(w)) / N - 1.0 / N, b = -std::sin(w) / w / w;
    const double R = std::hypot(a, b), phase = std::atan2(-b, -a);
    // g/N + a cos θ + b sin θ = 0 ⇔ R cos(θ − phase) = g/N, first root θ > 0.
    const double theta = phase + std::acos((1.0 / N) / R);
    const RunRecord r = realize(*model, {{"N", format_number(N)}, {"preset", "penalty"}});
    INFO("N = " << N);
    REQUIRE(r.status == Status::ok);
    REQUIRE(r.lift_off_time);
    CHECK(*r.lift_off_time == Approx(1.0 + theta / w).margin(1e-10));
    // The spring phases went to DOP853, at most 60 steps per period of √N (about 35).
    const double periods = w / (2.0 * std::numbers::pi);
    CHECK(r.diagnostics.at("oscillatory_steps").get<double>() >= 20.0 * periods);
    CHECK(r.diagnostics.at("oscillatory_steps").get<double>() <= 60.0 * periods);
  }
}

TEST_CASE("realization penalty obstacle: leaves at the medium's exit and flies as it does",
          "[realization]") {
  // The undamped spring pushes wherever f < 0 (λ = −Nγf > 0), so the obstacle is the medium here:
  // the same exit, then free flight upwards under +g. At the exit f = 0 and λ = 0 together; the
  // obstacle once read the second root as the start of a push and kept the spring on above the
  // plane (the point fell back and bounced until t = 2.95 at N = 1e4).
  const auto model = make_model("dk-plane", {});
  for (const double N : {1e2, 1e4, 1e6}) {
    INFO("N = " << N);
    const RunRecord medium = realize(*model, {{"N", format_number(N)}, {"preset", "penalty"}});
    const RunRecord obstacle = realize(
        *model, {{"N", format_number(N)}, {"preset", "penalty"}, {"interaction", "obstacle"}});
    REQUIRE(medium.status == Status::ok);
    REQUIRE(obstacle.status == Status::ok);
    REQUIRE(medium.lift_off_time);
    REQUIRE(obstacle.lift_off_time);
    CHECK(*obstacle.lift_off_time == Approx(*medium.lift_off_time).margin(1e-12));
    CHECK(obstacle.contact_episodes.size() == medium.contact_episodes.size());
    CHECK((obstacle.final_state.q - medium.final_state.q).lpNorm<Eigen::Infinity>() <= 1e-9);
    CHECK((obstacle.final_state.v - medium.final_state.v).lpNorm<Eigen::Infinity>() <= 1e-9);
  }
}

TEST_CASE("realization penalty: dop853 and rosenbrock4 give the same lift-off", "[realization]") {
  // The two integrators of the spring phases at the same tolerances (rtol 1e-12), medium and
  // obstacle, on a linear constraint (dk-plane) and a curved one (particle-on-circle). On the
  // circle the depth 1 − |q|² is of order 1/N but the error control sees coordinates of order 1:
  // rtol 1e-12 of |q| is 1e-8 of the depth at N = 1e4, and rosenbrock4's own lift-off moves by
  // 4e-9 between rtol 1e-12 and 1e-13 (dop853's by 2e-10), hence 5e-9 there.
  for (const auto& [name, tolerance] : std::vector<std::pair<std::string, double>>{
           {"dk-plane", 1e-9}, {"particle-on-circle", 5e-9}}) {
    const double N = 1e4;
    const auto model = make_model(name, {});
    for (const char* interaction : {"medium", "obstacle"}) {
      const auto run = [&](const char* integrator) {
        return realize(*model, {{"N", format_number(N)},
                                {"preset", "penalty"},
                                {"interaction", interaction},
                                {"oscillation", integrator}});
      };
      const RunRecord fast = run("dop853");
      const RunRecord reference = run("rosenbrock4");
      INFO(name << ", " << interaction << ": " << fast.steps << " steps against "
                << reference.steps);
      REQUIRE(fast.status == Status::ok);
      REQUIRE(reference.status == Status::ok);
      REQUIRE(fast.lift_off_time);
      REQUIRE(reference.lift_off_time);
      CHECK(std::abs(*fast.lift_off_time - *reference.lift_off_time) <= tolerance);
      CHECK((fast.final_state.q - reference.final_state.q).lpNorm<Eigen::Infinity>() <=
            10.0 * tolerance);
      CHECK(fast.diagnostics.at("oscillatory_steps").get<double>() > 0.0);
      CHECK(reference.diagnostics.at("oscillatory_steps").get<double>() == 0.0);
      CHECK(10 * fast.steps < reference.steps);
    }
  }
}

TEST_CASE("kozlov-impact: normal velocity ratio -> exp(-pi k / omega), and 0 when k^2 > kappa",
          "[realization]") {
  // A unit point arriving at f = y ≥ 0 with ẏ = −1 and no force: in the medium
  // y'' = −κN y − 2k√N y', a damped oscillator whose exit/entry velocity ratio is
  // e = exp(−πk/ω), ω = √(κ − k²), for every N (Kozlov 1992 (12)); after the exit ẏ stays constant.
  const auto model = testing::model_of<test_cases::UniformApproach>();
  for (const auto& [kappa, k] : std::vector<std::pair<double, double>>{{1.0, 0.1}, {2.0, 0.5}}) {
    const double e = std::exp(-std::numbers::pi * k / std::sqrt(kappa - k * k));
    for (const double N : {1e4, 1e10}) {
      const RunRecord r = realize(*model, {{"N", format_number(N)},
                                           {"preset", "kozlov-impact"},
                                           {"kappa", format_number(kappa)},
                                           {"k", format_number(k)}});
      INFO("kappa " << kappa << ", k " << k << ", N " << N);
      REQUIRE(r.status == Status::ok);
      REQUIRE(r.lift_off_time);
      CHECK(std::abs(r.final_state.v(1) - e) <= 1e-6);
      CHECK(r.final_state.v(0) == Approx(0.3).epsilon(1e-14));  // tangential velocity kept
    }
  }
  // Overdamped (k² > κ): y creeps back towards 0 from below without crossing it; once |y| is at
  // the level of round-off the run may record an exit, with the velocity of that moment. Either
  // way the normal velocity after the contact tends to 0.
  for (const double N : {1e4, 1e10}) {
    const RunRecord r = realize(
        *model, {{"N", format_number(N)}, {"preset", "kozlov-impact"}, {"kappa", "1"}, {"k", "2"}});
    INFO("overdamped, N " << N);
    REQUIRE(r.status == Status::ok);
    CHECK(std::abs(r.final_state.v(1)) <= 1e-9);
  }
}

TEST_CASE("kozlov-impact resting on dk-plane: DOP853 hands a decayed oscillation to rosenbrock4",
          "[realization]") {
  // On dk-plane the point rests in the damped spring (kappa 1, k 0.1: zeta = 0.1) until the force
  // turns at t = 1. The contact starts with DOP853; once the oscillation has died out the step is
  // set by stability and the Rosenbrock method goes on, so the cost stays flat in N (DOP853
  // alone took 1.9e5 steps at N = 1e12, rosenbrock4 alone 19 680 at N = 1e6 for the same lift-off;
  // with Hairer's stiffness test alone as the sign of the decay, 3 965 steps at N = 1e12 against
  // 478 at 1e4). Counts are deterministic: steps and right-hand sides at N = 1e6 … 1e12 stay
  // within 3 times those at N = 1e4 (714 against 478 steps when written).
  const auto model = make_model("dk-plane", {});
  const auto run = [&](double N, const char* integrator) {
    return realize(
        *model,
        {{"N", format_number(N)}, {"preset", "kozlov-impact"}, {"oscillation", integrator}});
  };
  const RunRecord base = run(1e4, "dop853");
  REQUIRE(base.status == Status::ok);
  std::optional<double> scaled_delay;
  for (const double N : {1e6, 1e8, 1e10, 1e12}) {
    const RunRecord r = run(N, "dop853");
    INFO("N " << N << ": " << r.steps << " steps, " << r.rhs_evaluations
              << " right-hand sides (N = 1e4: " << base.steps << ", " << base.rhs_evaluations
              << ")");
    REQUIRE(r.status == Status::ok);
    REQUIRE(r.lift_off_time);
    CHECK(r.diagnostics.at("oscillatory_steps").get<double>() > 0.0);
    CHECK(r.diagnostics.at("oscillation_decayed").get<double>() >= 1.0);
    CHECK(r.steps <= 3 * base.steps);
    CHECK(r.rhs_evaluations <= 3 * base.rhs_evaluations);
    // The delay past the classical lift-off shrinks like 1/sqrt(N), with the same coefficient at
    // every N: the hand-over does not cost accuracy.
    const double scaled = (*r.lift_off_time - 1.0) * std::sqrt(N);
    if (scaled_delay) CHECK(std::abs(scaled - *scaled_delay) <= 1e-8 * *scaled_delay);
    scaled_delay = scaled;
    if (N == 1e6) {
      const RunRecord reference = run(N, "rosenbrock4");
      REQUIRE(reference.lift_off_time);
      CHECK(std::abs(*r.lift_off_time - *reference.lift_off_time) <= 1e-9);
    }
  }
}

TEST_CASE("realization rejects inadmissible settings by name", "[realization]") {
  const auto model = make_model("dk-plane", {});
  const auto bad = [&](std::vector<Assignment> params) {
    RunSettings s;
    configure_solver(find_solver("realization"), params, s);
  };
  CHECK_THROWS_WITH(bad({{"alpha", "0"}, {"beta", "0"}}),
                    Catch::Contains("alpha, beta, gamma are all 0"));
  CHECK_THROWS_WITH(bad({{"N", "0"}}), Catch::Contains("'N' = 0 is outside its range (0, 1e+15]"));
  CHECK_THROWS_WITH(bad({{"beta", "-1"}}), Catch::Contains("'beta' = -1 is outside"));
  CHECK_THROWS_WITH(
      bad({{"preset", "spring"}}),
      Catch::Contains("preset 'spring' is not one of: viscous, penalty, kozlov-impact"));
  CHECK_THROWS_WITH(bad({{"interaction", "glue"}}),
                    Catch::Contains("is not one of: medium, obstacle"));
  CHECK_THROWS_WITH(bad({{"kappa", "2"}}),
                    Catch::Contains("applies to --preset kozlov-impact only"));
  CHECK_THROWS_WITH(bad({{"N", "nan"}}), Catch::Contains("not finite"));
}

TEST_CASE("realization Jacobian by AD matches finite differences of the right-hand side",
          "[realization][ad]") {
  // Two time-dependent constraints under a configuration-dependent metric, both in the medium.
  const auto model = testing::model_of<test_cases::CurvedTimeDependent>();
  State x = model->initial_state();
  x.t = 0.3;
  const std::vector<int> modes{1};
  const std::vector<char> all{1, 1};
  const Medium medium{.mass = 0.0, .damping = 30.0, .stiffness = 500.0, .obstacle = false};
  testing::check_realization_jacobian(*model, x, modes, all, all, medium);
  RealizationJacobianWork work;
  Eigen::MatrixXd jac;
  Eigen::VectorXd dfdt;
  CHECK_THROWS_AS(
      realization_jacobian(*model, VelocityChart::identity(model->dof()), x.t,
                           Eigen::VectorXd(Eigen::VectorXd::Zero(2 * model->dof())), modes, all,
                           all, {.mass = 1.0, .damping = 0.0, .stiffness = 1.0, .obstacle = false},
                           work, jac, dfdt),
      std::logic_error);
}

TEST_CASE(
    "Penetration depth of the linear media in closed form: viscous O(1/N), Kozlov wall "
    "O(N^-0.5)",
    "[realization][observables]") {
  // bouncing-ball-penalty: a unit point (Lambda = |grad f|^2 / m = 1) falls from h0 = 1 under
  // g = 1 onto f = y >= 0 and enters the medium at y' = -v, v = sqrt(2 g h0), at t1 = sqrt(2 h0/g).
  // Inside, the medium is linear in (f, f'):
  //  viscous (0,1,0): f'' = -g - N f'. f' stays negative (terminal -g/N), so the deepest point is
  //    at the horizon T: f = -(g/c) s + (-v + g/c)(1 - e^(-c s))/c, c = N, s = T - t1;
  //  kozlov-impact: f'' = -g - kappa N f - 2 k sqrt(N) f'. With K = kappa N, sigma = k sqrt(N),
  //    w = sqrt(K - sigma^2): f = -g/K + e^(-sigma s)(A cos ws + B sin ws), A = g/K,
  //    B = (sigma A - v)/w; the first stay is the deepest, its minimum where
  //    f' = e^(-sigma s)(-v cos ws - (sigma B + w A) sin ws) = 0.
  const auto model = make_model("bouncing-ball-penalty", {});
  const double g = 1.0, h0 = 1.0, v = std::sqrt(2.0 * g * h0), t1 = std::sqrt(2.0 * h0 / g);
  const double T = model->horizon();
  const auto depth_of = [&](const std::string& preset, double N) {
    const RunRecord r = realize(*model, {{"preset", preset}, {"N", format_number(N)}});
    REQUIRE(r.status == Status::ok);
    return -r.min_constraint.at(0);
  };
  const double kappa = 1.0, k = 0.1;  // the preset's defaults
  std::vector<double> viscous, wall;
  for (const double N : {1e4, 1e6}) {
    const double c = N, s = T - t1;
    const double exact_viscous = (g / c) * s - (-v + g / c) * (1.0 - std::exp(-c * s)) / c;
    const double measured_viscous = depth_of("viscous", N);
    INFO("N = " << N);
    CHECK(measured_viscous == Approx(exact_viscous).epsilon(1e-9));
    viscous.push_back(measured_viscous);

    const double K = kappa * N, sigma = k * std::sqrt(N), w = std::sqrt(K - sigma * sigma);
    const double A = g / K, B = (sigma * A - v) / w;
    const double s_min = (std::atan2(-v, sigma * B + w * A) + std::numbers::pi) / w;
    const double exact_wall =
        g / K - std::exp(-sigma * s_min) * (A * std::cos(w * s_min) + B * std::sin(w * s_min));
    const double measured_wall = depth_of("kozlov-impact", N);
    CHECK(measured_wall == Approx(exact_wall).epsilon(1e-9));
    wall.push_back(measured_wall);
  }
  // The orders between N = 1e4 and 1e6: 1 and 1/2.
  CHECK(std::log10(viscous[0] / viscous[1]) / 2.0 == Approx(1.0).margin(1e-3));
  CHECK(std::log10(wall[0] / wall[1]) / 2.0 == Approx(0.5).margin(5e-3));
}

}  // namespace realization_tests
