// crbench impacts: the impact study file's reader (every bad field refused with its name, exit 2),
// its points (one impact per run) against closed forms derived from each solver's own model
// (docs/engines.md, "Impacts at the defaults"), --resume, and files that do not depend on the
// thread count.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <numbers>
#include <string>
#include <vector>

#include "crbench/bench/impacts.hpp"
#include "crbench/bench/run_support.hpp"
#include "tests/support.hpp"

namespace impacts_tests {

namespace {

using crbench::ImpactResult;
using crbench::ImpactStudy;
using nlohmann::json;

using crbench::testing::impact_study_of;

ImpactResult run(const ImpactStudy& s, const std::string& folder, int jobs = 1,
                 bool resume = false) {
  crbench::FolderRunOptions o;
  // A resumed run keeps the folder; any other starts from an empty one.
  o.out_dir = resume
                  ? (std::filesystem::temp_directory_path() / ("crbench_test_" + folder)).string()
                  : crbench::testing::fresh_dir(folder).string();
  o.jobs = jobs;
  o.resume = resume;
  o.figures = false;
  return crbench::run_impact_study(s, o, "test.json");
}

// The first point of a study of one row, one speed, one step.
nlohmann::ordered_json point(const std::string& solver, const std::vector<crbench::Assignment>& set,
                             double v, double h) {
  // A folder of this process's own: CTest runs this program's test cases in parallel processes,
  // several of them with points of the same solver.
  const std::string folder = "impact_point_" + solver + "_" + std::to_string(::getpid());
  const ImpactResult r = run(impact_study_of(solver, set, {v}, {h}), folder);
  crbench::testing::fresh_dir(folder);  // removed again: the summary is all a point needs
  REQUIRE(r.summary["results"].size() == 1);
  return r.summary["results"][0];
}

// A valid file's text with one field replaced (or removed: null).
std::string file_with(const std::string& key, const json& value) {
  json j = {{"name", "t"},
            {"case", "bouncing-ball-siconos"},
            {"params", {{"h0", 0}}},
            {"speed", "v0"},
            {"speeds", {1, 2}},
            {"steps", {1e-3}},
            {"rows",
             {{{"label", "mj"},
               {"solver", "moreau-jean"},
               {"set", {{"restitution", 0}}},
               {"restitution", 0},
               {"restitution_source", "Newton's law"}}}}};
  if (value.is_null()) {
    j.erase(key);
  } else {
    j[key] = value;
  }
  return j.dump();
}

void check_refused_file(const std::string& text, const std::string& expected) {
  INFO(text);
  const auto dir = crbench::testing::fresh_dir("impacts_refused");
  std::filesystem::create_directories(dir);
  const auto file = dir / "bad.json";
  crbench::write_file(file, text);
  crbench::testing::check_refused(
      {"impacts", "--file", file.string(), "--out", (dir / "out").string(), "--no-figures"},
      expected);
}

}  // namespace

TEST_CASE("impacts: a bad impact study file is refused with the field named, exit 2", "[impacts]") {
  check_refused_file(file_with("speed", "mass"), "impacts.speed: 'mass' is not a parameter");
  check_refused_file(file_with("speeds", {1, -1}), "impacts.speeds[1]: -1 is outside");
  check_refused_file(file_with("speeds", {1, 1}), "impacts.speeds[1]: 1 is given twice");
  check_refused_file(file_with("speeds", {0, 1}), "impacts.speeds[0]: 0 must be above 0");
  check_refused_file(file_with("steps", json::array()), "impacts.steps: must be an array");
  check_refused_file(file_with("steps", {2.0}), "impacts.steps[0]: 2 is outside");
  check_refused_file(file_with("t_end", 0), "impacts.t_end: 0 is outside");
  check_refused_file(file_with("t_end", 1000), "impacts.t_end: 1000 is 1e+06 steps");
  check_refused_file(file_with("summary_step", 0.5),
                     "impacts.summary_step: 0.5 is not one of impacts.steps");
  check_refused_file(file_with("case", "no-such-case"), "impacts.case:");
  check_refused_file(file_with("params", {{"v0", 1}}), "impacts.params.v0: v0 comes from");
  check_refused_file(file_with("rows", json::array()), "impacts.rows: must be an array of 1 to 20");
  check_refused_file(file_with("extra", 1), "impacts.extra: unknown field");
  check_refused_file(file_with("speed", nullptr), "impacts.speed: missing (required)");
  const auto row = [](const std::string& key, const json& value) {
    json r = {{"label", "mj"},
              {"solver", "moreau-jean"},
              {"restitution", 0},
              {"restitution_source", "s"}};
    if (value.is_null()) {
      r.erase(key);
    } else {
      r[key] = value;
    }
    return json::array({r});
  };
  check_refused_file(file_with("rows", row("solver", "event-driven")),
                     "impacts.rows[0].solver: 'event-driven' takes no fixed step h");
  check_refused_file(file_with("rows", row("solver", "no-such-solver")), "impacts.rows[0].solver:");
  check_refused_file(file_with("rows", row("set", {{"h", 1e-3}})),
                     "impacts.rows[0].set.h: h comes from impacts.steps");
  check_refused_file(file_with("rows", row("set", {{"theta", 7}})), "impacts.rows[0].set:");
  check_refused_file(file_with("rows", row("restitution", 1.5)),
                     "impacts.rows[0].restitution: 1.5 is outside");
  check_refused_file(file_with("rows", row("restitution_source", nullptr)),
                     "impacts.rows[0].restitution_source: missing (required)");
  json twice = row("label", "a");
  twice.push_back(twice[0]);
  check_refused_file(file_with("rows", twice), "impacts.rows[1].label: 'a' is given twice");
}

TEST_CASE(
    "impacts: moreau-jean (theta = 1/2) stops the ball at the end of the step that sees the "
    "impact, v h/2 deep, and with restitution e returns e v at once",
    "[impacts]") {
  // The step from q = 0 at rate -v ends at q = h (theta v+ + (1 - theta) v-) with v+ = -e v-
  // (Moreau-Jean's Newton law at the velocity level, v- = -v): depth h v (1 - e)/2.
  for (const double e : {0.0, 0.5}) {
    const ImpactResult r =
        run(impact_study_of("moreau-jean",
                            {{"restitution", crbench::format_number(e)}, {"theta", "0.5"}},
                            {0.5, 2.0}, {1e-4, 1e-3}, e),
            "impacts_mj");
    REQUIRE(r.points_not_ok == 0);
    for (const auto& p : r.summary["results"]) {
      const double v = p["speed"], h = p["h"];
      INFO("e = " << e << ", v = " << v << ", h = " << h);
      CHECK(p["peak_penetration"].get<double>() == Approx(h * v * (1.0 - e) / 2.0).epsilon(1e-9));
      CHECK(p["restitution"].get<double>() == Approx(e).margin(1e-12));
      CHECK(p["rests"].get<bool>() == (e == 0.0));
      if (e > 0.0) CHECK(p["contact_duration"].get<double>() == Approx(0.0).margin(1e-15));
    }
  }
}

TEST_CASE(
    "impacts: the files are the same with 1 and 2 threads, --resume reuses every line of the "
    "same settings and computes a changed row again",
    "[impacts]") {
  const ImpactStudy s =
      impact_study_of("moreau-jean", {{"restitution", "0"}}, {0.5, 2.0}, {1e-3, 1e-2});
  run(s, "impacts_one_thread", 1);
  run(s, "impacts_two_threads", 2);
  const auto dir = [](const std::string& name) {
    return std::filesystem::temp_directory_path() / ("crbench_test_" + name);
  };
  for (const char* file :
       {"points.jsonl", "impacts.json", "restitution.csv", "peak_penetration.md", "README.md"}) {
    INFO(file);
    CHECK(crbench::testing::read_text_file(dir("impacts_one_thread") / file) ==
          crbench::testing::read_text_file(dir("impacts_two_threads") / file));
  }
  const ImpactResult again = run(s, "impacts_one_thread", 2, true);
  CHECK(again.points_computed == 0);
  CHECK(crbench::testing::read_text_file(dir("impacts_one_thread") / "impacts.json") ==
        crbench::testing::read_text_file(dir("impacts_two_threads") / "impacts.json"));
  ImpactStudy changed = s;
  changed.rows[0].assignments = {{"restitution", "0.5"}};
  const ImpactResult redone = run(changed, "impacts_one_thread", 1, true);
  CHECK(redone.points_computed == 4);
  CHECK(redone.lines_discarded == 4);
}

#ifdef CRBENCH_HAVE_MUJOCO
TEST_CASE(
    "impacts: MuJoCo's default contact, critically damped, lets the ball in v tau/e deep and "
    "releases it at t = 2 tau with e^-2 v: above 4 g tau e^2 the ball leaves",
    "[impacts][engines]") {
  // docs/engines.md: deep in the contact MuJoCo's reference is p'' = -2 p'/tau - p/tau^2 (solref
  // (tau, 1), d = dmax), so p = v t exp(-t/tau), deepest v tau/e at t = tau; at t = 2 tau the
  // reference asks for a pull, the contact lets go at p = 2 v tau e^-2 with rate v e^-2, and
  // gravity leaves sqrt(v^2 e^-4 - 4 g v tau e^-2) above the surface.
  const double tau = 0.02, g = 9.81, v = 20.0;
  const auto p = point("mujoco", {{"preset", "engine-default"}, {"joints", "free"}}, v, 1e-5);
  REQUIRE(p["status"] == "ok");
  CHECK(p["peak_penetration"].get<double>() == Approx(v * tau / std::exp(1.0)).epsilon(0.01));
  const double leaves = std::sqrt(v * v * std::exp(-4.0) - 4.0 * g * v * tau * std::exp(-2.0));
  CHECK(p["rebound"].get<double>() == Approx(leaves).epsilon(0.01));
  // Below 4 g tau e^2 = 5.80 it stays.
  const auto slow = point("mujoco", {{"preset", "engine-default"}, {"joints", "free"}}, 5.0, 1e-5);
  CHECK(slow["rests"].get<bool>());
}

TEST_CASE(
    "impacts: MuJoCo's default contact with a damping ratio below 1 lets go before the "
    "oscillation ends, and past its stability bound it adds energy, with a warning",
    "[impacts][engines]") {
  // docs/engines.md: deep in the contact p'' = -2 zeta w p' - w^2 p, w = 1/(tau zeta); the
  // contact lets go where the reference asks for a pull, w^2 p + 2 zeta w p' = 0, and gravity
  // takes 2 g p from the square of the rate there.
  const double tau = 0.02, zeta = 0.2155, g = 9.81, v = 20.0;
  const double w = 1.0 / (tau * zeta), wd = w * std::sqrt(1.0 - zeta * zeta);
  const auto depth = [&](double t) { return v / wd * std::exp(-zeta * w * t) * std::sin(wd * t); };
  const auto rate = [&](double t) {
    return v * std::exp(-zeta * w * t) * (std::cos(wd * t) - zeta * w / wd * std::sin(wd * t));
  };
  double a = 0.5 * std::numbers::pi / wd,
         b = std::numbers::pi / wd;  // the pull begins between the deepest point and 0
  for (int i = 0; i < 100; ++i) {
    const double m = 0.5 * (a + b);
    (w * w * depth(m) + 2.0 * zeta * w * rate(m) > 0.0 ? a : b) = m;
  }
  const double predicted = std::sqrt(rate(a) * rate(a) - 2.0 * g * depth(a));
  const std::vector<crbench::Assignment> set{
      {"preset", "engine-default"}, {"joints", "free"}, {"dampratio", "0.2155"}};
  const auto p = point("mujoco", set, v, 1e-5);
  REQUIRE(p["status"] == "ok");
  CHECK(p["rebound"].get<double>() == Approx(predicted).epsilon(0.005));
  // The linear oscillator's restitution, exp(-pi zeta/sqrt(1 - zeta^2)) = 0.4999, is not it.
  CHECK(p["restitution"].get<double>() > 0.54);
  CHECK(p["warnings"].empty());
  // The explicit step is stable for h b + h^2 k/2 < 2, b = 2/tau, k = 1/(tau zeta)^2: at h = 1e-2
  // it is 3.69; refsafe (tau = 2h at h = 2e-2) leaves it at 1 + 1/(8 zeta^2) = 3.69.
  for (const double h : {1e-2, 2e-2}) {
    INFO("h = " << h);
    const auto unstable = point("mujoco", set, v, h);
    CHECK(unstable["restitution"].get<double>() > 1.0);
    REQUIRE(unstable["warnings"].size() == 1);
    CHECK(unstable["warnings"][0].get<std::string>().find("3.69") != std::string::npos);
  }
}
#endif

#ifdef CRBENCH_HAVE_ODE
TEST_CASE("impacts: ODE's default contact (CFM 1e-10) lets the ball in CFM m v deep and holds it",
          "[impacts][engines]") {
  // The first contact step's impulse is m v; the row's slack CFM lambda, lambda = m v/h, over h
  // is a depth of CFM m v (m = 1).
  for (const double v : {2.0, 20.0}) {
    const auto p = point("ode", {{"preset", "engine-default"}}, v, 1e-5);
    REQUIRE(p["status"] == "ok");
    CHECK(p["peak_penetration"].get<double>() == Approx(1e-10 * v).epsilon(0.01));
    CHECK(p["rests"].get<bool>());
  }
}

TEST_CASE("impacts: ODE's dContactBounce returns bounce times the impact speed after one step",
          "[impacts][engines]") {
  for (const double v : {0.1, 2.0}) {
    const auto p = point("ode", {{"preset", "engine-default"}, {"bounce", "0.5"}}, v, 1e-5);
    REQUIRE(p["status"] == "ok");
    // The step's gravity, g h = 1e-4, is the difference.
    CHECK(p["rebound"].get<double>() == Approx(0.5 * v).margin(2e-4));
    CHECK(p["contact_duration"].get<double>() == Approx(1e-5).epsilon(1e-9));
  }
  crbench::testing::check_refused(
      {"run", "--case", "dk-plane", "--solver", "ode", "--N", "100", "--bounce", "0.5"},
      "--bounce applies to --preset engine-default only");
}
#endif

#ifdef CRBENCH_HAVE_BULLET
TEST_CASE("impacts: Bullet's default contact stops the ball at the surface", "[impacts][engines]") {
  for (const double h : {1e-3, 2e-2}) {
    const auto p = point("bullet", {{"preset", "engine-default"}}, 20.0, h);
    REQUIRE(p["status"] == "ok");
    CHECK(p["peak_penetration"].get<double>() <= 1e-15);
    CHECK(p["rests"].get<bool>());
  }
}

TEST_CASE(
    "impacts: Bullet's restitution returns e times the impact speed, and nothing below its "
    "restitution velocity threshold 0.2",
    "[impacts][engines]") {
  const std::vector<crbench::Assignment> set{{"preset", "engine-default"}, {"restitution", "0.5"}};
  const auto p = point("bullet", set, 2.0, 1e-5);
  REQUIRE(p["status"] == "ok");
  CHECK(p["rebound"].get<double>() == Approx(1.0).margin(2e-4));
  CHECK(p["tolerances"]["restitution"].get<double>() == 0.5);
  CHECK(point("bullet", set, 0.1, 1e-5)["rests"].get<bool>());
}
#endif

}  // namespace impacts_tests
