// Solver::run as a library call: settings made by hand (not through the command line or
// configure_solver) are checked before any solve, with a message naming the item; settings with
// no parameters get the solver's defaults.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "crbench/cases/registry.hpp"
#include "crbench/solvers/solver.hpp"

namespace crbench::testing::solver_api_tests {
namespace {

std::string refusal_of(const std::string& solver, const RunSettings& settings) {
  const auto model = make_model("dk-plane", {});
  try {
    find_solver(solver).run(*model, settings);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

RunSettings to_horizon() {
  RunSettings s;
  s.t_end = make_model("dk-plane", {})->horizon();
  return s;
}

}  // namespace

TEST_CASE("Solver::run refuses RunSettings{} whose horizon t_end = 0 is not after t0",
          "[api][fast]") {
  for (const char* solver : {"event-driven", "moreau-jean", "realization", "limit"}) {
    const std::string why = refusal_of(solver, RunSettings{});
    INFO(solver << ": " << why);
    CHECK(why.find("t_end = 0 must be a finite time after the initial time") != std::string::npos);
  }
  RunSettings nan_end;
  nan_end.t_end = std::nan("");
  CHECK(refusal_of("event-driven", nan_end).find("t_end = nan") != std::string::npos);
}

TEST_CASE("Solver::run with only a horizon uses the defaults: dk-plane lifts off at 1",
          "[api][fast]") {
  const auto model = make_model("dk-plane", {});
  const RunRecord event_driven = find_solver("event-driven").run(*model, to_horizon());
  REQUIRE(event_driven.status == Status::ok);
  REQUIRE(event_driven.lift_off_time);
  CHECK(std::abs(*event_driven.lift_off_time - 1.0) <= 1e-12);
  CHECK(event_driven.solver_params.at("restitution") == 1.0);
  // The limit model with its default (α, β, γ) preset: Theorem 1 delays the lift-off.
  const RunRecord limit = find_solver("limit").run(*model, to_horizon());
  REQUIRE(limit.status == Status::ok);
  REQUIRE(limit.lift_off_time);
  CHECK(*limit.lift_off_time > 1.0);
}

TEST_CASE("Solver::run names the bad item of hand-made settings", "[api][fast]") {
  RunSettings s = to_horizon();
  s.rtol = 0.0;
  CHECK(refusal_of("event-driven", s).find("parameter 'rtol' = 0 is outside its range") !=
        std::string::npos);
  s = to_horizon();
  s.atol = -1.0;
  CHECK(refusal_of("realization", s).find("'atol'") != std::string::npos);
  s = to_horizon();
  s.max_wall_time = 0.0;
  CHECK(refusal_of("limit", s).find("'max_wall_time'") != std::string::npos);
  s = to_horizon();
  s.output_times = {0.5, 0.25};
  CHECK(refusal_of("event-driven", s).find("output_times[1] = 0.25") != std::string::npos);
  s = to_horizon();
  s.output_times = {s.t_end + 1.0};
  CHECK(refusal_of("event-driven", s).find("output_times[0]") != std::string::npos);

  const auto model = make_model("dk-plane", {});
  RunSettings configured = to_horizon();
  configure_solver(find_solver("moreau-jean"), {}, configured, &model->info());
  s = configured;
  s.solver_params["h"] = -1e-3;
  CHECK(refusal_of("moreau-jean", s).find("parameter 'h' = -0.001 is outside its range") !=
        std::string::npos);
  s = configured;
  s.solver_params["no_such"] = 1.0;
  CHECK(refusal_of("moreau-jean", s).find("solver_params has 'no_such'") != std::string::npos);
  s = configured;
  s.solver_params.erase("theta");
  CHECK(refusal_of("moreau-jean", s).find("solver_params has no 'theta'") != std::string::npos);

  configure_solver(find_solver("realization"), {}, configured, &model->info());
  s = configured;
  s.solver_choices["preset"] = "no-such-preset";
  CHECK(refusal_of("realization", s).find("'no-such-preset' is not one of") != std::string::npos);
  s = configured;
  s.solver_choices["colour"] = "red";
  CHECK(refusal_of("realization", s).find("solver_choices has 'colour'") != std::string::npos);
  // The hand-made settings that configure_solver gives are accepted as they are, also with the
  // preset it records as custom when alpha, beta, gamma are given.
  CHECK(find_solver("realization").run(*model, configured).status == Status::ok);
  configure_solver(find_solver("realization"), {{"alpha", "1"}, {"beta", "1"}, {"gamma", "1"}},
                   configured, &model->info());
  REQUIRE(configured.solver_choices.at("preset") == "custom");
  CHECK(find_solver("realization").run(*model, configured).status == Status::ok);
}

TEST_CASE("Solver::run checks a configuration it has run before as it did the first time",
          "[api][fast]") {
  // run keeps the names each configuration needs (by its choices and the case's own settings for
  // the solver) after its first run; a later run that lacks one of them is refused all the same.
  // bouncing-ball-siconos carries its own h, theta and restitution for moreau-jean (and so takes
  // Newton's law only).
  const Solver& solver = find_solver("moreau-jean");
  const std::vector<std::pair<const char*, const char*>> configurations = {
      {"dk-plane", "newton"}, {"dk-plane", "kozlov-impact"}, {"bouncing-ball-siconos", "newton"}};
  for (const auto& [case_name, law] : configurations) {
    const auto model = make_model(case_name, {});
    RunSettings configured;
    configured.t_end = model->horizon();
    configure_solver(solver, {{"impact_law", law}}, configured, &model->info());
    for (int run = 0; run < 2; ++run) {
      INFO(case_name << ", " << law << ", run " << run);
      CHECK(solver.run(*model, configured).status == Status::ok);
      RunSettings without = configured;
      without.solver_params.erase("theta");
      CHECK_THROWS_WITH(solver.run(*model, without),
                        Catch::Contains("solver_params has no 'theta'"));
      without = configured;
      without.solver_choices.erase("lcp");
      CHECK_THROWS_WITH(solver.run(*model, without),
                        Catch::Contains("solver_choices has no 'lcp'"));
    }
  }
}

}  // namespace crbench::testing::solver_api_tests

namespace crbench::testing::solver_api_tests {

TEST_CASE("Every solver states a shared bound as the one spec of it", "[api][fast]") {
  const auto same = [](const ParamSpec& a, const ParamSpec& b) {
    return a.name == b.name && a.default_value == b.default_value && a.min == b.min &&
           a.max == b.max && a.min_inclusive == b.min_inclusive &&
           a.max_inclusive == b.max_inclusive && a.whole == b.whole &&
           a.description == b.description;
  };
  int bounds = 0;
  for (const auto& solver : solver_registry()) {
    for (const ParamSpec& p : solver->parameter_specs()) {
      INFO(solver->name() << ": " << p.name);
      if (p.name == "event_time_tol") CHECK(same(p, kEventTimeToleranceSpec));
      if (p.name == "max_events") CHECK(same(p, kMaxEventsSpec));
      if (p.name == "max_step_fraction") CHECK(same(p, kMaxStepFractionSpec));
      // An adaptive solver's steps are counted as it goes, a fixed-step one's are known ahead.
      if (p.name == "max_steps") {
        CHECK(same(p, solver->takes_tolerances() ? kMaxStepsSpec : kMaxFixedStepsSpec));
      }
      bounds += p.name.starts_with("max_") || p.name == "event_time_tol" ? 1 : 0;
    }
  }
  CHECK(bounds >= 12);
}

TEST_CASE("Solver::refusal answers for settings not yet configured as for the defaults",
          "[api][fast]") {
  // As Solver::run does, a refusal asked with RunSettings{} reads the defaults (it once looked
  // them up by name and threw std::out_of_range).
  int asked = 0;
  for (const auto& entry : case_registry()) {
    const auto model = make_model(entry.info.name, {});
    for (const auto& solver : solver_registry()) {
      INFO(entry.info.name << " / " << solver->name());
      RunSettings defaults;
      configure_solver(*solver, {}, defaults, &model->info());
      std::optional<std::string> bare, configured;
      REQUIRE_NOTHROW(bare = solver->refusal(*model, RunSettings{}));
      REQUIRE_NOTHROW(configured = solver->refusal(*model, defaults));
      CHECK(bare.has_value() == configured.has_value());
      ++asked;
    }
  }
  CHECK(asked >= 100);
}

TEST_CASE("The limit solver's kinematic motion honours its step bounds", "[api][kinematic]") {
  const auto model = make_model("chaplygin-sled", {});
  RunSettings settings;
  settings.t_end = model->horizon();
  configure_solver(find_solver("limit"), {{"max_steps", "5"}}, settings, &model->info());
  const RunRecord bounded = find_solver("limit").run(*model, settings);
  CHECK(bounded.status == Status::too_many_steps);
  CHECK(bounded.reason == "more than max_steps = 5 steps");
  // A larger step fraction takes fewer steps.
  const auto steps_at = [&](const char* fraction) {
    RunSettings s;
    s.t_end = model->horizon();
    configure_solver(find_solver("limit"), {{"max_step_fraction", fraction}}, s, &model->info());
    const RunRecord r = find_solver("limit").run(*model, s);
    REQUIRE(r.status == Status::ok);
    return r.steps;
  };
  CHECK(steps_at("0.002") > steps_at("0.02"));
}

}  // namespace crbench::testing::solver_api_tests
