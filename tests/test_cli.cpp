// The command line in-process: every kind of bad input is one line naming the item, exit 2.
#include <catch2/catch.hpp>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "crbench/bench/cli.hpp"
#include "crbench/cases/registry.hpp"
#include "support.hpp"

namespace cli_tests {

namespace {

using crbench::testing::cli;
using crbench::testing::CliResult;
using crbench::testing::one_line;

}  // namespace

TEST_CASE("crbench run: bad input is one line naming the item - exit status 2", "[cli]") {
  const std::vector<std::string> base{"run", "--case", "dk-plane", "--solver", "event-driven"};
  const auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"run", "--case", "nope", "--solver", "event-driven"},
       "unknown case 'nope'; known cases: dk-plane"},
      {{"run", "--case", "dk-plane", "--solver", "nope"},
       "unknown solver 'nope'; known solvers: event-driven"},
      {with({"--set", "h=1"}), "case dk-plane: unknown parameter 'h'; its parameters are: g"},
      {with({"--set", "g=-1"}), "parameter 'g' = -1 is outside its range (0, 1e+06]"},
      {with({"--set", "g=nan"}), "parameter 'g': 'nan' is not finite"},
      {with({"--set", "g=1e999"}), "parameter 'g': '1e999' is out of the range of a double"},
      {with({"--set", "g"}), "--set: 'g' is not of the form KEY=VALUE"},
      {with({"--rtol", "abc"}), "--rtol: 'abc' is not a number"},
      {with({"--rtol", "0"}), "--rtol: parameter 'rtol' = 0 is outside its range [1e-15, 0.1]"},
      {with({"--atol", "-1"}), "--atol: parameter 'atol' = -1 is outside its range (0, 1]"},
      {with({"--t-end", "-1"}), "--t-end: -1 must be after the initial time 0"},
      {with({"--t-end", "inf"}), "--t-end: 'inf' is not finite"},
      {with({"--restitution", "1.5"}),
       "solver event-driven: parameter 'restitution' = 1.5 is outside its range [0, 1]"},
      {with({"--samples", "1.5"}), "--samples: '1.5' must be a whole number in [2, 1e6]"},
      {with({"--trajectory", "/nonexistent-dir/x.csv"}), "--trajectory: cannot write"},
      {with({"--no-such-flag"}), "--no-such-flag"},
      {{"run", "--solver", "event-driven"}, "--case is required"},
      {{"run", "--case", "dk-plane", "--solver", "realization", "--preset", "spring"},
       "preset 'spring' is not one of: viscous, penalty, kozlov-impact"},
      {{"run", "--case", "dk-plane", "--solver", "realization", "--alpha", "0", "--beta", "0"},
       "alpha, beta, gamma are all 0; at least one must be > 0"},
      {{"run", "--case", "dk-plane", "--solver", "realization", "--N", "-1"},
       "parameter 'N' = -1 is outside its range (0, 1e+15]"},
      {with({"--interaction", "obstacle"}),
       "--interaction: not a parameter of solver event-driven"},
      {with({"--h", "0.1"}), "--h: not a parameter of solver event-driven"},
      // The same rule for the integrator's tolerances: a fixed-step solver has none.
      {{"run", "--case", "dk-plane", "--solver", "moreau-jean", "--rtol", "1e-3"},
       "--rtol: not a parameter of solver moreau-jean"},
      {{"run", "--case", "dk-plane", "--solver", "moreau-jean", "--atol", "1"},
       "--atol: not a parameter of solver moreau-jean"},
      {{"run", "--case", "dk-plane", "--solver", "realization", "--preset", "kozlov-impact",
        "--gamma", "2"},
       "do not combine with --preset kozlov-impact"},
      {{"run", "--case", "dk-plane", "--solver", "limit", "--kappa", "2"},
       "--kappa applies to --preset kozlov-impact only"},
      {{}, "A subcommand is required"},
  };
  for (const auto& [args, expected] : cases) {
    const CliResult r = cli(args);
    INFO("args: " << Catch::Detail::stringify(args) << "\nstderr: " << r.err);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains(expected));
    CHECK(one_line(r.err));
    CHECK(r.out.empty());
  }
}

TEST_CASE("crbench run --json prints the record with every required field", "[cli]") {
  const CliResult r = cli({"run", "--case", "dk-plane", "--solver", "event-driven", "--json"});
  REQUIRE(r.status == 0);
  CHECK(r.err.empty());
  const auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"case", "solver", "params", "tolerances", "status", "reason",
                          "lift_off_time", "events", "min_constraint", "final_state", "steps",
                          "rhs_evaluations", "wall_time_s", "crbench_version"}) {
    INFO(key);
    CHECK(j.contains(key));
  }
  CHECK(j["status"] == "ok");
  CHECK(std::abs(j["lift_off_time"].get<double>() - 1.0) <= 1e-12);
  CHECK(j["params"]["g"] == 1.0);
  CHECK(j["tolerances"]["rtol"] == 1e-12);
  CHECK(j["final_state"]["q"].size() == 2);
}

TEST_CASE("crbench run: --set changes the parameter and the record says so", "[cli]") {
  const CliResult r = cli({"run", "--case", "dk-plane", "--solver", "event-driven", "--set",
                           "g=2.5", "--json", "--omit-wall-time"});
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["params"]["g"] == 2.5);
  CHECK_FALSE(j.contains("wall_time_s"));
  // y(3) = g (3 − 1)² / 2.
  CHECK(j["final_state"]["q"][1].get<double>() == Approx(5.0).epsilon(1e-13));
}

TEST_CASE("crbench run --json is byte-identical across runs without the wall time", "[cli]") {
  const std::vector<std::string> args{"run",          "--case", "dk-plane",        "--solver",
                                      "event-driven", "--json", "--omit-wall-time"};
  CHECK(cli(args).out == cli(args).out);
}

TEST_CASE("crbench run --trajectory writes the grid and the event rows", "[cli]") {
  const auto path = std::filesystem::temp_directory_path() / "crbench_test_trajectory.csv";
  const CliResult r = cli({"run", "--case", "dk-plane", "--solver", "event-driven", "--trajectory",
                           path.string(), "--samples", "31"});
  REQUIRE(r.status == 0);
  std::ifstream in(path);
  std::string header, line;
  std::getline(in, header);
  CHECK(header == "t,label,x,y,v_x,v_y,f0,lambda0,mu0,impulse0");
  int grid_rows = 0, event_rows = 0;
  while (std::getline(in, line)) {
    const auto comma = line.find(',');
    (line[comma + 1] == ',' ? grid_rows : event_rows)++;
  }
  CHECK(grid_rows == 31);
  CHECK(event_rows >= 2);  // the switch/lift-off at t = 1, before and after
  std::filesystem::remove(path);
}

TEST_CASE("crbench list shows cases - parameters with defaults and ranges - solvers", "[cli]") {
  const CliResult r = cli({"list"});
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("dk-plane"));
  CHECK_THAT(r.out, Catch::Contains("(0, 1e+06]"));
  CHECK_THAT(r.out, Catch::Contains("event-driven"));
  CHECK_THAT(r.out, Catch::Contains("restitution"));
  const auto j = nlohmann::json::parse(cli({"list", "--json"}).out);
  CHECK(j["cases"][0]["params"][0]["name"] == "g");
  CHECK(j["cases"][0]["params"][0]["default"] == 1.0);
  // Defaults that depend on the preset are shown as such, not as the viscous preset's numbers.
  for (const auto& solver : j["solvers"]) {
    for (const auto& p : solver["params"]) {
      if (p["name"] == "alpha" || p["name"] == "beta" || p["name"] == "gamma") {
        CHECK(p["default"].is_null());
        CHECK(p["default_rule"] == "the preset's");
      }
      if (solver["name"] == "limit" && p["name"] == "restitution") {
        CHECK(p["default"].is_null());
      }
    }
  }
  CHECK_THAT(r.out, Catch::Contains("default (the preset's)"));
}

TEST_CASE("Records say what ran: custom preset, no idle parameters, the source of each value",
          "[cli]") {
  const auto record = [](std::vector<std::string> args) {
    args.insert(args.begin(), {"run", "--case", "dk-plane", "--json"});
    const CliResult r = cli(args);
    INFO(r.err);
    REQUIRE(r.status == 0);
    return nlohmann::json::parse(r.out);
  };
  const auto custom =
      record({"--solver", "realization", "--alpha", "1", "--beta", "0", "--gamma", "1"});
  CHECK(custom["solver_params"]["preset"] == "custom");
  CHECK(!custom["solver_params"].contains("kappa"));
  CHECK(!custom["solver_params"].contains("k"));
  CHECK(custom["parameter_sources"]["alpha"] == "user");
  CHECK(custom["parameter_sources"]["N"] == "default");
  const auto partial = record({"--solver", "realization", "--alpha", "1"});
  CHECK(partial["solver_params"]["beta"] == 1.0);
  CHECK(partial["parameter_sources"]["beta"] == "default (the preset's)");
  const auto kozlov = record({"--solver", "realization", "--preset", "kozlov-impact"});
  CHECK(kozlov["solver_params"]["preset"] == "kozlov-impact");
  CHECK(kozlov["solver_params"].contains("kappa"));
  CHECK(kozlov["solver_params"].contains("k"));
  const auto limit = record({"--solver", "limit"});
  CHECK(limit["solver_params"]["restitution"] == 0.0);
  CHECK(limit["parameter_sources"]["restitution"] ==
        "default (0 for the viscous limit, 1 otherwise)");
  const auto kozlov_limit = record({"--solver", "limit", "--preset", "kozlov-impact"});
  CHECK(!kozlov_limit["solver_params"].contains("restitution"));
  CHECK(kozlov_limit["solver_params"]["kappa"] == 1.0);
}

TEST_CASE("crbench --help and --version exit 0", "[cli]") {
  CHECK(cli({"--help"}).status == 0);
  CHECK(cli({"--version"}).status == 0);
  CHECK(cli({"run", "--help"}).status == 0);
}

TEST_CASE("crbench run --solver realization --trajectory adds N*f", "[cli]") {
  const auto path = std::filesystem::temp_directory_path() / "crbench_test_realization.csv";
  const CliResult r = cli({"run", "--case", "dk-plane", "--solver", "realization", "--N", "1e4",
                           "--trajectory", path.string(), "--samples", "31", "--json"});
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["solver_params"]["preset"] == "viscous");
  CHECK(j["solver_params"]["interaction"] == "medium");
  CHECK(j["solver_params"]["beta"] == 1.0);
  std::ifstream in(path);
  std::string header;
  std::getline(in, header);
  CHECK(header == "t,label,x,y,v_x,v_y,f0,lambda0,mu0,impulse0,Nf0");
  std::filesystem::remove(path);
}

TEST_CASE("Counts and switches take whole numbers only", "[cli]") {
  crbench::testing::check_refused(
      {"run", "--case", "dk-plane", "--solver", "moreau-jean", "--max-steps", "2.5"},
      "(whole numbers)");
  crbench::testing::check_refused(
      {"run", "--case", "dk-plane", "--solver", "moreau-jean", "--impulse-history", "0.5"},
      "impulse_history");
  crbench::testing::check_refused(
      {"run", "--case", "dk-plane", "--solver", "event-driven", "--max-events", "10.5"},
      "max_events");
  CHECK(cli({"run", "--case", "dk-plane", "--solver", "event-driven", "--max-events", "1e3"})
            .status == 0);
}

TEST_CASE("The trajectory bounds --samples by its size, which grows with the model's", "[cli]") {
  // ball-chain with 1000 balls: 1 + 2000 + 4 x 999 + 0 = 5997 numbers a sample; 2e7 / 5997 = 3334.
  crbench::testing::check_refused(
      {"run", "--case", "ball-chain", "--set", "n=1000", "--solver", "moreau-jean", "--t-end",
       "0.01", "--samples", "20000", "--trajectory",
       (std::filesystem::temp_directory_path() / "crbench-big.csv").string()},
      "--samples: 20000 samples of 5997 numbers each");
  // No trajectory asked: nothing to bound. (Balls apart, so that no step solves an LCP: Siconos
  // numerics' Lemke solver leaks inside the library, which the sanitizer job would report.)
  const CliResult r =
      cli({"run", "--case", "ball-chain", "--set", "n=1000", "--set", "gap=0.01", "--solver",
           "moreau-jean", "--t-end", "0.001", "--samples", "20000", "--json"});
  CHECK(r.status == 0);
}

TEST_CASE("Every built-in case names its coordinates and their units, and the record carries them",
          "[cli][observables]") {
  for (const auto& entry : crbench::case_registry()) {
    const auto model = crbench::make_model(entry.info.name, {});
    INFO(entry.info.name);
    std::set<std::string> names;
    for (int i = 0; i < model->dof(); ++i) {
      const std::string name = model->coordinate_name(i);
      // An identifier, not a column the trajectory already has, and with a unit.
      REQUIRE(!name.empty());
      CHECK((std::isalpha(static_cast<unsigned char>(name[0])) != 0));
      CHECK(name.find_first_not_of(
                "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
            std::string::npos);
      CHECK(name != "t");
      CHECK(name != "label");
      CHECK(names.insert(name).second);
      CHECK(!model->coordinate_unit(i).empty());
    }
    std::set<std::string> constraint_names;
    for (int k = 0; k < model->constraint_count(); ++k) {
      CHECK(!model->constraint_unit(k).empty());
      // Named by the case (not the fallback f<k>), an identifier, once.
      const std::string name = model->constraint_name(k);
      CHECK(name != "f" + std::to_string(k));
      CHECK((std::isalpha(static_cast<unsigned char>(name[0])) != 0));
      CHECK(name.find_first_not_of(
                "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
            std::string::npos);
      CHECK(constraint_names.insert(name).second);
      CHECK(model->constraint_index(name, "test") == k);
      CHECK(model->constraint_index(std::to_string(k), "test") == k);
    }
  }
  // The record and the text output name them.
  const CliResult json =
      cli({"run", "--case", "particle-on-circle", "--solver", "event-driven", "--json"});
  const auto j = nlohmann::json::parse(json.out);
  CHECK(j["coordinates"][0]["name"] == "r");
  CHECK(j["coordinates"][1]["name"] == "theta");
  CHECK(j["coordinates"][1]["unit"] == "angle (rad)");
  CHECK(j["constraint_units"][0] == "length");
  const CliResult text = cli({"run", "--case", "particle-on-circle", "--solver", "event-driven"});
  CHECK(text.out.find(", theta = ") != std::string::npos);
  CHECK(text.out.find(", v_theta = ") != std::string::npos);
  // A chain case has one coordinate per body.
  const auto chain = crbench::make_model("ball-chain", {{"n", "3"}});
  CHECK(chain->coordinate_name(2) == "x2");
  CHECK(chain->constraint_name(1) == "contact1");
}

TEST_CASE("converge exits 1 when a model is NOT CONFIRMED, 0 when all are, and writes README.md",
          "[cli][study]") {
  // tests/data/studies/small.json: its viscous ladder of three rows gives a limit but no error
  // bar, so that model is NOT CONFIRMED; the ideal model alone is CONFIRMED.
  const auto dir = crbench::testing::fresh_dir("cli_converge_exit");
  const std::string small = std::string(CRBENCH_TEST_DATA) + "/studies/small.json";
  const CliResult r = cli({"converge", "--study", small, "--out", (dir / "small").string(),
                           "--no-figures", "--jobs", "2"});
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Catch::Contains("models NOT CONFIRMED"));
  const std::string readme = crbench::testing::read_text_file(dir / "small" / "README.md");
  CHECK_THAT(readme, Catch::Contains("# Study `small`"));
  CHECK_THAT(readme, Catch::Contains("crbench converge --study " + small));
  CHECK_THAT(readme, Catch::Contains("NOT CONFIRMED"));
  CHECK_THAT(readme, Catch::Contains("### small: lift_off_time"));
  std::ofstream(dir / "ideal.json") << R"({
    "name": "ideal", "case": "dk-plane", "observables": ["lift_off_time"],
    "models": [{"label": "classical", "solver": "event-driven", "reference": "closed-form"}]
  })";
  const CliResult ideal = cli({"converge", "--study", (dir / "ideal.json").string(), "--out",
                               (dir / "ideal").string(), "--no-figures"});
  CHECK(ideal.status == 0);
  CHECK(std::filesystem::exists(dir / "ideal" / "README.md"));
}

TEST_CASE("verify takes --t-end: every run of the ladder ends there", "[cli][verify]") {
  // dk-plane's viscous lift-off at 2 + 1/N: a horizon of 3 keeps it (the case's default horizon
  // is longer); a horizon before the start is refused, naming --t-end.
  const CliResult r = cli({"verify", "--case", "dk-plane", "--t-end", "3", "--from", "1e2", "--to",
                           "1e5", "--digits", "4", "--json"});
  INFO(r.out << r.err);
  CHECK(r.status == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j.dump().find("CONFIRMED") != std::string::npos);
  const CliResult short_horizon =
      cli({"verify", "--case", "dk-plane", "--t-end", "1.5", "--from", "1e2", "--to", "1e4"});
  // The viscous lift-off at 2 lies beyond a horizon of 1.5: no prediction, said so.
  CHECK_THAT(short_horizon.out, Catch::Contains("before the horizon t = 1.5"));
  crbench::testing::check_refused({"verify", "--case", "dk-plane", "--t-end", "-1"}, "--t-end");
}

TEST_CASE("run --solver S --help lists S's parameters only, with defaults and ranges", "[cli]") {
  const CliResult r = cli({"run", "--solver", "limit", "--help"});
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("Parameters of limit"));
  CHECK_THAT(r.out, Catch::Contains("--alpha"));
  CHECK_THAT(r.out, Catch::Contains("range [0, 1e+09]"));
  CHECK_THAT(r.out, Catch::Contains("--rtol R"));
  // Another solver's flags are not listed; a fixed-step solver takes no tolerances.
  CHECK_THAT(r.out, !Catch::Contains("--impedance"));
  const CliResult step = cli({"run", "--solver=moreau-jean", "-h"});
  CHECK(step.status == 0);
  CHECK_THAT(step.out, Catch::Contains("--h "));
  CHECK_THAT(step.out, !Catch::Contains("--rtol"));
  // The general help groups the solvers' flags and says where each solver's are.
  const CliResult all = cli({"run", "--help"});
  CHECK(all.status == 0);
  CHECK_THAT(all.out, Catch::Contains("crbench run --solver S --help"));
  // A flag that solvers describe differently says whose description it shows and who differs
  // (--restitution: event-driven's Newton's law, the limit model's restitution of its own).
  const auto line = all.out.find("--restitution ");
  REQUIRE(line != std::string::npos);
  const std::string restitution = all.out.substr(line, all.out.find("\n  --", line + 1) - line);
  CHECK_THAT(restitution, Catch::Contains("event-driven: "));
  CHECK_THAT(restitution, Catch::Contains("otherwise for limit"));
  crbench::testing::check_refused({"run", "--solver", "nope", "--help"}, "unknown solver 'nope'");
}

TEST_CASE("records say how crbench was built: commit, build type, compiler", "[cli]") {
  const CliResult r = cli({"run", "--case", "dk-plane", "--solver", "event-driven", "--json"});
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j.contains("build"));
  const std::string commit = j["build"]["commit"].get<std::string>();
  CHECK(std::regex_match(commit, std::regex("[0-9a-f]{12}(-modified)?|unknown")));
  CHECK_FALSE(j["build"]["build_type"].get<std::string>().empty());
  CHECK_FALSE(j["build"]["compiler"].get<std::string>().empty());
}

}  // namespace cli_tests

namespace cli_tests {

// docs/architecture.md names the files a newcomer touches for a case, a solver, an observable, a
// study field and a ladder experiment: every file it names exists, and so does every function of
// the ladder engine its recipe names.
TEST_CASE("docs/architecture.md names files and functions that exist", "[cli][docs]") {
  const std::string root = CRBENCH_SOURCE_DIR;
  const std::string doc = crbench::testing::read_text_file(root + "/docs/architecture.md");
  const std::regex path(
      R"((bench|solvers|cases|scripts|tests|docs|python|cmake)/[A-Za-z0-9_./-]+\.(cpp|hpp|py|md|json|cmake))");
  int checked = 0;
  for (std::sregex_iterator it(doc.begin(), doc.end(), path), end; it != end; ++it) {
    INFO(it->str());
    CHECK(std::filesystem::exists(root + "/" + it->str()));
    ++checked;
  }
  CHECK(checked >= 20);
  const std::string engine = crbench::testing::read_text_file(root + "/bench/ladder_engine.hpp");
  for (const char* name : {"LadderPlan", "rung_request", "tight_twin", "ReferenceSpec",
                           "make_reference", "ladder_input", "run_ladder", "judge_rows"}) {
    INFO(name);
    CHECK(doc.find(name) != std::string::npos);
    CHECK(engine.find(name) != std::string::npos);
  }
}

}  // namespace cli_tests
