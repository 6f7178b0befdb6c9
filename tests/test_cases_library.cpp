// Case library: every registered case runs with every solver and every realization setting; each
// case's facts are checked against the solvers; verify confirms the viscous predictions.
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "bench/cli.hpp"
#include "support.hpp"

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

}  // namespace

TEST_CASE("Every case runs with every solver, every preset and both interactions", "[cases]") {
  for (const auto& entry : case_registry()) {
    const std::string c = entry.info.name;
    for (const char* solver : {"event-driven", "moreau-jean", "limit"}) {
      INFO(c << " / " << solver);
      CHECK(run(c, solver).status == "ok");
    }
    for (const char* preset : {"viscous", "penalty", "kozlov-impact"}) {
      for (const char* interaction : {"medium", "obstacle"}) {
        INFO(c << " / realization " << preset << " " << interaction);
        // N = 1e4 keeps the undamped penalty oscillation affordable in a unit test.
        CHECK(
            run(c, "realization", {{"N", "1e4"}, {"preset", preset}, {"interaction", interaction}})
                .status == "ok");
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
    REQUIRE(r.status == "ok");
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
  REQUIRE(r.status == "ok");
  REQUIRE(r.lift_off_time);
  CHECK(std::abs(*r.lift_off_time - *facts.lift_off_time("classical")) <= 1e-10);
  CHECK(theta_at_slack == Approx(std::acos((2.0 - 2.1 * 2.1) / 3.0)).margin(1e-10));
  // A slower start never slackens: v0² ≤ 2gL keeps the tension positive.
  const auto slow = make_model("pendulum-string", {{"v0", "1.2"}});
  CHECK_FALSE(testing::solve(*slow).lift_off_time);
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
    REQUIRE(r.status == "ok");
    REQUIRE(r.lift_off_time);
    CHECK(std::abs(*r.lift_off_time - expected) <= 1e-12);
    const RunRecord limit = run("vibrating-table", "limit", {}, set);
    REQUIRE(limit.lift_off_time);
    CHECK(std::abs(*limit.lift_off_time - *facts.lift_off_time("viscous")) <= 1e-11);
  }
}

TEST_CASE("oscillator-at-wall: period proportional to sqrt(E) over four decades (seed 003 (9.2))",
          "[cases]") {
  std::vector<double> energies, periods;
  for (const double E : {1e-8, 1e-7, 1e-6, 1e-5, 1e-4}) {
    const auto model = make_model("oscillator-at-wall", {{"E", format_number(E)}});
    const RunRecord r = testing::solve(*model);
    REQUIRE(r.status == "ok");
    std::vector<double> impacts;
    for (const auto& e : r.events) {
      if (e.kind == "impact") impacts.push_back(e.t);
    }
    REQUIRE(impacts.size() >= 4);
    const double period =
        (impacts.back() - impacts.front()) / static_cast<double>(impacts.size() - 1);
    INFO("E = " << E);
    CHECK(period == Approx(*model->facts().value("period")).epsilon(1e-9));
    energies.push_back(E);
    periods.push_back(period);
  }
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < energies.size(); ++i) {
    const double x = std::log(energies[i]), y = std::log(periods[i]);
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  const double k = static_cast<double>(energies.size());
  const double exponent = (k * sxy - sx * sy) / (k * sxx - sx * sx);
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
      {"particle-on-circle", {"v0=0.3", "R=-1"}},
      {"pendulum-string", {"L=2", "v0=0"}},
      {"vibrating-table", {"omega=7", "a=0"}},
      {"oscillator-at-wall", {"E=1e-6", "k1=0"}},
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
  // the points (see README, "How the realization is integrated").
  std::vector<std::string> args{"crbench", "verify",   "--case", "particle-on-circle",
                                "--json",  "--digits", "7",      "--N-to",
                                "1e5"};
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  const int status = crbench::run_cli(static_cast<int>(argv.size()), argv.data(), out, err);
  const auto j = nlohmann::json::parse(out.str());
  INFO(j["verdict"]);
  CHECK(status == 0);
  CHECK(j["digits_of_agreement"].get<double>() >= 7.0);
}
