// Case library: every registered case runs with every solver and every realization setting; each
// case's facts are checked against the solvers; verify confirms the viscous predictions.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numbers>
#include <sstream>

#include "crbench/bench/cli.hpp"
#include "crbench/cases/analysis.hpp"
#include "crbench/cases/bouncing_ball_penalty.hpp"
#include "crbench/cases/particle_on_circle.hpp"
#include "support.hpp"

namespace cases_library_tests {

using namespace crbench;

namespace {

RunRecord run(const std::string& case_name, const std::string& solver,
              std::vector<Assignment> params = {}, std::vector<Assignment> set = {}) {
  const auto model = make_model(case_name, set);
  testing::SolveOptions o;
  o.solver = solver;
  o.solver_params = std::move(params);
  return testing::solve(*model, o);
}

// Runs `crbench verify ... --json --digits D` and checks that it confirms the prediction: the
// prediction lies within the extrapolation's error bar, and the bar supports D digits.
void check_confirmed(const std::vector<std::string>& args, double digits) {
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  const int status = crbench::run_cli(static_cast<int>(argv.size()), argv.data(), out, err);
  const auto j = nlohmann::json::parse(out.str());
  INFO(j["verdict"]);
  CHECK(status == 0);
  CHECK(j["digits_supported"].get<double>() >= digits);
  const double bar = j["extrapolation"]["uncertainty"].get<double>();
  CHECK(std::abs(j["extrapolation"]["tau_inf"].get<double>() -
                 j["prediction"]["lift_off_time"].get<double>()) <= bar);
}

}  // namespace

TEST_CASE("Every case runs with every solver, every preset and both interactions", "[cases]") {
  for (const auto& entry : case_registry()) {
    const std::string c = entry.info.name;
    if (entry.info.kinematic > 0) {
      // Kinematic constraints: the ideal motion (event-driven, moreau-jean), the viscous
      // realization and its limit; the stiffness of the penalty preset has no meaning.
      // With unilateral constraints beside them (skate-wall, rough-disk) there is no limit
      // model, and γ is the unilateral medium's.
      INFO(c);
      CHECK(run(c, "event-driven").status == Status::ok);
      if (!entry.info.coulomb_rows.empty()) {
        // Coulomb friction: event-driven (tests/test_block_on_incline.cpp), moreau-jean
        // (tests/test_moreau_jean_friction.cpp) and the realization with every preset and both
        // interactions (tests/test_coulomb_realization.cpp); the limit refuses it.
        CHECK(run(c, "moreau-jean").status == Status::ok);
        CHECK_THROWS_AS(run(c, "limit"), InputError);
        for (const char* preset : {"viscous", "penalty", "kozlov-impact"}) {
          for (const char* interaction : {"medium", "obstacle"}) {
            INFO(c << " / realization " << preset << " " << interaction);
            CHECK(run(c, "realization",
                      {{"N", "1e4"}, {"preset", preset}, {"interaction", interaction}})
                      .status == Status::ok);
          }
        }
        CHECK_THROWS_AS(run(c, "realization", {{"alpha", "1"}}), InputError);
        continue;
      }
      CHECK(run(c, "moreau-jean").status == Status::ok);
      const auto model = make_model(c, {});
      RunSettings defaults;
      configure_solver(find_solver("realization"), {}, defaults, &model->info());
      if (const auto why = find_solver("realization").refusal(*model, defaults)) {
        // Several conditional rows (rocking-block; tests/test_rocking_block.cpp).
        CHECK_THROWS_AS(run(c, "realization", {{"N", "1e3"}}), InputError);
        continue;
      }
      CHECK(run(c, "realization", {{"N", "1e3"}}).status == Status::ok);
      if (entry.info.constraints == 0) {
        CHECK(run(c, "limit").status == Status::ok);
        CHECK_THROWS_AS(run(c, "realization", {{"preset", "penalty"}}), InputError);
      } else {
        CHECK_THROWS_AS(run(c, "limit"), InputError);
        CHECK(run(c, "realization", {{"N", "1e3"}, {"preset", "kozlov-impact"}}).status ==
              Status::ok);
        CHECK_THROWS_AS(run(c, "realization", {{"alpha", "1"}}), InputError);
      }
      continue;
    }
    if (entry.info.bilateral > 0) {
      // Bilateral constraints: the case's data violate Kozlov 1992 (10), which the ideal model
      // refuses; moreau-jean does not compute them; the obstacle has no meaning for them.
      CHECK_THROWS_AS(run(c, "event-driven"), InputError);
      CHECK_THROWS_AS(run(c, "moreau-jean"), InputError);
      for (const char* preset : {"viscous", "penalty", "kozlov-impact"}) {
        INFO(c << " / " << preset);
        CHECK(run(c, "limit", {{"preset", preset}}).status == Status::ok);
        CHECK(run(c, "realization", {{"N", "1e3"}, {"preset", preset}}).status == Status::ok);
        CHECK_THROWS_AS(run(c, "realization", {{"preset", preset}, {"interaction", "obstacle"}}),
                        InputError);
      }
      continue;
    }
    for (const char* solver : {"event-driven", "moreau-jean", "limit"}) {
      INFO(c << " / " << solver);
      CHECK(run(c, solver).status == Status::ok);
    }
    for (const char* preset : {"viscous", "penalty", "kozlov-impact"}) {
      for (const char* interaction : {"medium", "obstacle"}) {
        INFO(c << " / realization " << preset << " " << interaction);
        // N = 1e4 keeps the undamped penalty oscillation affordable in a unit test.
        CHECK(
            run(c, "realization", {{"N", "1e4"}, {"preset", preset}, {"interaction", interaction}})
                .status == Status::ok);
      }
    }
  }
}

TEST_CASE("particle-on-circle: classical lift-off where cos(theta) = (2 + v0^2/(gR))/3",
          "[cases]") {
  for (const auto& set :
       std::vector<std::vector<Assignment>>{{}, {{"R", "2"}, {"g", "9.81"}, {"v0", "1.5"}}}) {
    const auto model = make_model("particle-on-circle", set);
    const Facts facts = model->facts();
    const RunRecord r = testing::solve(*model);
    REQUIRE(r.status == Status::ok);
    REQUIRE(r.lift_off_time);
    CHECK(std::abs(*r.lift_off_time - *facts.lift_off_time("classical")) <= 1e-10);
    // The angle at lift-off (the state is on the circle there).
    const ParamValues& p = model->params();
    const double expected =
        std::acos((2.0 + p.at("v0") * p.at("v0") / (p.at("g") * p.at("R"))) / 3.0);
    CHECK(*facts.value("classical lift-off angle") == Approx(expected).epsilon(1e-14));
    const RunRecord limit = run("particle-on-circle", "limit", {}, set);
    REQUIRE(limit.lift_off_time);
    CHECK(std::abs(*limit.lift_off_time - *facts.lift_off_time("viscous")) <= 1e-10);
  }
}

TEST_CASE("particle-on-circle: the lift-off facts hold for a start that creeps off the top",
          "[cases]") {
  // With v0 -> 0 the time along the circle, the integral of R/sqrt(v0^2 + 4gR sin^2(s/2)),
  // has a peak of width v0/sqrt(gR) at s = 0 that quadrature missed (53.2 for v0 = 5e-10, where
  // the particle leaves at 21.95). Independent values (scipy): for v0 = 5e-10 the classical
  // lift-off at cos(theta) = 2/3 is (2/v0) F(theta/2 | -4/v0^2) = 21.95136960676389
  // (ellipkinc, and quad split at 1e-6); the viscous limit for v0 = 5e-4, integrating
  // theta'' = sin(theta) with the integral of lambda (solve_ivp, rtol 1e-12), leaves at
  // 10.7612826, theta = 4.9748 (past the bottom).
  const auto facts_at = [](const std::string& v0) {
    return make_model("particle-on-circle", {{"v0", v0}})->facts();
  };
  CHECK(std::abs(*facts_at("5e-10").lift_off_time("classical") - 21.95136960676389) < 1e-11);
  CHECK(std::abs(*facts_at("5e-4").lift_off_time("viscous") - 10.7612826) < 1e-6);
  // The default still agrees with the quadrature the closed form replaced.
  CHECK(std::abs(*facts_at("0.5").lift_off_time("viscous") - 1.8656381221866347) < 1e-12);
}

TEST_CASE("particle-on-circle: the impulse's bounded integral in closed form", "[cases]") {
  // I(theta), the integral of sin^2(s/2)/sqrt(v0^2 + 4gR sin^2(s/2)) over [0, theta], against
  // independent values: adaptive quadrature of the integrand in 50-digit arithmetic (Boost's
  // 61-point Gauss-Kronrod at tolerance 1e-40, cpp_bin_float_50), for v0 = 5e-10 on either side
  // of theta = 2 pi, where the integrand has a corner of width v0/sqrt(gR) and double-precision
  // quadrature was off by 3e-13. In the limit v0 -> 0 it is the integral of |sin(s/2)|/2: 2 at
  // 2 pi.
  const cases::ParticleOnCircle creeping(ParamValues{{"R", 1.0}, {"g", 1.0}, {"v0", 5e-10}});
  const std::vector<std::pair<double, double>> reference = {{0.5, 0.031087578289355214528},
                                                            {3.3, 1.0791208888067338467},
                                                            {6.0, 1.9899924966004454152},
                                                            {7.0, 2.0635433127092039918},
                                                            {12.0, 3.9601702866503667444}};
  for (const auto& [theta, value] : reference) {
    INFO("theta = " << theta);
    CHECK(std::abs(creeping.bounded_integral(theta) / value - 1.0) < 1e-15);
  }
  // Where the integrand is smooth, double-precision quadrature agrees with it to round-off.
  for (const double v0 : {0.5, 3.0}) {
    const cases::ParticleOnCircle c(ParamValues{{"R", 2.0}, {"g", 9.81}, {"v0", v0}});
    for (const double theta : {1.0, 3.0, 6.0, 7.0, 12.0}) {
      const double quadrature = analysis::integrate(
          [&](double s) {
            const double h = std::sin(0.5 * s);
            return h * h / std::sqrt(v0 * v0 + 4.0 * c.g * c.R * h * h);
          },
          0.0, theta);
      INFO("v0 = " << v0 << ", theta = " << theta);
      CHECK(std::abs(c.bounded_integral(theta) / quadrature - 1.0) < 1e-14);
    }
  }
}

TEST_CASE("pendulum-string: the string goes slack where cos(theta) = (2 - v0^2/(gL))/3",
          "[cases]") {
  const auto model = make_model("pendulum-string", {});
  const Facts facts = model->facts();
  double theta_at_slack = std::nan("");
  testing::SolveOptions o;
  o.on_sample = [&](const TrajectorySample& s) {
    if (s.label == "lift_off-") theta_at_slack = s.x.q(1);
  };
  const RunRecord r = testing::solve(*model, o);
  REQUIRE(r.status == Status::ok);
  REQUIRE(r.lift_off_time);
  CHECK(std::abs(*r.lift_off_time - *facts.lift_off_time("classical")) <= 1e-10);
  CHECK(theta_at_slack == Approx(std::acos((2.0 - 2.1 * 2.1) / 3.0)).margin(1e-10));
  // A slower start never slackens: v0² ≤ 2gL keeps the tension positive.
  const auto slow = make_model("pendulum-string", {{"v0", "1.2"}});
  CHECK_FALSE(testing::solve(*slow).lift_off_time);
}

TEST_CASE("vibrating-table: the viscous lift-off fact is the first zero however early it lies",
          "[cases]") {
  // The first positive zero of g t - a omega (1 - cos omega t). Independent values (scipy brentq
  // on a geometric then linear scan from 1e-30): 0.16999040374897553 at the defaults,
  // 2g/(a omega^3) when it is early (a = 1e6: 1.6e-8; omega = 1e6: 2e-17; g = 1e-9: 1.6e-10,
  // where a scan from 1e-3 of a period gave 25.13), none for g = 2 (a omega^2 sin^2(x)/x never
  // reaches g).
  const auto viscous = [](std::vector<Assignment> set) {
    return make_model("vibrating-table", set)->facts().lift_off_time("viscous");
  };
  CHECK(std::abs(*viscous({}) - 0.16999040374897553) < 1e-15);
  CHECK(std::abs(*viscous({{"a", "1e6"}}) / 1.6e-8 - 1.0) < 1e-12);
  CHECK(std::abs(*viscous({{"omega", "1e6"}}) / 2e-17 - 1.0) < 1e-12);
  CHECK(std::abs(*viscous({{"g", "1e-9"}}) / 1.6e-10 - 1.0) < 1e-12);
  CHECK_FALSE(viscous({{"g", "2"}}));
}

TEST_CASE("vibrating-table: classical lift-off at sin(omega t) = g/(a omega^2)", "[cases]") {
  for (const auto& set :
       std::vector<std::vector<Assignment>>{{}, {{"a", "0.02"}, {"omega", "30"}, {"g", "9.81"}}}) {
    const auto model = make_model("vibrating-table", set);
    const Facts facts = model->facts();
    const ParamValues& p = model->params();
    const double expected =
        std::asin(p.at("g") / (p.at("a") * p.at("omega") * p.at("omega"))) / p.at("omega");
    const RunRecord r = testing::solve(*model);
    REQUIRE(r.status == Status::ok);
    REQUIRE(r.lift_off_time);
    CHECK(std::abs(*r.lift_off_time - expected) <= 1e-12);
    const RunRecord limit = run("vibrating-table", "limit", {}, set);
    REQUIRE(limit.lift_off_time);
    CHECK(std::abs(*limit.lift_off_time - *facts.lift_off_time("viscous")) <= 1e-11);
  }
}

TEST_CASE("vibrating-table with a phase: both lift-off facts against scipy and the solvers",
          "[cases]") {
  // Independent values: scipy brentq on a 2e5-point scan of the first period (a = 0.1, omega =
  // 5, g = 1): phase 5.5 (lambda(0) = 2.76) classical 0.23894043064941478, viscous
  // 0.5521448970058423; phase pi classical 0.7106218999314563, and no zero of the integral g t +
  // a omega (1 - cos(omega t)) > 0; phase 2 starts with lambda(0) = -1.27 < 0: no facts.
  const auto facts = [](const char* phase) {
    return make_model("vibrating-table", {{"phase", phase}})->facts();
  };
  const Facts late = facts("5.5");
  CHECK(std::abs(*late.lift_off_time("classical") - 0.23894043064941478) < 1e-14);
  CHECK(std::abs(*late.lift_off_time("viscous") - 0.5521448970058423) < 1e-14);
  const Facts rising = facts("3.141592653589793");
  CHECK(std::abs(*rising.lift_off_time("classical") - 0.7106218999314563) < 1e-14);
  CHECK_FALSE(rising.lift_off_time("viscous"));
  CHECK(facts("2").lift_off.empty());
  // The solvers integrate the same table: event-driven leaves at the classical fact, the limit at
  // the viscous one.
  const RunRecord classical = run("vibrating-table", "event-driven", {}, {{"phase", "5.5"}});
  REQUIRE(classical.lift_off_time);
  CHECK(std::abs(*classical.lift_off_time - 0.23894043064941478) < 1e-11);
  const RunRecord viscous = run("vibrating-table", "limit", {}, {{"phase", "5.5"}});
  REQUIRE(viscous.lift_off_time);
  CHECK(std::abs(*viscous.lift_off_time - 0.5521448970058423) < 1e-11);
}

TEST_CASE(
    "oscillator-at-wall: period proportional to sqrt(E) over four decades (Berezinskaya, Sorokina "
    "& Kugushev 2003 (9.2))",
    "[cases]") {
  std::vector<double> energies, periods;
  for (const double E : {1e-8, 1e-7, 1e-6, 1e-5, 1e-4}) {
    const auto model = make_model("oscillator-at-wall", {{"E", format_number(E)}});
    const RunRecord r = testing::solve(*model);
    REQUIRE(r.status == Status::ok);
    std::vector<double> impacts;
    for (const auto& e : r.events) {
      if (e.kind == EventKind::impact) impacts.push_back(e.t);
    }
    REQUIRE(impacts.size() >= 4);
    const double period =
        (impacts.back() - impacts.front()) / static_cast<double>(impacts.size() - 1);
    INFO("E = " << E);
    CHECK(period == Approx(*model->facts().value("period")).epsilon(1e-9));
    energies.push_back(E);
    periods.push_back(period);
  }
  const double exponent = testing::fitted_slope(energies, periods);
  CHECK(exponent == Approx(0.5).margin(0.01));
}

TEST_CASE("Cases accept non-default parameters in range and reject others with exit 2", "[cases]") {
  const auto cli = [](std::vector<std::string> args) {
    args.insert(args.begin(), "crbench");
    std::vector<const char*> argv;
    for (const auto& a : args) argv.push_back(a.c_str());
    std::ostringstream out, err;
    return crbench::run_cli(static_cast<int>(argv.size()), argv.data(), out, err);
  };
  const std::vector<std::pair<std::string, std::pair<std::string, std::string>>> cases{
      {"particle-on-circle", {"v0=0.3", "R=-1"}}, {"pendulum-string", {"L=2", "v0=0"}},
      {"vibrating-table", {"omega=7", "a=0"}},    {"oscillator-at-wall", {"E=1e-6", "k1=0"}},
      {"bouncing-ball-penalty", {"h0=2", "g=0"}}, {"plane-reparametrized", {"kappa=4", "x_c=1"}},
  };
  for (const auto& [c, sets] : cases) {
    INFO(c);
    CHECK(cli({"run", "--case", c, "--solver", "event-driven", "--set", sets.first}) == 0);
    CHECK(cli({"run", "--case", c, "--solver", "event-driven", "--set", sets.second}) == 2);
  }
}

TEST_CASE("verify confirms the viscous prediction on particle-on-circle to >= 7 digits",
          "[cases][verify]") {
  // Up to N = 1e5: the case is written in absolute coordinates (r ≈ R), so the penetration ~1/N
  // is a difference of O(1) numbers, and the exit time's discretization error grows like
  // rtol·|q|·N relative to a model error ~1/N; beyond 1e5 verify's discretization check flags
  // the points (see docs/internals.md, "How the realization is integrated"). Two points per decade:
  // the error bar (distance to the extrapolation one row coarser) supports 8.4 digits; one point
  // per decade only 6.7.
  std::vector<std::string> args{"crbench", "verify",       "--case", "particle-on-circle",
                                "--json",  "--digits",     "7",      "--N-to",
                                "1e5",     "--per-decade", "2"};
  check_confirmed(args, 7.0);
}

TEST_CASE(
    "bouncing-ball-penalty: kozlov-impact tends to the event-driven ball with e = "
    "exp(-pi k / omega) (Kozlov 1992 (12))",
    "[cases]") {
  const double g = 1.0;
  const cases::BouncingBallPenalty ball(
      resolve_params(cases::BouncingBallPenalty::info().params, {}, "test"));
  const double kappa = 1.0, k = 0.1;
  const double e = cases::BouncingBallPenalty::restitution(kappa, k);
  CHECK(e == Approx(std::exp(-std::numbers::pi * 0.1 / std::sqrt(0.99))).epsilon(1e-15));
  const auto times = ball.impact_times(e, 4);
  const auto apexes = ball.apex_heights(e, 3);
  const auto model = make_model("bouncing-ball-penalty", {});

  // The ideal ball with that e: impact times and apex heights (rate after the impact)²/(2g).
  const RunRecord ideal =
      run("bouncing-ball-penalty", "event-driven", {{"restitution", format_number(e)}});
  REQUIRE(ideal.status == Status::ok);
  std::vector<double> ideal_times, ideal_apexes;
  for (const auto& ev : ideal.events) {
    if (ev.kind != EventKind::impact) continue;
    ideal_times.push_back(ev.t);
    ideal_apexes.push_back(*ev.rate_after * *ev.rate_after / (2.0 * g));
  }
  REQUIRE(ideal_times.size() == 4);
  for (int j = 0; j < 4; ++j) CHECK(ideal_times[j] == Approx(times[j]).margin(1e-10));
  for (int j = 0; j < 3; ++j) CHECK(ideal_apexes[j] == Approx(apexes[j]).margin(1e-10));

  // The realization: entries into the medium are the impacts; the exit velocity gives the apex.
  std::vector<double> Ns, time_errors, apex_errors;
  for (const double N : {1e4, 1e6, 1e8, 1e10}) {
    std::vector<double> exit_speeds;
    testing::SolveOptions o;
    o.solver = "realization";
    o.solver_params = {{"N", format_number(N)},
                       {"preset", "kozlov-impact"},
                       {"kappa", format_number(kappa)},
                       {"k", format_number(k)}};
    o.output_times = {model->horizon()};
    o.on_sample = [&](const TrajectorySample& s) {
      // The realization labels its event rows "event-"/"event+"; an exit moves upwards.
      if (!s.label.empty() && s.label.back() == '+' && s.x.v(0) > 0.0) {
        exit_speeds.push_back(s.x.v(0));
      }
    };
    const RunRecord r = testing::solve(*model, o);
    INFO("N = " << N);
    REQUIRE(r.status == Status::ok);
    std::vector<double> entries;
    for (const auto& ev : r.events) {
      if (ev.kind == EventKind::enter_medium) entries.push_back(ev.t);
    }
    REQUIRE(entries.size() >= 4);
    REQUIRE(exit_speeds.size() >= 3);
    double time_error = 0.0, apex_error = 0.0;
    for (int j = 0; j < 4; ++j) time_error = std::max(time_error, std::abs(entries[j] - times[j]));
    for (int j = 0; j < 3; ++j) {
      apex_error =
          std::max(apex_error, std::abs(exit_speeds[j] * exit_speeds[j] / (2.0 * g) - apexes[j]));
    }
    Ns.push_back(N);
    time_errors.push_back(time_error);
    apex_errors.push_back(apex_error);
  }
  // Each contact lasts π/(ω√N): the impact times converge like N^(-1/2).
  INFO("impact time errors " << time_errors[0] << " " << time_errors[1] << " " << time_errors[2]
                             << " " << time_errors[3]);
  INFO("apex errors " << apex_errors[0] << " " << apex_errors[1] << " " << apex_errors[2] << " "
                      << apex_errors[3]);
  CHECK(-testing::fitted_slope(Ns, time_errors) == Approx(0.5).margin(0.05));
  CHECK(time_errors.back() <= 1e-4);
  CHECK(apex_errors.back() <= 1e-4);
  CHECK(apex_errors.back() < apex_errors.front());
}

TEST_CASE(
    "plane-reparametrized: same surface and mu as dk-plane, a different viscous lift-off, "
    "each equal to its own integral-of-lambda prediction",
    "[cases]") {
  struct Setting {
    double kappa, x_c, tau;  // τ from the closed form in cases/plane_reparametrized.hpp
  };
  const std::vector<Setting> settings{
      {1.0, 0.5, 1.0 + 0.5 + std::tan(std::atan(1.5) - 2.0 * std::atan(0.5))},
      {4.0, 0.3, 1.0 + 0.3 + std::tan(std::atan(2.0 * 1.3) - 2.0 * std::atan(0.6)) / 2.0},
      {1.0, 0.0, 2.0},  // the symmetric f = y(1 + κx²): τ = 2 like dk-plane
  };
  for (const auto& s : settings) {
    INFO("kappa " << s.kappa << ", x_c " << s.x_c);
    const std::vector<Assignment> set{{"kappa", format_number(s.kappa)},
                                      {"x_c", format_number(s.x_c)}};
    const auto model = make_model("plane-reparametrized", set);
    const auto fact = model->facts().lift_off_time("viscous");
    REQUIRE(fact);
    CHECK(*fact == Approx(s.tau).margin(1e-14));
    // The limit solver integrates λ_f numerically; its zero must match the closed form.
    const RunRecord limit = run("plane-reparametrized", "limit", {{"preset", "viscous"}}, set);
    REQUIRE(limit.lift_off_time);
    CHECK(*limit.lift_off_time == Approx(s.tau).margin(1e-10));
    // The realization approaches it like 1/N.
    const RunRecord realized =
        run("plane-reparametrized", "realization", {{"preset", "viscous"}, {"N", "1e6"}}, set);
    REQUIRE(realized.lift_off_time);
    CHECK(std::abs(*realized.lift_off_time - s.tau) < 1e-5);
    // Classical: λ_f and λ change sign together, at the switch.
    const RunRecord classical = run("plane-reparametrized", "event-driven", {}, set);
    REQUIRE(classical.lift_off_time);
    CHECK(*classical.lift_off_time == Approx(1.0).margin(1e-12));
  }
  CHECK(*make_model("plane-reparametrized", {})->facts().lift_off_time("viscous") <
        2.0 - 0.4);  // the default (κ 1, x_c 0.5) leaves at 1.5556, dk-plane at 2

  // On Σ at t = 0.5 (x = −0.5): λ_f = g/(1 + κ(x − x_c)²), μ = g as for dk-plane.
  const auto model = make_model("plane-reparametrized", {});
  testing::SolveOptions o;
  o.output_times = {0.5};
  std::optional<TrajectorySample> at_half;
  o.on_sample = [&](const TrajectorySample& s) {
    if (s.label.empty()) at_half = s;
  };
  testing::solve(*model, o);
  REQUIRE(at_half);
  CHECK(at_half->lambda(0) == Approx(1.0 / (1.0 + 1.0 * 1.0)).epsilon(1e-12));
  CHECK(at_half->mu(0) == Approx(1.0).epsilon(1e-12));
}

TEST_CASE("verify confirms the viscous prediction on vibrating-table to >= 6 digits",
          "[cases][verify]") {
  // Two points per decade up to 10^5.5: the table moves (y ≈ a sin ωt), so as for
  // particle-on-circle the penetration ~1/N is a difference of O(a) numbers and at 1e6 the
  // discretization check flags the point. The error bar supports 6.1 digits (4.6 up to 1e4).
  std::vector<std::string> args{"crbench", "verify",       "--case", "vibrating-table",
                                "--json",  "--digits",     "6",      "--N-to",
                                "3.2e5",   "--per-decade", "2"};
  check_confirmed(args, 6.0);
}

TEST_CASE(
    "body-with-channel: the period of the Routh system, event-driven's impacts, and the sqrt(E) "
    "law with its first correction",
    "[cases]") {
  // The period integral of the Routh system (the case's facts) against the same integral in
  // 40-digit arithmetic (mpmath, outside the suite), event-driven's full two-degree-of-freedom
  // motion with elastic impacts at s = 0 against both, and T = c1 sqrt(E) (1 + kappa E + O(E^2)):
  // the remainder falls like E^(5/2) (84.5 E^(5/2) at the defaults).
  const std::vector<std::pair<double, double>> mpmath{
      {1e-2, 0.78015848461742094}, {1e-3, 0.25288674930737070}, {1e-4, 0.080172472558056831}};
  std::vector<double> remainders;
  for (const auto& [E, exact] : mpmath) {
    INFO("E = " << E);
    const auto model = make_model("body-with-channel", {{"E", format_number(E)}});
    const Facts facts = model->facts();
    const double period = *facts.value("period");
    CHECK(period == Approx(exact).epsilon(1e-13));
    const RunRecord r = testing::solve(*model);
    REQUIRE(r.status == Status::ok);
    std::vector<double> impacts;
    for (const auto& e : r.events) {
      if (e.kind == EventKind::impact) {
        CHECK(e.index == 0);  // the wall s = 0; the channel's end is not reached
        impacts.push_back(e.t);
      }
    }
    REQUIRE(impacts.size() >= 4);
    CHECK(std::abs(impacts.front() - period) <= 1e-10);
    const double mean =
        (impacts.back() - impacts.front()) / static_cast<double>(impacts.size() - 1);
    CHECK(std::abs(mean - period) <= 1e-10);
    const double leading = *facts.value("small-energy period 2 sqrt(2 a(0) E)/W'(0)");
    const double corrected =
        *facts.value("period with its first correction c1 sqrt(E) (1 + kappa E)");
    remainders.push_back((period - corrected) / std::pow(E, 2.5));
    // The correction is what is left of the leading law: (T - c1 sqrt(E)) / E^(3/2) tends to
    // c1 kappa = -22.6106 (mpmath: -21.79, -22.53, -22.60 at these E).
    CHECK(std::abs(period - corrected) < std::abs(period - leading));
  }
  CHECK(remainders[1] == Approx(84.27).epsilon(0.01));
  CHECK(remainders[2] == Approx(84.52).epsilon(0.01));
  // Moreau-Jean (restitution 1, the case's) sees each impact at the end of a step after the
  // crossing: the k-th impact lies in (k T, k (T + 2h)] (measured: 1.13 h, then 1.13 h more per
  // period at h = 1e-4; 1.33 h at 1e-5).
  for (const double h : {1e-4, 1e-5}) {
    const auto model = make_model("body-with-channel", {});
    testing::SolveOptions o;
    o.solver = "moreau-jean";
    o.solver_params = {{"h", format_number(h)}};
    const RunRecord r = testing::solve(*model, o);
    REQUIRE(r.status == Status::ok);
    const double T = mpmath[1].second;
    int k = 0;
    for (const auto& e : r.events) {
      if (e.kind != EventKind::impact) continue;
      ++k;
      CHECK(e.t > k * T);
      CHECK(e.t <= k * (T + 2.0 * h));
    }
    CHECK(k == 5);
  }
  // The study equilibrium-on-constraint states these coefficients, c1 and c1 kappa.
  {
    const double E = 1e-3;
    const Facts facts = make_model("body-with-channel", {{"E", format_number(E)}})->facts();
    const double c1 = *facts.value("small-energy period 2 sqrt(2 a(0) E)/W'(0)") / std::sqrt(E);
    const double c1_kappa =
        (*facts.value("period with its first correction c1 sqrt(E) (1 + kappa E)") / std::sqrt(E) -
         c1) /
        E;
    std::ifstream file(std::string(CRBENCH_SOURCE_DIR) +
                       "/bench/studies/equilibrium-on-constraint.json");
    REQUIRE(file);
    const auto study = nlohmann::json::parse(file);
    const auto& a = study["models"][0]["expected_coefficients"]["first_contact_time"];
    CHECK(a[0].get<double>() == Approx(c1).epsilon(1e-14));
    CHECK(a[1].get<double>() == Approx(c1_kappa).epsilon(1e-11));
    CHECK(c1_kappa == Approx(-22.6106).margin(1e-4));
  }
  // The angular momentum about the post is conserved through the impacts.
  const auto model = make_model("body-with-channel", {});
  std::vector<double> momenta;
  crbench::testing::SolveOptions o;
  o.output_times = testing::grid(0.0, model->horizon(), 11);
  o.on_sample = [&](const TrajectorySample& s) {
    const double s_pos = s.x.q(0), xi = 1.0 - s_pos;
    momenta.push_back(0.5 * s.x.v(0) + (0.5 + xi * xi + 0.25) * s.x.v(1));
  };
  REQUIRE(testing::solve(*model, o).status == Status::ok);
  for (const double k : momenta) CHECK(k == Approx(1.0).margin(1e-10));
}

}  // namespace cases_library_tests
