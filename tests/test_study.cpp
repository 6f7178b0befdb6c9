// Studies: the schema's errors, determinism across thread counts, --resume, the regeneration of
// the committed canonical numbers, and the convergence orders a small study must show.
#include <sys/resource.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "crbench/bench/cli.hpp"
#include "crbench/bench/observables.hpp"
#include "crbench/bench/points.hpp"
#include "crbench/bench/report.hpp"
#include "crbench/bench/run_support.hpp"
#include "crbench/bench/study.hpp"
#include "crbench/cases/registry.hpp"
#include "support.hpp"

namespace study_tests {

namespace fs = std::filesystem;
using crbench::InputError;
using nlohmann::json;

namespace {

const std::string kData = CRBENCH_TEST_DATA;

json valid_study() {
  return json::parse(R"({
    "name": "t", "case": "dk-plane",
    "N": {"from": 100, "to": 10000},
    "models": [{"label": "viscous", "solver": "realization", "set": {"preset": "viscous"}}]
  })");
}

// A study's glance table with the caption "c".
json glance(const std::vector<double>& at, const std::vector<std::string>& observables,
            const std::vector<std::string>& models) {
  return {{"caption", "c"}, {"at", at}, {"observables", observables}, {"models", models}};
}

// The message of the InputError parse_study throws (empty when it does not throw).
std::string error_of(const json& j) {
  try {
    crbench::parse_study(j);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string read(const fs::path& p) { return crbench::testing::read_text_file(p); }

fs::path fresh_dir(const std::string& name) { return crbench::testing::fresh_dir(name); }

crbench::ConvergeResult converge(const fs::path& dir, int jobs, bool resume = false) {
  crbench::ConvergeOptions options;
  options.out_dir = dir.string();
  options.jobs = jobs;
  options.resume = resume;
  options.figures = false;
  return crbench::run_study(crbench::load_study(kData + "/studies/small.json"), options);
}

// Every deterministic output of a study folder (the work-precision timings are not).
std::vector<std::string> deterministic_files() {
  return {"study.json",
          "lift_off_time.json",
          "lift_off_time.csv",
          "lift_off_time.md",
          "lift_off_time.tex",
          "max_q_deviation.json",
          "final_q_deviation.json",
          "models.csv",
          "models.tex",
          "trajectories/viscous.N1e2.csv",
          "trajectories/viscous.limit.csv",
          "points.jsonl"};
}

}  // namespace

TEST_CASE("a valid study parses with its defaults", "[study]") {
  const auto study = crbench::parse_study(valid_study());
  CHECK(study.ladder.size() == 3);
  CHECK(study.models[0].has_ladder);
  CHECK(study.models[0].axis == crbench::LadderAxis::N);
  CHECK(study.models[0].reference == "limit");
  CHECK(study.rtol == 1e-12);
  CHECK(study.observables.size() == 3);
}

TEST_CASE("a model may run an N ladder of its own", "[study]") {
  // More rungs a decade over a shorter span than the study's (a costly model).
  json j = valid_study();
  j["models"].push_back(
      {{"label", "own"},
       {"solver", "realization"},
       {"set", {{"preset", "viscous"}}},
       {"ladder", {{"axis", "N"}, {"from", 1e3}, {"to", 1e4}, {"per_decade", 3}}}});
  const auto study = crbench::parse_study(j);
  REQUIRE(study.models.size() == 2);
  CHECK(study.models[0].ladder == study.ladder);
  const auto& own = study.models[1];
  CHECK(own.axis == crbench::LadderAxis::N);
  REQUIRE(own.ladder.size() == 4);
  CHECK(own.ladder.front() == Approx(1e3));
  CHECK(own.ladder[1] == Approx(std::pow(10.0, 3.0 + 1.0 / 3.0)));
  CHECK(own.ladder.back() == Approx(1e4));
}

TEST_CASE("malformed studies name the field", "[study]") {
  struct Bad {
    std::string what;
    std::function<void(json&)> edit;
    std::string expected;
  };
  const std::vector<Bad> cases{
      {"missing name", [](json& j) { j.erase("name"); }, "study.name: missing"},
      {"bad name", [](json& j) { j["name"] = "a b"; }, "study.name:"},
      {"unknown case", [](json& j) { j["case"] = "nope"; }, "study.case:"},
      {"unknown top field", [](json& j) { j["ladder"] = 1; }, "study.ladder: unknown field"},
      {"bad case parameter",
       [](json& j) {
         j["params"] = {{"g", -1}};
       },
       "study.params:"},
      {"N from negative", [](json& j) { j["N"]["from"] = -1; }, "study.N.from:"},
      {"N to below from", [](json& j) { j["N"]["to"] = 10; }, "study.N.to:"},
      {"N text", [](json& j) { j["N"]["to"] = "1e4"; }, "study.N.to: must be a number"},
      {"paths x neither an index nor t",
       [](json& j) {
         j["paths"] = {{"models", {"viscous"}}, {"N", {100}}, {"x", "time"}};
       },
       "study.paths.x: a coordinate index, 0 to 1, or \"t\""},
      {"per decade fraction", [](json& j) { j["N"]["per_decade"] = 1.5; }, "study.N.per_decade:"},
      {"rtol out of range",
       [](json& j) {
         j["tolerances"] = {{"rtol", 2.0}};
       },
       "study.tolerances.rtol:"},
      {"model rtol out of range",
       [](json& j) {
         j["models"][0]["tolerances"] = {{"rtol", 2.0}};
       },
       "study.models[0].tolerances.rtol:"},
      {"model tolerances misspelt",
       [](json& j) {
         j["models"][0]["tolerances"] = {{"atoll", 1e-10}};
       },
       "study.models[0].tolerances.atoll: unknown field"},
      {"log power without an order",
       [](json& j) {
         j["models"][0]["log_power"] = {{"lift_off_time", 1}};
       },
       "study.models[0].log_power.lift_off_time: needs an expected_order"},
      {"log power not a whole number",
       [](json& j) {
         j["models"][0]["expected_order"] = {{"lift_off_time", 0.5}};
         j["models"][0]["log_power"] = {{"lift_off_time", 1.5}};
       },
       "study.models[0].log_power.lift_off_time: must be 1, 2 or 3"},
      {"log power with coefficient powers",
       [](json& j) {
         j["models"][0]["expected_order"] = {{"lift_off_time", 0.5}};
         j["models"][0]["log_power"] = {{"lift_off_time", 1}};
         j["models"][0]["expected_coefficients"] = {{"lift_off_time", {1.0, 2.0}}};
         j["models"][0]["coefficient_powers"] = {{"lift_off_time", {0.5, 1.0}}};
       },
       "study.models[0].coefficient_powers.lift_off_time: not with log_power"},
      {"fit_from on a short ladder",
       [](json& j) {
         j["models"][0]["fit_from"] = {{"lift_off_time", 1000}};
       },
       "study.models[0].fit_from.lift_off_time: only for a model with a ladder of at least 4 "
       "rungs"},
      {"fit_from not a rung that leaves three",
       [](json& j) {
         j["N"]["to"] = 1e6;
         j["models"][0]["fit_from"] = {{"lift_off_time", 1e5}};
       },
       "study.models[0].fit_from.lift_off_time: must be one of the model's rungs that leaves at "
       "least 3 to fit and is not its coarsest: 1e3, 1e4"},
      {"fit_from of another observable",
       [](json& j) {
         j["N"]["to"] = 1e6;
         j["models"][0]["fit_from"] = {{"post_impact_velocity", 1e3}};
       },
       "study.models[0].fit_from.post_impact_velocity: not one of the study's observables"},
      {"no coefficient stated",
       [](json& j) {
         j["models"][0]["expected_order"] = {{"lift_off_time", 0.5}};
         j["models"][0]["expected_coefficients"] = {{"lift_off_time", {nullptr, nullptr}}};
       },
       "study.models[0].expected_coefficients.lift_off_time: states no coefficient"},
      {"model tolerances on a fixed-step solver",
       [](json& j) {
         j["models"][0] = {
             {"label", "mj"}, {"solver", "moreau-jean"}, {"tolerances", {{"rtol", 1e-9}}}};
       },
       "study.models[0].tolerances: solver moreau-jean takes no tolerances"},
      {"model tight twin below the smallest rtol",
       [](json& j) {
         j["models"][0]["tolerances"] = {{"rtol", 1e-14}, {"tight_factor", 100}};
       },
       "study.models[0].tolerances.tight_factor:"},
      {"unknown observable", [](json& j) { j["observables"] = {"speed"}; },
       "study.observables[0]:"},
      {"models empty", [](json& j) { j["models"] = json::array(); }, "study.models:"},
      {"unknown solver", [](json& j) { j["models"][0]["solver"] = "rk4"; },
       "study.models[0].solver:"},
      {"misspelt model field", [](json& j) { j["models"][0]["referance"] = "limit"; },
       "study.models[0].referance: unknown field"},
      {"bad preset", [](json& j) { j["models"][0]["set"]["preset"] = "stiff"; },
       "study.models[0].set:"},
      {"N in set", [](json& j) { j["models"][0]["set"]["N"] = 5; }, "study.models[0].set.N:"},
      {"all zero",
       [](json& j) {
         j["models"][0]["set"] = {{"alpha", 0}, {"beta", 0}, {"gamma", 0}};
       },
       "study.models[0].set:"},
      {"N_max too small", [](json& j) { j["models"][0]["N_max"] = 200; }, "study.models[0].N_max:"},
      {"bad reference", [](json& j) { j["models"][0]["reference"] = "truth"; },
       "study.models[0].reference:"},
      {"ladder over a name the solver does not have",
       [](json& j) {
         j["models"][0]["ladder"] = {{"axis", "zeta"}, {"from", 0.1}, {"to", 1e-3}};
       },
       "study.models[0].ladder.axis: 'zeta' is not h, rtol or a parameter of solver realization"},
      {"parameter ladder with its parameter in set",
       [](json& j) {
         j["models"][0] = {{"label", "a"},
                           {"solver", "limit"},
                           {"set", {{"alpha", 0.1}, {"beta", 1}, {"gamma", 0}}},
                           {"ladder", {{"axis", "alpha"}, {"from", 0.1}, {"to", 1e-3}}},
                           {"reference", "limit"},
                           {"reference_set", {{"alpha", 0}}}};
       },
       "study.models[0].set.alpha: alpha comes from the model's ladder"},
      {"parameter ladder against its own solver without the parameter's limit",
       [](json& j) {
         j["models"][0] = {{"label", "a"},
                           {"solver", "limit"},
                           {"set", {{"beta", 1}, {"gamma", 0}}},
                           {"ladder", {{"axis", "alpha"}, {"from", 0.1}, {"to", 1e-3}}},
                           {"reference", "limit"}};
       },
       "study.models[0].reference_set: a ladder in alpha against limit needs the limit value"},
      {"coefficients without an order",
       [](json& j) {
         j["models"][0]["expected_coefficients"] = {{"lift_off_time", {1, 0}}};
       },
       "study.models[0].expected_coefficients.lift_off_time: needs an expected_order"},
      {"reference settings on the limit",
       [](json& j) {
         j["models"][0]["reference_set"] = {{"restitution", 1}};
       },
       "study.models[0].reference_set: only a solver reference takes settings"},
      {"reference settings out of range",
       [](json& j) {
         j["models"][0]["reference"] = "event-driven";
         j["models"][0]["reference_set"] = {{"restitution", 5}};
       },
       "study.models[0].reference_set: solver event-driven: parameter 'restitution'"},
      {"value reference without values", [](json& j) { j["models"][0]["reference"] = "value"; },
       "study.models[0].reference_values: required with reference \"value\""},
      {"value reference of an observable the study does not have",
       [](json& j) {
         j["models"][0]["reference"] = "value";
         j["models"][0]["reference_values"] = {{"z_first_zero", 0}};
         j["models"][0]["reference_source"] = "theory";
       },
       "study.models[0].reference_values.z_first_zero: not one of the study's observables"},
      {"value reference without its source",
       [](json& j) {
         j["models"][0]["reference"] = "value";
         j["models"][0]["reference_values"] = {{"lift_off_time", 1}};
       },
       "study.models[0].reference_source: required with reference \"value\""},
      {"reference values on another reference",
       [](json& j) {
         j["models"][0]["reference_values"] = {{"lift_off_time", 1}};
       },
       "study.models[0].reference_values: only with reference \"value\""},
      {"t_end before the start", [](json& j) { j["t_end"] = 0; }, "study.t_end:"},
      {"coefficient powers not starting at the order",
       [](json& j) {
         j["models"][0]["expected_order"] = {{"lift_off_time", 1}};
         j["models"][0]["expected_coefficients"] = {{"lift_off_time", {1, 0}}};
         j["models"][0]["coefficient_powers"] = {{"lift_off_time", {0.5, 0.75}}};
       },
       "study.models[0].coefficient_powers.lift_off_time[0]: 0.5 must be the expected order 1"},
      {"coefficient powers not increasing",
       [](json& j) {
         j["models"][0]["expected_order"] = {{"lift_off_time", 1}};
         j["models"][0]["expected_coefficients"] = {{"lift_off_time", {1, 0}}};
         j["models"][0]["coefficient_powers"] = {{"lift_off_time", {1, 0.5}}};
       },
       "study.models[0].coefficient_powers.lift_off_time: must be an array of 2 increasing"},
      {"ladder in a case parameter against a solver",
       [](json& j) {
         j["models"][0] = {{"label", "a"},
                           {"case", "body-with-channel"},
                           {"solver", "event-driven"},
                           {"ladder", {{"axis", "E"}, {"from", 1e-2}, {"to", 1e-4}}},
                           {"reference", "limit"}};
       },
       "study.models[0].reference: a ladder in the case's parameter E is measured against "
       "\"value\""},
      {"ladder in a case parameter the model also sets",
       [](json& j) {
         j["models"][0] = {{"label", "a"},
                           {"case", "body-with-channel"},
                           {"params", {{"E", 1e-3}}},
                           {"solver", "event-driven"},
                           {"ladder", {{"axis", "E"}, {"from", 1e-2}, {"to", 1e-4}}},
                           {"reference", "value"},
                           {"reference_values", {{"lift_off_time", 0}}},
                           {"reference_source", "theory"}};
       },
       "study.models[0].params.E: E comes from the model's ladder"},
      {"ladder in a case parameter beyond its range",
       [](json& j) {
         j["models"][0] = {{"label", "a"},
                           {"case", "body-with-channel"},
                           {"solver", "event-driven"},
                           {"ladder", {{"axis", "E"}, {"from", 1e4}, {"to", 1e-4}}},
                           {"reference", "value"},
                           {"reference_values", {{"lift_off_time", 0}}},
                           {"reference_source", "theory"}};
       },
       "study.models[0].ladder.from:"},
      {"duplicate label", [](json& j) { j["models"].push_back(j["models"][0]); },
       "study.models[1].label:"},
      {"expected order of a missing observable",
       [](json& j) {
         j["observables"] = {"lift_off_time"};
         j["models"][0]["expected_order"] = {{"max_q_deviation", 1}};
       },
       "study.models[0].expected_order.max_q_deviation:"},
      {"glance of a model without a ladder",
       [](json& j) { j["glance"] = glance({1e2}, {"lift_off_time"}, {"x"}); },
       "study.glance.models[0]: \"x\" is not the label of a ladder model"},
      {"glance of models on two axes",
       [](json& j) {
         j["models"].push_back({{"label", "mj"},
                                {"solver", "moreau-jean"},
                                {"ladder", {{"axis", "h"}, {"from", 1e-2}, {"to", 1e-4}}}});
         j["glance"] = glance({1e2}, {"lift_off_time"}, {"viscous", "mj"});
       },
       "study.glance.models[1]: 'mj' runs a ladder in h, the first in N"},
      {"glance of an observable the study does not measure",
       [](json& j) { j["glance"] = glance({1e2}, {"energy_drift"}, {"viscous"}); },
       "study.glance.observables[0]: \"energy_drift\" is not one of the study's observables"},
      {"glance at a rung of 0",
       [](json& j) { j["glance"] = glance({0}, {"lift_off_time"}, {"viscous"}); },
       "study.glance.at[0]:"},
      {"collapse of an unknown model",
       [](json& j) {
         j["collapse"] = {{"model", "x"}, {"N", {1e2}}};
       },
       "study.collapse.model:"},
      {"work precision without series", [](json& j) { j["work_precision"] = json::object(); },
       "study.work_precision.series: missing"},
      {"work precision bad vary",
       [](json& j) {
         j["work_precision"] = {{"series",
                                 {{{"label", "a"},
                                   {"solver", "event-driven"},
                                   {"vary", "speed"},
                                   {"values", {1e-6, 1e-8}}}}}};
       },
       "study.work_precision.series[0].vary:"},
      {"work precision h of a solver without h",
       [](json& j) {
         j["work_precision"] = {{"series",
                                 {{{"label", "a"},
                                   {"solver", "event-driven"},
                                   {"vary", "h"},
                                   {"values", {1e-2, 1e-3}}}}}};
       },
       "study.work_precision.series[0].vary:"},
      {"an h ladder of a solver without h",
       [](json& j) {
         j["models"][0] = {{"label", "ed"},
                           {"solver", "event-driven"},
                           {"ladder", {{"axis", "h"}, {"from", 1e-2}, {"to", 1e-4}}}};
       },
       "study.models[0].ladder.axis: solver event-driven has no step h"},
      {"an rtol ladder of a fixed-step solver",
       [](json& j) {
         j["models"][0] = {{"label", "mj"},
                           {"solver", "moreau-jean"},
                           {"ladder", {{"axis", "rtol"}, {"from", 1e-4}, {"to", 1e-8}}}};
       },
       "study.models[0].ladder.axis: solver moreau-jean takes no rtol"},
      {"an N ladder of a solver without N",
       [](json& j) {
         j["models"][0] = {{"label", "e"},
                           {"solver", "event-driven"},
                           {"ladder", {{"axis", "N"}, {"from", 1e2}, {"to", 1e4}}}};
       },
       "study.models[0].ladder.axis: solver event-driven has no N"},
      {"an N ladder from fine to coarse",
       [](json& j) {
         j["models"][0]["ladder"] = {{"axis", "N"}, {"from", 1e4}, {"to", 1e2}};
       },
       "study.models[0].ladder.to: "},
      {"a parameter ladder down to 0",
       [](json& j) {
         j["models"][0] = {{"label", "a"},
                           {"solver", "limit"},
                           {"set", {{"beta", 1}, {"gamma", 0}}},
                           {"ladder", {{"axis", "alpha"}, {"from", 0.1}, {"to", 0}}},
                           {"reference", "limit"},
                           {"reference_set", {{"alpha", 0}}}};
       },
       "study.models[0].ladder.to: 0 is outside (0, 0.1]"},
      {"a parameter ladder from a negative value",
       [](json& j) {
         j["models"][0] = {{"label", "s"},
                           {"solver", "event-driven"},
                           {"case", "kirgetov-bicycle"},
                           {"ladder", {{"axis", "sigma0"}, {"from", -1}, {"to", -10}}}};
       },
       "study.models[0].ladder.from: -1 is outside (0, 1000]"},
      {"an h ladder from fine to coarse",
       [](json& j) {
         j["models"][0] = {{"label", "mj"},
                           {"solver", "moreau-jean"},
                           {"ladder", {{"axis", "h"}, {"from", 1e-4}, {"to", 1e-2}}}};
       },
       "study.models[0].ladder.to:"},
      {"an h ladder against the limit",
       [](json& j) {
         j["models"][0] = {{"label", "mj"},
                           {"solver", "moreau-jean"},
                           {"reference", "limit"},
                           {"ladder", {{"axis", "h"}, {"from", 1e-2}, {"to", 1e-4}}}};
       },
       "study.models[0].reference: an h ladder is measured against"},
      {"an h ladder against its own solver",
       [](json& j) {
         j["models"][0] = {{"label", "mj"},
                           {"solver", "moreau-jean"},
                           {"reference", "moreau-jean"},
                           {"ladder", {{"axis", "h"}, {"from", 1e-2}, {"to", 1e-4}}}};
       },
       "study.models[0].reference: an h ladder of moreau-jean needs a reference from another"},
      {"an N ladder without study.N", [](json& j) { j.erase("N"); },
       "study.N: required: model 'viscous'"},
  };
  for (const auto& c : cases) {
    INFO(c.what);
    json j = valid_study();
    c.edit(j);
    const std::string message = error_of(j);
    CHECK_THAT(message, Catch::Matchers::StartsWith(c.expected));
  }
}

TEST_CASE("a study's h and rtol ladders: rungs as written, order 1 of Moreau-Jean, flags",
          "[study][ladder-axis]") {
  const json j = json::parse(R"({
    "name": "steps", "case": "dk-plane",
    "observables": ["lift_off_time", "max_q_deviation"],
    "models": [
      {"label": "mj", "solver": "moreau-jean", "reference": "closed-form",
       "ladder": {"axis": "h", "from": 3e-2, "to": 3e-5},
       "expected_order": {"max_q_deviation": 1}},
      {"label": "ed", "solver": "event-driven", "reference": "closed-form",
       "ladder": {"axis": "rtol", "from": 1e-4, "to": 1e-8, "per_decade": 1}}
    ],
    "glance": {"caption": "The step's error.", "at": [3e-3, 1e-9],
               "observables": ["max_q_deviation", "lift_off_time"], "models": ["mj"]}
  })");
  const auto study = crbench::parse_study(j);
  REQUIRE(study.models[0].ladder.size() == 4);
  CHECK(study.models[0].ladder[1] == 3e-3);  // coarse / 10^i, as written
  CHECK(study.models[0].ladder[3] == 3e-5);
  CHECK(study.models[1].ladder == std::vector<double>{1e-4, 1e-5, 1e-6, 1e-7, 1e-8});
  const fs::path dir = fresh_dir("study_steps");
  crbench::ConvergeOptions options;
  options.out_dir = dir.string();
  options.figures = false;
  const auto result = crbench::run_study(study, options);
  const auto& models = result.summary["models"];
  const auto& mj = models[0];
  INFO(mj.dump(1));
  CHECK(mj["axis"] == "h");
  CHECK(mj["confirmed"] == true);
  CHECK(mj["judged_observable"] == "max_q_deviation");
  CHECK(mj["observables"]["max_q_deviation"]["fit"]["fitted_order"].get<double>() ==
        Approx(1.0).margin(0.05));
  for (const auto& row : mj["observables"]["max_q_deviation"]["rows"]) {
    CHECK(row["h"].is_number());
    CHECK(row["flagged"] == false);
  }
  // dk-plane's classical motion is piecewise quadratic: DOP853 integrates it exactly, so every
  // row of the event-driven rtol ladder is at round-off, flagged, and no order is fitted.
  const auto& ed = models[1];
  CHECK(ed["axis"] == "rtol");
  for (const auto& row : ed["observables"]["lift_off_time"]["rows"]) {
    CHECK(row["flag"] == "ROUND-OFF");
  }
  CHECK(ed["verdict"].get<std::string>().rfind("NO RATE STATED", 0) == 0);
  // Rows of the tables carry the rung with its axis.
  CHECK(read(dir / "max_q_deviation.md").find("| mj | h 0.003 |") != std::string::npos);
  CHECK(read(dir / "max_q_deviation.md").find("| mj | h 3e-05 |") != std::string::npos);
  // The README opens with the glance table: the rows' errors at the rungs asked for, "-" at a
  // rung the ladder does not have, "0" for an error of exactly 0 (the lift-off at a step's end).
  crbench::write_study_readme(study, result, dir, "steps.json", "crbench", "");
  const std::string readme = read(dir / "README.md");
  const auto cell = [&](const char* observable) {
    const auto& row = mj["observables"][observable]["rows"][1];
    REQUIRE(row["h"] == 3e-3);
    if (row["error"] == 0.0) return std::string("0");
    char error[32];
    std::snprintf(error, sizeof error, "%.2e", row["error"].get<double>());
    return std::string(error) + (row["flagged"] == true ? " (f)" : "");
  };
  INFO(readme);
  CHECK(readme.find("### At a glance\n\nThe step's error.") < readme.find("### steps: models"));
  CHECK(readme.find("| model | settings | max_q_deviation at h 0.003 | max_q_deviation at h "
                    "1e-9 | lift_off_time at h 0.003 | lift_off_time at h 1e-9 |") !=
        std::string::npos);
  CHECK(readme.find("| mj | moreau-jean, defaults | " + cell("max_q_deviation") + " | - | " +
                    cell("lift_off_time") + " | - |") != std::string::npos);
}

TEST_CASE("a model whose case has other units carries them into study.json (figure axes)",
          "[study]") {
  const json j = json::parse(R"({
    "name": "units", "case": "dk-plane", "observables": ["lift_off_time", "max_q_deviation"],
    "models": [
      {"label": "plane", "solver": "moreau-jean", "ladder": {"axis": "h", "from": 1e-2, "to": 1e-4}},
      {"label": "circle", "case": "particle-on-circle", "solver": "moreau-jean",
       "ladder": {"axis": "h", "from": 1e-2, "to": 1e-4}}
    ]
  })");
  crbench::ConvergeOptions options;
  options.out_dir = fresh_dir("study_units").string();
  options.figures = false;
  const auto result = crbench::run_study(crbench::parse_study(j), options);
  const auto& models = result.summary["models"];
  CHECK(result.summary["observable_units"]["max_q_deviation"] == "length");
  CHECK_FALSE(models[0].contains("observable_units"));
  // (r, theta): a length and an angle; the lift-off's unit, time, is the study's.
  CHECK(models[1]["observable_units"].size() == 1);
  CHECK(models[1]["observable_units"]["max_q_deviation"] == "length; angle (rad)");
}

TEST_CASE("a solver reference runs the settings of reference_set", "[study]") {
  // The penalty wall's limit is the elastic impact; bouncing-ball-siconos carries Newton's 0.9
  // for event-driven, which reference_set replaces by 1: the reference's rebound is then
  // sqrt(2 g h0) = 4.4294469973 instead of 0.9 of it.
  const json j = json::parse(R"({
    "name": "elastic", "case": "bouncing-ball-siconos",
    "N": {"from": 1e4, "to": 1e6, "per_decade": 1},
    "observables": ["post_impact_velocity"], "digits": 2,
    "models": [{"label": "penalty", "solver": "realization", "set": {"preset": "penalty"},
                "reference": "event-driven", "reference_set": {"restitution": 1},
                "expected_order": {"post_impact_velocity": 0.5}}]
  })");
  const auto study = crbench::parse_study(j);
  REQUIRE(study.models[0].reference_assignments.size() == 1u);
  const fs::path dir = fresh_dir("study_reference_set");
  crbench::ConvergeOptions options;
  options.out_dir = dir.string();
  options.figures = false;
  const auto result = crbench::run_study(study, options);
  const auto& model = result.summary["models"][0];
  INFO(model["reference"].dump());
  CHECK(model["reference"]["set"]["restitution"] == "1");
  const double rebound = model["reference"]["values"]["post_impact_velocity"].get<double>();
  CHECK(rebound == Approx(std::sqrt(2.0 * 9.81)).epsilon(1e-9));
  // The undamped wall returns the ball with its speed: every row's error is round-off or small.
  for (const auto& row : model["observables"]["post_impact_velocity"]["rows"]) {
    CHECK(std::abs(row["error"].get<double>()) < 1e-6);
  }
}

TEST_CASE("a model's own tolerances reach its runs, its twins, its reference and its keys",
          "[study]") {
  // Two models of one study, one at the study's tolerances and one at its own: each row, tight
  // twin and reference runs at its model's, and a change of one model's tolerances computes that
  // model's points again and no other's.
  json j = json::parse(R"({
    "name": "own-tolerances", "case": "dk-plane",
    "N": {"from": 100, "to": 10000}, "observables": ["lift_off_time"],
    "tolerances": {"rtol": 1e-10, "atol": 1e-12, "tight_factor": 10},
    "models": [
      {"label": "study's", "solver": "realization", "set": {"preset": "viscous"}},
      {"label": "own", "solver": "realization", "set": {"preset": "viscous"},
       "reference": "event-driven",
       "tolerances": {"rtol": 1e-9, "atol": 1e-8, "tight_factor": 4}}]
  })");
  const auto study = crbench::parse_study(j);
  CHECK_FALSE(study.models[0].own_tolerances);
  CHECK(study.models[0].rtol == 1e-10);
  CHECK(study.models[0].tight_factor == 10);
  CHECK(study.models[1].own_tolerances);
  CHECK(study.models[1].rtol == 1e-9);
  CHECK(study.models[1].atol == 1e-8);
  CHECK(study.models[1].tight_factor == 4);

  const fs::path dir = fresh_dir("study_own_tolerances");
  crbench::ConvergeOptions options;
  options.out_dir = dir.string();
  options.figures = false;
  const auto first = crbench::run_study(study, options);
  REQUIRE(first.points_computed == 6);
  std::ifstream in(dir / "points.jsonl");
  int lines = 0;
  for (std::string text; std::getline(in, text); ++lines) {
    const json line = json::parse(text);
    const bool own = line["model"] == "own";
    INFO(text);
    CHECK(line["tolerances"]["rtol"] == (own ? 1e-9 : 1e-10));
    CHECK(line["tolerances"]["atol"] == (own ? 1e-8 : 1e-12));
    CHECK(line["tight_tolerances"]["rtol"].get<double>() == Approx(own ? 2.5e-10 : 1e-11));
    CHECK(line["tight_tolerances"]["atol"].get<double>() == Approx(own ? 2.5e-9 : 1e-13));
  }
  CHECK(lines == 6);
  const auto& models = first.summary["models"];
  CHECK_FALSE(models[0].contains("tolerances"));
  CHECK(models[1]["tolerances"]["tight_rtol"] == 2.5e-10);
  // The event-driven reference runs at the model's tight tolerances.
  CHECK_THAT(
      models[1]["reference"]["tolerances"].get<std::string>(),
      Catch::Matchers::Contains("rtol 2.5e-10") && Catch::Matchers::Contains("atol 2.5e-09"));
  CHECK(first.summary["tolerances"]["rtol"] == 1e-10);
  CHECK(models[1]["observables"]["lift_off_time"]["rows"].size() == 3u);

  options.resume = true;
  CHECK(crbench::run_study(crbench::parse_study(j), options).points_computed == 0);
  j["models"][1]["tolerances"]["atol"] = 1e-9;
  CHECK(crbench::run_study(crbench::parse_study(j), options).points_computed == 3);
}

TEST_CASE("study files that do not parse or misspell a field are input errors", "[study]") {
  CHECK_THROWS_WITH(crbench::load_study(kData + "/studies/malformed.json"),
                    Catch::Matchers::Contains("is not valid JSON (at byte"));
  CHECK_THROWS_WITH(crbench::load_study(kData + "/studies/misspelt-field.json"),
                    Catch::Matchers::StartsWith("study.models[0].referance: unknown field"));
  CHECK_THROWS_WITH(crbench::load_study(kData + "/studies/none.json"),
                    Catch::Matchers::StartsWith("--study: cannot open"));
}

TEST_CASE("a study gives byte-identical files with 1 and 2 threads and after a resume",
          "[study][slow]") {
  const fs::path one = fresh_dir("study_one"), two = fresh_dir("study_two");
  const auto r1 = converge(one, 1);
  const auto r2 = converge(two, 2);
  CHECK(r1.points_computed == r1.points_total);
  for (const auto& f : deterministic_files()) {
    INFO(f);
    REQUIRE(fs::exists(one / f));
    CHECK(read(one / f) == read(two / f));
  }

  // An interrupted run: two finished points and a line cut short.
  std::ifstream in(two / "points.jsonl");
  std::string first, second;
  std::getline(in, first);
  std::getline(in, second);
  in.close();
  std::ofstream(two / "points.jsonl", std::ios::trunc) << first << "\n"
                                                       << second << "\n"
                                                       << first.substr(0, first.size() / 2);
  const auto resumed = converge(two, 2, true);
  CHECK(resumed.points_computed == resumed.points_total - 2);
  for (const auto& f : deterministic_files()) {
    INFO(f);
    CHECK(read(one / f) == read(two / f));
  }
  // points.jsonl ends complete, one line per point in point order.
  std::ifstream lines(two / "points.jsonl");
  int count = 0;
  for (std::string line; std::getline(lines, line);) {
    CHECK(json::parse(line).contains("key"));
    ++count;
  }
  CHECK(count == resumed.points_total);
}

TEST_CASE("a small study shows the orders of the theory and regenerates the committed numbers",
          "[study][slow]") {
  const fs::path dir = fresh_dir("study_regenerate");
  const auto result = converge(dir, 2);
  const auto& models = result.summary["models"];
  REQUIRE(models.size() == 3);
  // classical against the closed form; viscous order 1 and obstacle order 0.5 over 1e2…1e4.
  CHECK(std::abs(models[0]["observables"]["lift_off_time"]["rows"][0]["error"].get<double>()) <
        1e-14);
  CHECK(models[1]["observables"]["lift_off_time"]["fit"]["fitted_order"].get<double>() ==
        Approx(1.0).margin(0.05));
  CHECK(models[1]["observables"]["lift_off_time"]["fit"]["agrees"].get<bool>());
  CHECK(models[2]["observables"]["lift_off_time"]["fit"]["fitted_order"].get<double>() ==
        Approx(0.5).margin(0.05));
  // Richardson on three points of the viscous ladder: τ_N = 2 + 1/N + O(1/N²) → 2.
  CHECK(models[1]["extrapolation"]["limit"].get<double>() == Approx(2.0).margin(1e-9));

  // The committed canonical results (results/studies/dk-plane, written by `crbench report` at the
  // same tolerances): every lift-off of these models and N must agree to 1e-10 relative.
  const fs::path committed =
      fs::path(CRBENCH_TEST_DATA) / "../../results/studies/dk-plane/lift_off_time.json";
  REQUIRE(fs::exists(committed));
  const json canonical = json::parse(read(committed));
  int compared = 0;
  for (const auto& m : models) {
    for (const auto& cm : canonical["models"]) {
      if (cm["label"].dump() != m["label"].dump()) continue;
      for (const auto& row : m["observables"]["lift_off_time"]["rows"]) {
        for (const auto& crow : cm["rows"]) {
          if (crow["N"].dump() != row["N"].dump()) continue;
          INFO(m["label"].get<std::string>() << " N = " << row["N"].dump());
          CHECK(row["value"].get<double>() == Approx(crow["value"].get<double>()).epsilon(1e-10));
          ++compared;
        }
      }
    }
  }
  CHECK(compared == 7);  // classical + 3 viscous + 3 obstacle
}

TEST_CASE("converge runs the figures without a shell, and no model label writes outside --out",
          "[study][security]") {
  const fs::path base = fresh_dir("hostile");
  fs::create_directories(base);
  // The figures command once went through std::system with --out in single quotes: this --out
  // ran the touch.
  const fs::path marker = base / "PWNED";
  const fs::path out = base / ("x';touch " + marker.string() + ";'");
  json study = json::parse(R"({
    "name": "hostile", "case": "dk-plane", "samples": 101,
    "N": {"from": 100, "to": 10000},
    "observables": ["lift_off_time"],
    "models": [{"label": "../../escaped", "solver": "realization", "set": {"preset": "viscous"},
                "expected_order": {"lift_off_time": 1}}],
    "paths": {"models": ["../../escaped"], "N": [100]}
  })");
  crbench::ConvergeOptions options;
  options.out_dir = out.string();
  options.jobs = 2;
  options.figures = true;
  const crbench::ConvergeResult result = crbench::run_study(crbench::parse_study(study), options);
  CHECK(result.points_computed == result.points_total);
  CHECK_FALSE(fs::exists(marker));
  // Every file the study wrote is inside --out, the trajectories inside out/trajectories.
  const std::string inside = fs::weakly_canonical(out).string() + "/";
  long files = 0, trajectories = 0;
  for (const auto& entry : fs::recursive_directory_iterator(base)) {
    if (!entry.is_regular_file()) continue;
    const std::string path = fs::weakly_canonical(entry.path()).string();
    INFO(path);
    CHECK(path.rfind(inside, 0) == 0);
    ++files;
    if (entry.path().parent_path().filename() == "trajectories") ++trajectories;
  }
  CHECK(files > 0);
  CHECK(trajectories == 2);  // the realization at N = 100 and its limit
  fs::remove_all(base);
}

TEST_CASE("a study's figures drawn on a queue: on_finished after them, the same folder as at once",
          "[study]") {
  const auto study = crbench::load_study(kData + "/studies/small.json");
  std::vector<fs::path> dirs;
  std::vector<crbench::ConvergeResult> finished;
  crbench::FigureQueue queue;
  for (const bool queued : {false, true}) {
    crbench::ConvergeOptions options;
    dirs.push_back(fresh_dir(queued ? "figures-queued" : "figures-at-once"));
    options.out_dir = dirs.back().string();
    options.jobs = 2;
    options.figures = true;
    options.figure_queue = queued ? &queue : nullptr;
    options.on_finished = [&finished](const crbench::ConvergeResult& r) { finished.push_back(r); };
    const crbench::ConvergeResult result = crbench::run_study(study, options);
    // Queued: the figures are not drawn yet when run_study returns.
    if (queued) CHECK(result.figures_message.empty());
  }
  queue.wait();
  REQUIRE(finished.size() == 2u);
  CHECK(finished[0].figures_written == finished[1].figures_written);
  CHECK(finished[0].figures_message == finished[1].figures_message);
  CHECK(finished[1].summary == finished[0].summary);
  // The manifest lists the figures either way.
  CHECK(crbench::testing::read_text_file(dirs[0] / "manifest.txt") ==
        crbench::testing::read_text_file(dirs[1] / "manifest.txt"));
  CHECK(queue.drawn() == (finished[1].figures_written ? 1 : 0));
  for (const auto& dir : dirs) fs::remove_all(dir);
}

TEST_CASE("a figure queue runs its jobs in order, waits for them, and rethrows a job's exception",
          "[study]") {
  const fs::path dir = fresh_dir("figure-queue");
  fs::create_directories(dir);
  crbench::FigureQueue queue;
  std::vector<int> order;
  std::vector<std::string> failures;
  for (int i = 0; i < 3; ++i) {
    // A folder without a study: the script says so, and the job hears why.
    queue.submit(dir, [&order, &failures, i](const std::string& failure) {
      order.push_back(i);
      failures.push_back(failure);
    });
  }
  queue.wait();
  CHECK(order == std::vector<int>{0, 1, 2});
  CHECK(queue.submitted() == 3);
  for (const auto& f : failures) CHECK_THAT(f, Catch::Contains("figures not written"));
  CHECK(queue.drawn() == 0);
  queue.submit(dir, [](const std::string&) { throw std::runtime_error("planted"); });
  queue.submit(dir, [&order](const std::string&) { order.push_back(3); });
  CHECK_THROWS_WITH(queue.wait(), "planted");
  // The job after the one that threw still ran, and the queue goes on.
  CHECK(order.back() == 3);
  queue.wait();
  // Two workers: every job runs once, whatever the order.
  {
    crbench::FigureQueue pair(2);
    std::mutex mutex;
    std::vector<int> done;
    for (int i = 0; i < 4; ++i) {
      fs::create_directories(dir / std::to_string(i));
      pair.submit(dir / std::to_string(i), [&, i](const std::string&) {
        const std::lock_guard<std::mutex> lock(mutex);
        done.push_back(i);
      });
    }
    pair.wait();
    std::sort(done.begin(), done.end());
    CHECK(done == std::vector<int>{0, 1, 2, 3});
  }
  fs::remove_all(dir);
}

TEST_CASE("seal returns the sealed line's own text", "[study]") {
  // points.jsonl is appended with what seal returns, not with a second dump: it must be dump().
  for (const char* text :
       {R"({})", R"({"key":"a;b","x":1.5e-300,"y":null,"z":[1,2,{"w":"\u00e9\n"}]})",
        R"({"checksum":"stale","key":"k","status":"ok"})"}) {
    nlohmann::ordered_json line = nlohmann::ordered_json::parse(text);
    const std::string sealed = crbench::seal(line);
    INFO(text);
    CHECK(sealed == line.dump());
    std::string last_key;
    for (const auto& item : line.items()) last_key = item.key();
    CHECK(last_key == "checksum");
  }
}

TEST_CASE("A program run for the figures gets the environment, with defaults only where unset",
          "[study]") {
  const fs::path dir = fresh_dir("environment");
  fs::create_directories(dir);
  const auto variable = [&](const std::string& name) {
    const std::string text = "\n" + read(dir / "env.log");
    const auto at = text.find("\n" + name + "=");
    if (at == std::string::npos) return std::string("unset");
    return text.substr(at + name.size() + 2, text.find('\n', at + 1) - at - name.size() - 2);
  };
  ::unsetenv("CRBENCH_TEST_DEFAULTED");
  ::setenv("CRBENCH_TEST_SET", "mine", 1);
  REQUIRE(crbench::run_program({"/usr/bin/env"}, dir / "env.log",
                               {"CRBENCH_TEST_DEFAULTED=1", "CRBENCH_TEST_SET=default"}) == 0);
  CHECK(variable("CRBENCH_TEST_DEFAULTED") == "1");
  CHECK(variable("CRBENCH_TEST_SET") == "mine");
  CHECK(variable("PATH") == std::getenv("PATH"));
  ::unsetenv("CRBENCH_TEST_SET");
  fs::remove_all(dir);
}

TEST_CASE(
    "A write that fails ends the study with an input error naming the path, and the previous "
    "complete files stay as they were",
    "[study][output]") {
  const fs::path dir = fresh_dir("full_disk");
  converge(dir, 2);
  const std::string points_before = read(dir / "points.jsonl");
  const std::string table_before = read(dir / "lift_off_time.md");
  REQUIRE(points_before.size() > 4096);
  // A full disk, injected: files may not grow past 4 KiB (SIGXFSZ ignored, so that the write
  // fails with EFBIG instead of killing the process).
  rlimit saved{};
  REQUIRE(getrlimit(RLIMIT_FSIZE, &saved) == 0);
  const auto previous_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit tiny = saved;
  tiny.rlim_cur = 4096;
  REQUIRE(setrlimit(RLIMIT_FSIZE, &tiny) == 0);
  std::string message;
  try {
    converge(dir, 2, /*resume=*/true);
  } catch (const InputError& e) {
    message = e.what();
  }
  setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, previous_handler);
  INFO(message);
  CHECK_THAT(message, Catch::Contains("--out: cannot write"));
  CHECK_THAT(message, Catch::Contains(dir.string()));
  CHECK(read(dir / "points.jsonl") == points_before);
  CHECK(read(dir / "lift_off_time.md") == table_before);
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    CHECK(entry.path().filename().string().find(".partial") == std::string::npos);
  }
  fs::remove_all(dir);
}

TEST_CASE("An --out that cannot be a folder or a --trajectory that cannot be written exit 2",
          "[study][output][cli]") {
  const fs::path dir = fresh_dir("not_a_folder");
  fs::create_directories(dir);
  std::ofstream(dir / "file") << "x";
  const auto converge_out =
      crbench::testing::cli({"converge", "--study", kData + "/studies/small.json", "--out",
                             (dir / "file" / "sub").string(), "--no-figures"});
  CHECK(converge_out.status == 2);
  CHECK_THAT(converge_out.err, Catch::Contains("--out: cannot create the folder"));
  const auto trajectory =
      crbench::testing::cli({"run", "--case", "dk-plane", "--solver", "event-driven",
                             "--trajectory", (dir / "file" / "t.csv").string()});
  CHECK(trajectory.status == 2);
  CHECK_THAT(trajectory.err, Catch::Contains("--trajectory"));
  CHECK(crbench::testing::one_line(trajectory.err));
  fs::remove_all(dir);
}

TEST_CASE("A resumed study computes again a point that ended in an internal error", "[study]") {
  const fs::path dir = fresh_dir("internal_error");
  converge(dir, 2);
  const std::string complete = read(dir / "points.jsonl");
  // The first point as an interrupted run would have recorded an exception thrown inside it.
  std::istringstream lines(complete);
  std::string first, rest, line;
  std::getline(lines, first);
  while (std::getline(lines, line)) rest += line + "\n";
  const json failed = {{"key", json::parse(first)["key"]},
                       {"kind", json::parse(first)["kind"]},
                       {"status", "internal_error"},
                       {"reason", "injected"}};
  std::ofstream(dir / "points.jsonl", std::ios::trunc) << failed.dump() << "\n" << rest;
  const crbench::ConvergeResult resumed = converge(dir, 2, /*resume=*/true);
  CHECK(resumed.points_computed == 1);
  CHECK(read(dir / "points.jsonl") == complete);
  fs::remove_all(dir);
}

TEST_CASE("study and sweep texts name only the forces and lambda formulas of their cases",
          "[study]") {
  // Every "force (...)" and every symbolic "lambda = ..." (up to ',', ';', ':', '<', '>' or
  // " until") in a study's or sweep's description and notes stands in its case's description.
  const fs::path source = fs::path(CRBENCH_TEST_DATA) / "../..";
  int checked = 0;
  for (const char* folder : {"bench/studies", "bench/sweeps", "bench/sweeps/fine"}) {
    for (const auto& entry : fs::directory_iterator(source / folder)) {
      if (entry.path().extension() != ".json") continue;
      const json j = json::parse(crbench::testing::read_text_file(entry.path()));
      std::vector<std::pair<std::string, std::string>> texts;  // (case, text)
      const std::string study_case = j.value("case", std::string());
      texts.emplace_back(study_case, j.value("description", std::string()));
      for (const auto& m : j.value("models", json::array())) {
        texts.emplace_back(m.value("case", study_case), m.value("note", std::string()));
      }
      for (const auto& case_and_text : texts) {
        // Names, not a structured binding: the lambda below captures them (clang 14).
        const std::string& case_name = case_and_text.first;
        const std::string& text = case_and_text.second;
        if (case_name.empty()) continue;
        const std::string info = crbench::find_case(case_name).info.description;
        const auto phrases = [&](const std::string& start, const std::string& stops) {
          std::vector<std::string> out;
          for (std::size_t at = text.find(start); at != std::string::npos;
               at = text.find(start, at + 1)) {
            std::size_t end = text.find_first_of(stops, at + start.size());
            const std::size_t until = text.find(" until", at);
            end = std::min(end == std::string::npos ? text.size() : end,
                           until == std::string::npos ? text.size() : until);
            out.push_back(text.substr(at, end - at + (stops == ")" ? 1 : 0)));
          }
          return out;
        };
        for (const std::string& force : phrases("force (", ")")) {
          INFO(entry.path().filename()
               << ": '" << force << "' not in " << case_name << ": " << info);
          CHECK(info.find(force) != std::string::npos);
          ++checked;
        }
        for (const std::string& lambda : phrases("lambda = ", ",;:><")) {
          if (lambda.find_first_of("abcdefghijklmnopqrstuvwxyz", 9) == std::string::npos) continue;
          INFO(entry.path().filename()
               << ": '" << lambda << "' not in " << case_name << ": " << info);
          CHECK(info.find(lambda) != std::string::npos);
          ++checked;
        }
      }
    }
  }
  CHECK(checked >= 3);
}

TEST_CASE("converge --resume with changed tolerances or observables computes every point again",
          "[study]") {
  const fs::path dir = fresh_dir("study_resume_settings");
  json j = json::parse(crbench::testing::read_text_file(kData + "/studies/small.json"));
  j.erase("work_precision");  // timings are not deterministic; not needed here
  j.erase("collapse");
  crbench::ConvergeOptions options;
  options.out_dir = dir.string();
  options.jobs = 2;
  options.figures = false;
  const auto first = crbench::run_study(crbench::parse_study(j), options);
  REQUIRE(first.points_computed == first.points_total);
  options.resume = true;
  CHECK(crbench::run_study(crbench::parse_study(j), options).points_computed == 0);
  json changed = j;
  changed["tolerances"]["rtol"] = 1e-10;
  const auto resumed = crbench::run_study(crbench::parse_study(changed), options);
  CHECK(resumed.points_computed == resumed.points_total);
  changed["observables"] = {"lift_off_time"};
  const auto again = crbench::run_study(crbench::parse_study(changed), options);
  CHECK(again.points_computed == again.points_total);
  // And the folder now holds exactly what a fresh run with these settings writes.
  const fs::path fresh = fresh_dir("study_resume_settings_fresh");
  options.out_dir = fresh.string();
  options.resume = false;
  crbench::run_study(crbench::parse_study(changed), options);
  CHECK(read(dir / "points.jsonl") == read(fresh / "points.jsonl"));
  CHECK(read(dir / "lift_off_time.csv") == read(fresh / "lift_off_time.csv"));
}

// [slow]: the knife edge's realization at N = 1e6 (97 s under the sanitizers).
TEST_CASE("Grid observables per coordinate: l2 and sup deviations, the kinematic drift",
          "[study][observables][slow]") {
  // Synthetic grids: q - q_ref = (3, 0) at one of four points, (0, 4) at another.
  std::vector<Eigen::VectorXd> q(4, Eigen::Vector2d(1.0, 1.0)), ref = q;
  q[1] = Eigen::Vector2d(4.0, 1.0);
  q[3] = Eigen::Vector2d(1.0, 5.0);
  const auto max = crbench::deviation_by_coordinate(q, ref, "max");
  const auto l2 = crbench::deviation_by_coordinate(q, ref, "l2");
  const auto last = crbench::deviation_by_coordinate(q, ref, "final");
  CHECK(max == std::vector<double>{3.0, 4.0});
  CHECK(l2 == std::vector<double>{1.5, 2.0});  // sqrt(9/4), sqrt(16/4)
  CHECK(last == std::vector<double>{0.0, 4.0});
  CHECK(crbench::deviation_by_coordinate(q, {ref.begin(), ref.end() - 1}, "max").empty());

  // The knife edge's realization keeps -x' sin(phi) + y' cos(phi) to O(1/N): about 2/N for the
  // friction (0,1) medium; the ideal (nonholonomic) solver to round-off.
  const auto knife = crbench::make_model("knife-edge-incline", {});
  const auto drift = [&](const std::string& solver, std::vector<crbench::Assignment> set) {
    crbench::RunRequest r;
    r.case_name = "knife-edge-incline";
    r.solver_name = solver;
    r.solver_assignments = std::move(set);
    r.samples = 601;
    return crbench::measure("kinematic_drift", crbench::solve_on_grid(r), *knife).value();
  };
  const double at_1e4 =
      drift("realization", {{"alpha", "0"}, {"beta", "1"}, {"gamma", "0"}, {"N", "1e4"}});
  const double at_1e6 =
      drift("realization", {{"alpha", "0"}, {"beta", "1"}, {"gamma", "0"}, {"N", "1e6"}});
  CHECK(std::log10(at_1e4 / at_1e6) / 2.0 == Approx(1.0).margin(0.01));
  CHECK(drift("event-driven", {}) < 1e-10);
  // dk-plane has no kinematic row: no drift to report.
  crbench::RunRequest plane;
  plane.case_name = "dk-plane";
  plane.solver_name = "event-driven";
  CHECK_FALSE(crbench::measure("kinematic_drift", crbench::solve_on_grid(plane),
                               *crbench::make_model("dk-plane", {}))
                  .has_value());

  // A study's rows carry the per-coordinate values under the case's coordinate names.
  const json j = json::parse(R"({
    "name": "per-coordinate", "case": "knife-edge-incline",
    "N": {"from": 100, "to": 10000},
    "samples": 101,
    "observables": ["max_q_deviation", "l2_q_deviation", "kinematic_drift"],
    "models": [{"label": "friction", "solver": "realization",
                "set": {"alpha": 0, "beta": 1, "gamma": 0},
                "expected_order": {"kinematic_drift": 1}}]
  })");
  const fs::path dir = fresh_dir("study_per_coordinate");
  crbench::ConvergeOptions options;
  options.out_dir = dir.string();
  options.figures = false;
  const auto result = crbench::run_study(crbench::parse_study(j), options);
  const auto& row = result.summary["models"][0]["observables"]["l2_q_deviation"]["rows"][0];
  REQUIRE(row["by_coordinate"].is_object());
  CHECK(row["by_coordinate"].contains("phi"));
  CHECK(row["by_coordinate"]["x"].get<double>() <= row["value"].get<double>());
  CHECK(result.summary["models"][0]["observables"]["kinematic_drift"]["fit"]["fitted_order"]
            .get<double>() == Approx(1.0).margin(0.05));
}

TEST_CASE("Every observable is one row of the registry, read by the study reader and documented",
          "[study]") {
  // The reader accepts exactly the registry's names, and a study without observables gets the
  // rows marked by_default (the first three).
  const auto study_with = [](const json& observables) {
    json j = json::parse(R"({"name": "o", "case": "dk-plane", "N": {"from": 100, "to": 10000},
      "models": [{"label": "v", "solver": "realization",
                  "set": {"alpha": 0, "beta": 1, "gamma": 0}}]})");
    if (!observables.is_null()) j["observables"] = observables;
    return crbench::parse_study(j);
  };
  CHECK(study_with(json()).observables ==
        std::vector<std::string>{"lift_off_time", "max_q_deviation", "final_q_deviation"});
  CHECK(crbench::default_observables() == study_with(json()).observables);
  const std::vector<std::string> names = crbench::observable_names();
  CHECK(study_with(json(names)).observables == names);
  CHECK_THROWS_AS(study_with(json::array({"lift_off_time", "lift_off"})), InputError);
  // The schema and the theory document every row; each row is complete.
  std::ifstream schema_file(std::string(CRBENCH_SOURCE_DIR) + "/bench/studies/README.md");
  const std::string schema((std::istreambuf_iterator<char>(schema_file)),
                           std::istreambuf_iterator<char>());
  const auto model = crbench::make_model("dk-plane", {});
  for (const auto& spec : crbench::observable_table()) {
    INFO(spec.name);
    CHECK(schema.find("`" + std::string(spec.name) + "`") != std::string::npos);
    CHECK_FALSE(spec.caption.empty());
    REQUIRE(spec.unit != nullptr);
    REQUIRE(spec.measure != nullptr);
    CHECK(crbench::find_observable(spec.name) == &spec);
    // A deviation from the reference motion tends to 0.
    if (spec.grid) CHECK(spec.judged == crbench::ObservableClass::tends_to_zero);
  }
  CHECK(crbench::observable("lift_off_time").unit(*model) == "time");
  CHECK(crbench::observable_caption(crbench::observable("max_q_deviation"), 2001)
            .find("2001-point grid") != std::string::npos);
}

}  // namespace study_tests

namespace study_tests {

TEST_CASE(
    "first_lift_off_time: the first rebound, the realization's first exit converging to it, "
    "none where lift-offs are withheld",
    "[study][observables]") {
  crbench::RunRequest request;
  request.case_name = "bouncing-ball-siconos";
  request.solver_name = "event-driven";
  request.samples = 11;
  const auto ideal = crbench::solve_on_grid(request);
  const auto model = crbench::make_model(request.case_name, {});
  REQUIRE(ideal.record.status == crbench::Status::ok);
  // The ball comes to rest: no last lift-off, while the first rebound is the first impact, at
  // sqrt(2 h0/g) (h0 = 1, g = 9.81).
  CHECK_FALSE(ideal.record.lift_off_time);
  const auto first = crbench::measure("first_lift_off_time", ideal, *model);
  REQUIRE(first);
  CHECK(*first == Approx(std::sqrt(2.0 / 9.81)).epsilon(1e-12));
  CHECK(crbench::measure("first_lift_off_time", ideal, *model, 0) == first);
  // The penalty realization leaves the spring half a period sqrt(m/(gamma N)) pi after touching:
  // O(N^-1/2) late.
  std::vector<double> delays;
  for (const char* N : {"1e4", "1e6", "1e8"}) {
    request.solver_name = "realization";
    request.solver_assignments = {{"preset", "penalty"}, {"N", N}};
    const auto run = crbench::solve_on_grid(request);
    REQUIRE(run.record.status == crbench::Status::ok);
    const auto exit = crbench::measure("first_lift_off_time", run, *model);
    REQUIRE(exit);
    delays.push_back(*exit - *first);
    CHECK(delays.back() == Approx(std::acos(-1.0) / std::sqrt(std::stod(N))).epsilon(0.02));
  }
  CHECK(crbench::testing::fitted_slope({1e4, 1e6, 1e8}, delays) == Approx(-0.5).margin(0.01));
  // A record whose solver withholds its lift-offs states no first one either.
  auto withheld = ideal;
  crbench::withhold_lift_offs(withheld.record);
  CHECK_FALSE(crbench::measure("first_lift_off_time", withheld, *model));
}

}  // namespace study_tests
