// falling-ladder: the classical release of the wall checked by an integration independent of the
// case (Newton–Euler in the angle, Odeint's Dormand–Prince, the wall's force located by
// bisection); the record's per-constraint lift-off and the constraint selection of verify.
#include <Eigen/Dense>
#include <boost/numeric/odeint.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numbers>

#include "crbench/cases/falling_ladder.hpp"
#include "support.hpp"

namespace falling_ladder_tests {

using namespace crbench;

namespace {

// Newton–Euler of the rod with both ends held, in θ alone (centre (l cos θ, l sin θ)): unknowns
// θ̈, the wall's force N_w (horizontal, at the top end (−l cos θ, l sin θ) from the centre) and
// the floor's N_f (vertical, at the bottom end (l cos θ, −l sin θ)). The rod turns
// counterclockwise at ω = −θ̇, so m ẍ = N_w, m ÿ = N_f − m g, −I θ̈ = l cos θ N_f − l sin θ N_w,
// with ẍ = −l (cos θ θ̇² + sin θ θ̈) and ÿ = l (cos θ θ̈ − sin θ θ̇²). Nothing here comes from
// the case's energy or its formulas.
struct NewtonEuler {
  double l, m, g;
  Eigen::Vector3d solve(double theta, double rate) const {
    const double s = std::sin(theta), c = std::cos(theta), I = m * l * l / 3.0;
    Eigen::Matrix3d K;
    Eigen::Vector3d b;
    // rows: m ẍ − N_w = 0, m ÿ − N_f = −m g, I θ̈ + l c N_f − l s N_w = 0
    K << -m * l * s, -1.0, 0.0,  //
        m * l * c, 0.0, -1.0,    //
        I, -l * s, l * c;
    b << m * l * c * rate * rate, m * l * s * rate * rate - m * g, 0.0;
    return K.partialPivLu().solve(b);  // (θ̈, N_w, N_f)
  }
};

// The first time the wall's force vanishes, from rest at θ0.
double independent_release(double l, double m, double g, double theta0) {
  namespace odeint = boost::numeric::odeint;
  using state = std::array<double, 2>;
  const NewtonEuler rod{l, m, g};
  const auto rhs = [&](const state& x, state& dx, double) {
    dx[0] = x[1];
    dx[1] = rod.solve(x[0], x[1])(0);
  };
  auto stepper = odeint::make_dense_output(1e-14, 1e-14, odeint::runge_kutta_dopri5<state>());
  stepper.initialize(state{theta0, 0.0}, 0.0, 1e-3);
  const auto wall = [&](const state& x) { return rod.solve(x[0], x[1])(1); };
  state x{};
  while (true) {
    const auto [t0, t1] = stepper.do_step(rhs);
    if (wall(stepper.current_state()) > 0.0) continue;
    // Bisection on the dense output between the step's ends.
    double a = t0, b = t1;
    for (int i = 0; i < 200 && b - a > 1e-16 * b; ++i) {
      const double mid = 0.5 * (a + b);
      stepper.calc_state(mid, x);
      (wall(x) > 0.0 ? a : b) = mid;
    }
    return 0.5 * (a + b);
  }
}

}  // namespace

TEST_CASE(
    "falling-ladder: the classical release agrees with an independent Newton-Euler "
    "integration and with the event-driven solver's wall lift-off",
    "[falling-ladder][cases]") {
  for (const double theta0 : {0.3, std::numbers::pi / 3.0, 1.4}) {
    INFO("theta0 " << theta0);
    const cases::FallingLadder rod(
        ParamValues{{"l", 1.0}, {"m", 1.0}, {"g", 9.81}, {"theta0", theta0}});
    const double fact = rod.release_time();
    CHECK(std::sin(rod.release_angle()) == Approx(2.0 / 3.0 * std::sin(theta0)).epsilon(1e-15));
    CHECK(std::abs(independent_release(1.0, 1.0, 9.81, theta0) - fact) < 1e-10);
    // The horizon lies past the release and before the rod lies flat.
    CHECK(rod.horizon() > fact);
    CHECK(rod.horizon() < rod.landing_time());

    const testing::CliResult r =
        testing::cli({"run", "--case", "falling-ladder", "--solver", "event-driven", "--set",
                      "theta0=" + format_number(theta0), "--json"});
    REQUIRE(r.status == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["constraint_names"] == nlohmann::json::array({"wall", "floor"}));
    REQUIRE(j["constraint_lift_off_time"][0].is_number());
    CHECK(std::abs(j["constraint_lift_off_time"][0].get<double>() - fact) < 1e-12);
    // The floor holds to the end, so neither it nor the whole system lifts off.
    CHECK(j["constraint_lift_off_time"][1].is_null());
    CHECK(j["lift_off_time"].is_null());
  }
}

TEST_CASE(
    "falling-ladder: verify measures the wall's lift-off when asked by name or index and "
    "refuses a constraint the case does not have",
    "[falling-ladder][verify][cli]") {
  // An rtol ladder of event-driven against the closed-form release of the wall.
  for (const char* which : {"wall", "0"}) {
    const testing::CliResult r = testing::cli({"verify", "--case", "falling-ladder", "--axis",
                                               "rtol", "--solver", "event-driven", "--from", "1e-6",
                                               "--to", "1e-10", "--constraint", which, "--json"});
    INFO(r.out << r.err);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["constraint"] == "wall");
    const cases::FallingLadder rod(
        ParamValues{{"l", 1.0}, {"m", 1.0}, {"g", 9.81}, {"theta0", std::numbers::pi / 3.0}});
    REQUIRE(j["reference"]["lift_off_time"].is_number());
    CHECK(j["reference"]["lift_off_time"].get<double>() == rod.release_time());
    for (const auto& row : j["observables"]["lift_off_time"]["points"]) {
      REQUIRE(row["value"].is_number());
      CHECK(std::abs(row["error"].get<double>()) < 1e-5);
    }
  }
  testing::check_refused({"verify", "--case", "falling-ladder", "--constraint", "roof"},
                         "--constraint: 'roof' is not a constraint of falling-ladder; its "
                         "constraints are wall (0), floor (1)");
  testing::check_refused({"verify", "--case", "falling-ladder", "--constraint", "2"},
                         "--constraint: '2' is not a constraint");
}

TEST_CASE(
    "falling-ladder: a study model names its constraint - the ideal row is judged against the "
    "wall's closed-form release - an unknown constraint is refused",
    "[falling-ladder][study][cli]") {
  const auto dir = testing::fresh_dir("falling_ladder_study");
  std::filesystem::create_directories(dir);
  const auto write = [&](const std::string& constraint) {
    const std::string path = (dir / ("study-" + constraint + ".json")).string();
    std::ofstream(path) << R"({"name": "ladder-wall", "description": "the wall's release",
      "case": "falling-ladder", "samples": 101, "observables": ["lift_off_time"],
      "models": [{"label": "classical", "solver": "event-driven", "reference": "closed-form",
                  "constraint": ")"
                        << constraint << R"("}]})";
    return path;
  };
  const testing::CliResult r = testing::cli(
      {"converge", "--study", write("wall"), "--out", (dir / "out").string(), "--no-figures"});
  INFO(r.out << r.err);
  CHECK(r.status == 0);
  const auto j = nlohmann::json::parse(testing::read_text_file(dir / "out" / "study.json"));
  const auto& model = j["models"][0];
  CHECK(model["constraint"] == "wall");
  const cases::FallingLadder rod(
      ParamValues{{"l", 1.0}, {"m", 1.0}, {"g", 9.81}, {"theta0", std::numbers::pi / 3.0}});
  CHECK(model["reference"]["lift_off_time"].get<double>() == rod.release_time());
  testing::check_refused(
      {"converge", "--study", write("roof"), "--out", (dir / "refused").string(), "--no-figures"},
      "study.models[0].constraint: 'roof' is not a constraint of "
      "falling-ladder");
}

TEST_CASE(
    "falling-ladder: with both contacts realized by an added mass and a spring the wall's "
    "lift-off ladder confirms the limit model's prediction",
    "[falling-ladder][verify]") {
  // g = 0.1 stretches the fall to the (1, 0, 1) medium's own period 2 pi, so that z of the wall
  // returns to zero before the rod lies flat (at g = 9.81 it does not within the horizon).
  const testing::CliResult r =
      testing::cli({"verify", "--case", "falling-ladder", "--set", "g=0.1", "--constraint", "wall",
                    "--alpha", "1", "--beta", "0", "--gamma", "1", "--json"});
  INFO(r.out << r.err);
  CHECK(r.status == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["confirmed"] == true);
  CHECK(j["constraint"] == "wall");
  // Delayed past the classical release (where the wall's reaction vanishes).
  const cases::FallingLadder rod(
      ParamValues{{"l", 1.0}, {"m", 1.0}, {"g", 0.1}, {"theta0", std::numbers::pi / 3.0}});
  CHECK(j["prediction"]["lift_off_time"].get<double>() > rod.release_time() + 0.1);
  CHECK(j["least_squares_order"].get<double>() == Approx(1.0).margin(0.05));
}

TEST_CASE(
    "verify --solver-set gives any setting to the ladder's solver - an unknown one is refused",
    "[falling-ladder][verify][cli]") {
  // The case carries restitution 0 for moreau-jean; --solver-set overrides it.
  const auto model_of = [](const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"verify", "--case",       "falling-ladder", "--axis",
                                     "h",      "--solver",     "moreau-jean",    "--from",
                                     "1e-2",   "--to",         "1e-4",           "--per-decade",
                                     "1",      "--constraint", "wall",           "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const testing::CliResult r = testing::cli(args);
    INFO(r.err);
    const auto j = nlohmann::json::parse(r.out);
    return j["model"];
  };
  CHECK(model_of({})["restitution"] == 0.0);
  CHECK(model_of({"--solver-set", "restitution=1", "--solver-set", "theta=1"})["restitution"] ==
        1.0);
  CHECK(model_of({"--solver-set", "theta=1"})["theta"] == 1.0);
  testing::check_refused({"verify", "--case", "falling-ladder", "--axis", "h", "--solver",
                          "moreau-jean", "--solver-set", "nosuch=1"},
                         "solver moreau-jean: unknown parameter 'nosuch'");
  testing::check_refused({"verify", "--case", "dk-plane", "--solver-set", "restitution"},
                         "--solver-set: 'restitution' is not of the form KEY=VALUE");
}

TEST_CASE("a study model may require its own digits - the study's apply to the others",
          "[falling-ladder][study][cli]") {
  const auto dir = testing::fresh_dir("falling_ladder_digits");
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "digits.json").string();
  std::ofstream(path) << R"({"name": "digits", "description": "per-model digits",
    "case": "falling-ladder", "params": {"g": 0.1}, "N": {"from": 100, "to": 1e6},
    "samples": 101, "observables": ["lift_off_time"],
    "models": [
      {"label": "five", "solver": "realization", "set": {"alpha": 1, "beta": 0, "gamma": 1},
       "constraint": "wall", "digits": 5, "expected_order": {"lift_off_time": 1}},
      {"label": "fifteen", "solver": "realization", "set": {"alpha": 1, "beta": 0, "gamma": 1},
       "constraint": "wall", "digits": 15, "expected_order": {"lift_off_time": 1}},
      {"label": "study", "solver": "realization", "set": {"alpha": 1, "beta": 0, "gamma": 1},
       "constraint": "wall", "expected_order": {"lift_off_time": 1}}]})";
  const testing::CliResult r =
      testing::cli({"converge", "--study", path, "--out", (dir / "out").string(), "--no-figures"});
  INFO(r.out << r.err);
  const auto j = nlohmann::json::parse(testing::read_text_file(dir / "out" / "study.json"));
  const auto verdict = [&](int i) {
    return j["models"][i]["observables"]["lift_off_time"]["verdict"].get<std::string>();
  };
  CHECK(j["models"][0]["digits"] == 5.0);
  CHECK(j["models"][1]["digits"] == 15.0);
  CHECK_FALSE(j["models"][2].contains("digits"));
  CHECK(verdict(0).rfind("CONFIRMED", 0) == 0);
  CHECK(verdict(1).rfind("NOT CONFIRMED", 0) == 0);
  CHECK_THAT(verdict(1), Catch::Contains("15 required"));
  CHECK_THAT(j["confirmation_rule"].get<std::string>(),
             Catch::Contains("these models name their own digits: five 5, fifteen 15"));
  CHECK(r.status == 1);  // "fifteen" is NOT CONFIRMED
}

}  // namespace falling_ladder_tests

namespace falling_ladder_tests {

TEST_CASE(
    "moreau-jean's restitution threshold: a sustained contact under Newton's e = 1 rests instead "
    "of chattering - real impacts keep their restitution",
    "[falling-ladder][moreau-jean]") {
  const cases::FallingLadder rod(
      ParamValues{{"l", 1.0}, {"m", 1.0}, {"g", 9.81}, {"theta0", std::numbers::pi / 3.0}});
  const auto wall = [](const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"run",      "--case",      "falling-ladder",
                                     "--solver", "moreau-jean", "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const testing::CliResult r = testing::cli(args);
    INFO(r.out << r.err);
    REQUIRE(r.status == 0);
    const auto j = nlohmann::json::parse(r.out);
    int episodes = 0;
    for (const auto& e : j["events"]) {
      if (e["constraint"] == 0 && (e["kind"] == "contact" || e["kind"] == "impact")) ++episodes;
    }
    return std::make_pair(j["constraint_lift_off_time"][0].get<double>(), episodes);
  };
  for (const double h : {1e-3, 1e-4}) {
    INFO("h " << h);
    const std::string step = format_number(h);
    const auto plastic = wall({"--h", step, "--restitution", "0"});
    const auto chatter = wall({"--h", step, "--restitution", "1"});
    const auto resting =
        wall({"--h", step, "--restitution", "1", "--restitution-threshold", "0.01"});
    // Below the threshold the rows are plastic: the same steps as e = 0, within h of the release.
    CHECK(resting == plastic);
    CHECK(std::abs(resting.first - rod.release_time()) < h);
    // Without it the wall chatters and lets go early by more than h.
    CHECK(chatter.second > 10 * resting.second);
    CHECK(rod.release_time() - chatter.first > h);
  }
  // Impacts at speed 1 (ball-chain's elastic cradle with gaps) are above the threshold and keep
  // e = 1: the same final velocities.
  const auto cradle = [](const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"run",         "--case", "ball-chain", "--set",
                                     "n=3",         "--set",  "gap=0.5",    "--solver",
                                     "moreau-jean", "--h",    "1e-3",       "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const testing::CliResult r = testing::cli(args);
    REQUIRE(r.status == 0);
    return nlohmann::json::parse(r.out)["final_state"]["v"];
  };
  CHECK(cradle({"--restitution-threshold", "0.01"}) == cradle({}));
  testing::check_refused({"run", "--case", "falling-ladder", "--solver", "moreau-jean",
                          "--restitution-threshold", "-1"},
                         "restitution_threshold");
}

}  // namespace falling_ladder_tests
