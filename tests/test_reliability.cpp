// Reliability: faults that must end in records (status and reason), never in an exception or a
// crash (the test-only case fault-injection, tests/fault_case.hpp, through the in-process CLI and
// studies); resource bounds; accepted extremes that once gave wrong results with status ok;
// output folders that are locked, read-only or hold an empty trajectory.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "crbench/bench/run_support.hpp"
#include "crbench/bench/study.hpp"
#include "crbench/cases/register_case.hpp"
#include "tests/fault_case.hpp"
#include "tests/support.hpp"

namespace crbench::testing::reliability_tests {
namespace {

void register_fault_case() {
  static std::once_flag once;
  std::call_once(once, [] { register_case(case_entry<test_cases::FaultInjection>()); });
}

std::string data_study(const std::string& file) {
  return std::string(CRBENCH_TEST_DATA) + "/studies/" + file;
}

CliResult converge_into(const std::filesystem::path& dir, const std::string& study, bool resume) {
  std::vector<std::string> args = {"converge",   "--study",      study,    "--out",
                                   dir.string(), "--no-figures", "--jobs", "2"};
  if (resume) args.push_back("--resume");
  return cli(args);
}

nlohmann::json run_fault(const std::string& solver, int fault) {
  register_fault_case();
  const CliResult r = cli({"run", "--case", "fault-injection", "--solver", solver, "--set",
                           "fault=" + std::to_string(fault), "--json"});
  INFO(solver << " fault " << fault << ": exit " << r.status << " " << r.err);
  REQUIRE(r.err.empty());
  const auto j = nlohmann::json::parse(r.out);
  CHECK(r.status == (j["status"] == "ok" ? 0 : 1));
  return j;
}

}  // namespace

TEST_CASE("Faults: a NaN, an infinity, a singular metric and an unsolvable LCP end in records",
          "[reliability]") {
  // Per solver, the status for faults 1 nan-force, 2 inf-constraint, 3 singular-metric and
  // 4 unsolvable-lcp. The realization computes fault 4 without failing, and rightly: its penalty
  // force on f2 is -N(beta f2')grad f2 = 0, so the free motion simply goes on with f2 < 0.
  const std::map<std::string, std::vector<std::string>> expected = {
      {"event-driven", {"non_finite", "non_finite", "singular_active_set", "lcp_failure"}},
      {"limit", {"non_finite", "non_finite", "singular_active_set", "lcp_failure"}},
      {"moreau-jean", {"non_finite", "non_finite", "singular_jacobian", "lcp_failure"}},
      {"realization", {"non_finite", "non_finite", "non_finite", "ok"}},
  };
  for (const auto& [solver, statuses] : expected) {
    CHECK(run_fault(solver, 0)["status"] == "ok");
    for (int fault = 1; fault <= 4; ++fault) {
      const auto j = run_fault(solver, fault);
      INFO(solver << " fault " << fault << ": " << j["reason"]);
      CHECK(j["status"] == statuses[static_cast<std::size_t>(fault - 1)]);
      if (j["status"] != "ok") {
        CHECK_FALSE(j["reason"].get<std::string>().empty());
        // The run stops at the fault (t_fault = 0.5), after the first contact at most.
        CHECK(j["final_state"]["t"].get<double>() < 1.0 + 1e-9);
        if (fault <= 3) {
          // Its final state is the last one it reached at or before the fault, not its phase's
          // start (0).
          CHECK(j["final_state"]["t"].get<double>() > 0.4);
        }
      }
    }
  }
}

TEST_CASE("Faults: a study writes every point, the failed ones with status and reason",
          "[reliability]") {
  register_fault_case();
  const auto dir = std::filesystem::temp_directory_path() / "crbench-test-faults";
  std::filesystem::remove_all(dir);
  const CliResult r = converge_into(dir, data_study("faults.json"), false);
  INFO(r.out << r.err);
  // Solver statuses are results, not crbench faults: no internal error, and exit 1 only because a
  // model the failed points leave without rows is NOT CONFIRMED.
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Catch::Contains("NOT CONFIRMED"));
  CHECK_THAT(r.err, !Catch::Contains("internal_error"));
  std::ifstream in(dir / "points.jsonl");
  std::map<std::string, int> statuses;
  int lines = 0;
  for (std::string text; std::getline(in, text); ++lines) {
    const auto line = nlohmann::json::parse(text);
    const std::string status = line.value("status", std::string("ok"));
    ++statuses[status];
    if (status != "ok") CHECK_FALSE(line.value("reason", std::string()).empty());
  }
  // 1 classical + 3 viscous + 3 viscous-nan + 1 classical-lcp points, each at two tolerances
  // where the study checks the discretization.
  CHECK(lines >= 8);
  CHECK(statuses["non_finite"] >= 3);
  CHECK(statuses["lcp_failure"] >= 1);
  CHECK(statuses["ok"] >= 4);
  CHECK(statuses.count("internal_error") == 0);
  std::ifstream table(dir / "lift_off_time.md");
  std::stringstream text;
  text << table.rdbuf();
  CHECK_THAT(text.str(), Catch::Contains("viscous-nan"));
  CHECK_THAT(text.str(), Catch::Contains("non_finite"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("Faults: an exception from a case is an internal error: run and converge exit 1",
          "[reliability]") {
  register_fault_case();
  for (const std::string solver : {"event-driven", "moreau-jean", "realization", "limit"}) {
    const CliResult r =
        cli({"run", "--case", "fault-injection", "--solver", solver, "--set", "fault=5", "--json"});
    INFO(solver << ": " << r.status << " " << r.out << r.err);
    CHECK(r.status != 0);
    CHECK(r.status != 2);
    CHECK(one_line(r.err));
  }
}

TEST_CASE("Faults: a study with internal_error points writes the others and exits 1",
          "[reliability]") {
  register_fault_case();
  const auto dir = std::filesystem::temp_directory_path() / "crbench-test-faults-internal";
  std::filesystem::remove_all(dir);
  const std::string study = data_study("faults-internal.json");
  for (const bool resume : {false, true}) {
    const CliResult r = converge_into(dir, study, resume);
    INFO(r.out << r.err);
    CHECK(r.status == 1);
    CHECK_THAT(r.err, Catch::Contains("1 points ended in internal_error"));
    CHECK(one_line(r.err));
    std::ifstream in(dir / "points.jsonl");
    std::map<std::string, int> statuses;
    for (std::string text; std::getline(in, text);) {
      ++statuses[nlohmann::json::parse(text).value("status", std::string("ok"))];
    }
    CHECK(statuses["internal_error"] == 1);
    CHECK(statuses["ok"] >= 1);
    CHECK(std::filesystem::exists(dir / "lift_off_time.md"));
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("Resource bounds: a long solve reports its pace about once a second", "[reliability]") {
  // `crbench run` on a terminal turns these reports into one line estimating the run's length
  // (when it will clearly exceed a minute). dk-plane penalty N = 1e12 (17 s) and
  // moreau-jean h = 1e-8 (3e8 steps), stopped after 2.5 s: two or more reports, at increasing
  // times inside the horizon, with the horizon and the start as they are.
  for (const std::vector<Assignment>& solver :
       {std::vector<Assignment>{{"preset", "penalty"}, {"N", "1e12"}},
        std::vector<Assignment>{{"h", "1e-8"}, {"max_steps", "1e9"}}}) {
    RunRequest request;
    request.case_name = "dk-plane";
    request.solver_name =
        solver.size() == 2 && solver[0].key == "preset" ? "realization" : "moreau-jean";
    request.solver_assignments = solver;
    request.max_wall_time = 2.5;
    std::vector<double> times;
    request.on_progress = [&](double t, double t0, double t_end) {
      CHECK(t0 == 0.0);
      CHECK(t_end == 3.0);
      times.push_back(t);
    };
    const RunRecord record = execute(request);
    INFO(request.solver_name);
    CHECK(record.status == Status::wall_time_exceeded);
    REQUIRE(times.size() >= 2);
    CHECK(times.size() <= 3);
    CHECK(std::is_sorted(times.begin(), times.end()));
    CHECK(times.front() > 0.0);
    CHECK(times.back() < 3.0);
  }
}

TEST_CASE("Resource bounds: --max-wall-time ends a solve with status wall_time_exceeded",
          "[reliability]") {
  // Each of these takes seconds at least (dk-plane penalty N = 1e8: ~3e6 steps; moreau-jean
  // h = 1e-7: 3e7 steps); the bound stops them after 0.05 s.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--solver", "realization", "--preset", "penalty", "--N", "1e8"},
        std::vector<std::string>{"--solver", "moreau-jean", "--h", "1e-7"}}) {
    std::vector<std::string> command = {"run",    "--case",          "dk-plane",
                                        "--json", "--max-wall-time", "0.05"};
    command.insert(command.end(), args.begin(), args.end());
    const CliResult r = cli(command);
    INFO(r.out << r.err);
    CHECK(r.status == 1);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["status"] == "wall_time_exceeded");
    CHECK_THAT(j["reason"].get<std::string>(), Catch::Contains("max_wall_time = 0.05 s"));
    CHECK(j["final_state"]["t"].get<double>() < 3.0);
  }
  check_refused({"run", "--case", "dk-plane", "--solver", "limit", "--max-wall-time", "0"},
                "--max-wall-time: '0' must be in (0,");
  check_refused({"run", "--case", "dk-plane", "--solver", "limit", "--max-wall-time", "inf"},
                "--max-wall-time");
  check_refused({"run", "--case", "dk-plane", "--solver", "limit", "--samples", "2e6"},
                "--samples: '2e6' must be a whole number in [2, 1e6]");
}

TEST_CASE(
    "Resource bounds: a study counts its wall_time_exceeded points and --resume retries "
    "them",
    "[reliability]") {
  const auto dir = std::filesystem::temp_directory_path() / "crbench-test-wall-time";
  std::filesystem::remove_all(dir);
  const std::string study = data_study("wall-time.json");
  for (const bool resume : {false, true}) {
    const CliResult r = converge_into(dir, study, resume);
    INFO(r.out << r.err);
    // Exit 1: the classical model, stopped, is NOT CONFIRMED (not an internal error).
    CHECK(r.status == 1);
    CHECK_THAT(r.err, !Catch::Contains("internal_error"));
    // 1 classical point, 3 viscous points and their tighter-tolerance checks: all computed again
    // on resume, all stopped.
    CHECK_THAT(r.out,
               Catch::Matches(R"((.|\n)*converge wall-time: (\d+) of \2 points computed(.|\n)*)"));
    CHECK_THAT(r.out, Catch::Contains("ended at max_wall_time (status wall_time_exceeded)"));
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("Resource bounds: moreau-jean keeps at most 100000 impulses in its history",
          "[reliability]") {
  // dk-plane is in contact on [0, 1]: h = 8e-6 gives 125 000 steps with an impulse.
  const CliResult r = cli({"run", "--case", "dk-plane", "--solver", "moreau-jean", "--h", "8e-6",
                           "--impulse-history", "1", "--json", "--t-end", "1.2"});
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["diagnostics"]["impulse_history"].size() == 100000);
  CHECK(j["diagnostics"]["impulse_history_not_kept"].get<long>() > 20000);
}

TEST_CASE("A second process on the same --out is refused with exit 2 and writes nothing",
          "[reliability]") {
  const auto dir = std::filesystem::temp_directory_path() / "crbench-test-lock";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  {
    // flock locks belong to an open file description: this one stands for another process.
    const OutputLock held(dir);
    check_refused(
        {"converge", "--study", data_study("small.json"), "--out", dir.string(), "--no-figures"},
        "is being written by another crbench process");
    check_refused({"report", "--out", dir.string()}, "is being written by another crbench process");
    CHECK(std::filesystem::is_empty(dir));
  }
  std::filesystem::remove_all(dir);
}

namespace {

nlohmann::json run_json(std::vector<std::string> args) {
  args.insert(args.begin(), "run");
  args.push_back("--json");
  const CliResult r = cli(args);
  INFO(r.err);
  REQUIRE(r.status == 0);
  return nlohmann::json::parse(r.out);
}

}  // namespace

TEST_CASE("Accepted extremes compute right: a horizon of 1e19 and g = 1e-12 on dk-plane",
          "[reliability]") {
  // The event bracket's round-off floor was taken at the step's ends: a first step to 1e16 put
  // the lift-off at 0.5. And the contact LCP's slack was absolute (1e-12): with g = 1e-12 the
  // contact was never made and y went to -g.
  for (const std::string t_end : {"3", "1e6", "1e19"}) {
    INFO("t_end " << t_end);
    const auto ideal =
        run_json({"--case", "dk-plane", "--solver", "event-driven", "--t-end", t_end});
    CHECK(std::abs(ideal["lift_off_time"].get<double>() - 1.0) < 1e-12);
    const auto limit = run_json({"--case", "dk-plane", "--solver", "limit", "--t-end", t_end});
    CHECK(std::abs(limit["lift_off_time"].get<double>() - 2.0) < 1e-12);
  }
  for (const double g : {1e-12, 1e-100, 1.0, 1e6}) {
    const std::string set = "g=" + format_number(g);
    INFO(set);
    const auto ideal = run_json({"--case", "dk-plane", "--solver", "event-driven", "--set", set});
    CHECK(std::abs(ideal["lift_off_time"].get<double>() - 1.0) < 1e-12);
    CHECK(ideal["min_constraint"][0].get<double>() >= -1e-12 * g);
    // After the lift-off y = g (t - 1)^2 / 2: 2g at t = 3.
    CHECK(std::abs(ideal["final_state"]["q"][1].get<double>() - 2.0 * g) <= 1e-10 * g);
    const auto limit = run_json({"--case", "dk-plane", "--solver", "limit", "--set", set});
    CHECK(std::abs(limit["lift_off_time"].get<double>() - 2.0) < 1e-12);
  }
}

TEST_CASE("A long horizon does not let the realization's first step jump the contact dynamics",
          "[reliability]") {
  // dk-plane, viscous: the realization lifts off at 2 + 1/N (Deryabin & Kozlov 1995 (6.5): the
  // transient after the switch at t = 1 delays the exit by 1/N). A first step of 1e-6 of the
  // horizon jumped that transient: N = 1e8 to t = 1e9 gave 2 + 2.5e-12, the limit's value.
  for (const auto& [N, t_end] : std::vector<std::pair<std::string, std::string>>{
           {"1e8", "3"}, {"1e8", "1e9"}, {"1e6", "1e12"}, {"1e10", "1e8"}, {"1e5", "1e15"}}) {
    INFO("N " << N << ", t_end " << t_end);
    const auto record =
        run_json({"--case", "dk-plane", "--solver", "realization", "--N", N, "--t-end", t_end});
    REQUIRE(record["status"] == "ok");
    const double delay = record["lift_off_time"].get<double>() - 2.0;
    CHECK(std::abs(delay * std::stod(N) - 1.0) < 1e-4);
  }
}

TEST_CASE("A transient faster than t can resolve is stepped at the resolution floor and said",
          "[reliability]") {
  // dk-plane, viscous, N >= 5e13: after the switch at t = 1 the medium's velocity relaxes in
  // 1/N, under 45 spacings of doubles at t = 1. The step controller asked for steps of a few
  // spacings and the run ended in step_underflow at t = 1.0000000000000024. The realization
  // lifts off at 2 + 1/N (Deryabin & Kozlov 1995 (6.5)); 1/N is then below the event-time
  // tolerance, so the lift-off is checked to that tolerance, and the record says which steps
  // were taken above the error tolerance.
  for (const std::string N : {"5e13", "1e14", "1e15"}) {
    INFO("N " << N);
    const auto record = run_json({"--case", "dk-plane", "--solver", "realization", "--N", N});
    REQUIRE(record["status"] == "ok");
    const double event_time_tol = record["tolerances"]["event_time_tol"].get<double>();
    CHECK(std::abs(record["lift_off_time"].get<double>() - (2.0 + 1.0 / std::stod(N))) <=
          2.0 * event_time_tol);
    CHECK(record["diagnostics"]["steps_at_time_resolution"].get<int>() > 0);
    REQUIRE(record.contains("warnings"));
    CHECK_THAT(record["warnings"].dump(), Catch::Contains("resolution of t"));
  }
  // Where the transient is resolved nothing is said.
  const auto resolved = run_json({"--case", "dk-plane", "--solver", "realization", "--N", "1e8"});
  CHECK_FALSE(resolved["diagnostics"].contains("steps_at_time_resolution"));
  CHECK_FALSE(resolved.contains("warnings"));
}

TEST_CASE("A realization whose depth stays within round-off warns that its exit is unresolved",
          "[reliability]") {
  // particle-on-circle, viscous, N = 1e14: f = r - R rounds to 0 in the medium all the way, the
  // exit function never arms, and the run ended ok without a lift-off (the limit leaves at
  // 1.8656) and without a warning.
  for (const std::string N : {"1e14", "1e15"}) {
    INFO("N " << N);
    const auto record =
        run_json({"--case", "particle-on-circle", "--solver", "realization", "--N", N});
    REQUIRE(record.contains("warnings"));
    CHECK_THAT(record["warnings"].dump(), Catch::Contains("would not be resolved"));
  }
  // Where the depth is resolved nothing is said.
  for (const std::string N : {"1e4", "1e6"}) {
    const auto record = run_json(
        {"--case", "vibrating-table", "--solver", "realization", "--N", N, "--t-end", "0.1"});
    CHECK_FALSE(record.dump().find("would not be resolved") != std::string::npos);
  }
}

TEST_CASE("Event-driven finds a grazing lift-off where lambda dips below zero between samples",
          "[reliability]") {
  // pendulum-string with v0^2 = 2 g L (1 + 1e-6): lambda = 3 g cos(theta) - 2 g + v0^2/L falls to
  // -1e-6 near the horizontal and returns, negative for about 2e-3 of time. Every sample of a
  // step saw lambda > 0: the run ended ok with the string in compression. The string goes slack
  // where cos(theta) = -(2/3) 1e-6; the limit solver's lambda_zero event (another integrator,
  // lambda from its own formula) marks the same time.
  const std::string v0 = "v0=" + format_number(std::sqrt(2.0 * (1.0 + 1e-6)));
  const auto ideal =
      run_json({"--case", "pendulum-string", "--solver", "event-driven", "--set", v0});
  REQUIRE(ideal["status"] == "ok");
  const auto limit = run_json({"--case", "pendulum-string", "--solver", "limit", "--set", v0});
  double lambda_zero = 0.0;
  for (const auto& e : limit["events"]) {
    if (e["kind"] == "lambda_zero") lambda_zero = e["t"].get<double>();
  }
  REQUIRE(lambda_zero > 1.8);
  double lift_off = 0.0;
  double contact_again = 0.0;
  for (const auto& e : ideal["events"]) {
    if (e["kind"] == "lift_off") lift_off = e["t"].get<double>();
    if (e["kind"] == "contact" && e["t"].get<double>() > 0.0) contact_again = e["t"].get<double>();
  }
  CHECK(std::abs(lift_off - lambda_zero) < 1e-9);
  // The flight rises to about 1e-12 and the string is taut again 3.3e-3 later.
  CHECK(contact_again > lift_off + 1e-3);
  CHECK(contact_again < lift_off + 1e-2);
  CHECK(ideal["diagnostics"]["dips_between_samples"].get<int>() >= 1);
  CHECK(ideal["min_constraint"][0].get<double>() > -1e-10);
}

TEST_CASE("A realization whose exit time is below the round-off of f says so in a warning",
          "[reliability]") {
  // particle-on-circle, viscous: the limit lifts off at 1.86563812218663 and the realization
  // approaches it like -0.156/N. At N = 1e13 it gave 1.9154, an ok record with no warning.
  const double limit = 1.8656381221866347;
  const auto at = [](const std::string& N) {
    return run_json({"--case", "particle-on-circle", "--solver", "realization", "--N", N});
  };
  const auto good = at("1e5");
  CHECK_FALSE(good.contains("warnings"));
  CHECK(std::abs(good["lift_off_time"].get<double>() - limit + 0.156 / 1e5) < 1e-3 / 1e5);
  for (const std::string N : {"1e8", "1e13"}) {
    INFO("N " << N);
    const auto bad = at(N);
    REQUIRE(bad.contains("warnings"));
    CHECK_THAT(bad["warnings"][0].get<std::string>(), Catch::Contains("exit time is uncertain"));
    // The floor is one evaluation's; the error it warns of is larger, and far above the model
    // error -0.156/N.
    const double floor = bad["diagnostics"]["exit_time_round_off"].get<double>();
    const double error = std::abs(bad["lift_off_time"].get<double>() - limit);
    CHECK(error > floor);
    CHECK(error < 100.0 * floor);
    CHECK(error > 100.0 * 0.156 / std::stod(N));
  }
}

TEST_CASE("A resumed study computes again a trajectory whose file is empty", "[reliability]") {
  const auto dir = std::filesystem::temp_directory_path() / "crbench-test-empty-trajectory";
  std::filesystem::remove_all(dir);
  const auto converge = [&](bool resume) {
    const CliResult r = converge_into(dir, data_study("small.json"), resume);
    INFO(r.out << r.err);
    // Exit 1: the small study's viscous ladder has no error bar (NOT CONFIRMED).
    REQUIRE(r.status == 1);
    REQUIRE_THAT(r.err, !Catch::Contains("internal_error"));
    return r.out;
  };
  converge(false);
  const auto file = dir / "trajectories" / "viscous.N1e2.csv";
  REQUIRE(std::filesystem::file_size(file) > 0);
  std::ofstream(file, std::ios::trunc).close();
  const std::string log = converge(true);
  CHECK_THAT(log, Catch::Contains("converge small: 1 of "));
  CHECK(std::filesystem::file_size(file) > 0);
  std::filesystem::remove_all(dir);
}

TEST_CASE("A read-only --out exits 2 naming the path and leaves the previous files whole",
          "[reliability]") {
  namespace fs = std::filesystem;
  // Under /tmp itself, not the tests' scratch folder (TMPDIR, inside the build tree, which the
  // user nobody may not be able to traverse), with this process's id against a second test run.
  const fs::path base = "/tmp";
  const std::string tag = "crbench-test-read-only-" + std::to_string(getpid());
  const auto dir = base / tag;
  fs::remove_all(dir);
  // A copy the user nobody can read, whatever the permissions of the source tree.
  const std::string study = (base / (tag + ".json")).string();
  fs::copy_file(data_study("faults.json"), study, fs::copy_options::overwrite_existing);
  register_fault_case();
  REQUIRE(converge_into(dir, study, false).status == 1);  // a model NOT CONFIRMED, files whole
  const auto read = [](const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  };
  const std::string points = read(dir / "points.jsonl");
  const std::string table = read(dir / "lift_off_time.md");
  fs::permissions(dir, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                           fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
  // Root writes through permission bits: the child drops to the user nobody first.
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(98);
    const CliResult r = converge_into(dir, study, true);
    const bool named = r.err.find("--out: cannot write '" + dir.string()) != std::string::npos;
    _exit(r.status == 2 && named && one_line(r.err) ? 0 : 90 + r.status);
  }
  int status = 0;
  waitpid(child, &status, 0);
  fs::permissions(dir, fs::perms::owner_all, fs::perm_options::add);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(read(dir / "points.jsonl") == points);
  CHECK(read(dir / "lift_off_time.md") == table);
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    CHECK(entry.path().filename().string().find(".partial") == std::string::npos);
  }
  fs::remove_all(dir);
  fs::remove(study);
}

}  // namespace crbench::testing::reliability_tests

namespace crbench::testing::reliability_tests {

TEST_CASE("A study's lists are bounded: 201 work-precision values are refused", "[reliability]") {
  std::ifstream in(data_study("small.json"));
  auto j = nlohmann::json::parse(in);
  nlohmann::json values = nlohmann::json::array();
  for (int i = 0; i < 201; ++i) values.push_back(1e-3 / (1 + i));
  j["work_precision"]["series"][1]["values"] = values;
  std::string message;
  try {
    (void)parse_study_text(j.dump(), "many-values");
  } catch (const InputError& e) {
    message = e.what();
  }
  CHECK_THAT(message, Catch::Contains("study.work_precision.series[1].values: must be an array "
                                      "of 2 to 200 numbers"));
  values.erase(values.begin());
  j["work_precision"]["series"][1]["values"] = values;
  CHECK(parse_study_text(j.dump(), "200-values").work_precision[1].values.size() == 200);
}

}  // namespace crbench::testing::reliability_tests

namespace crbench::testing::reliability_tests {

// [slow]: forty processes (27 s under the sanitizers, which add nothing to a test of renames).
TEST_CASE("Two runs writing one --trajectory at once leave a whole file of one of them, 20 of 20",
          "[reliability][slow]") {
  namespace fs = std::filesystem;
  const fs::path dir = fresh_dir("same_trajectory");
  fs::create_directories(dir);
  const std::vector<std::vector<std::string>> runs{
      {"run", "--case", "dk-plane", "--solver", "event-driven", "--samples", "20001"},
      {"run", "--case", "dk-plane", "--solver", "limit", "--samples", "30001"}};
  // Each run's file alone, to compare with.
  std::vector<std::string> expected;
  for (std::size_t k = 0; k < runs.size(); ++k) {
    std::vector<std::string> args = runs[k];
    const fs::path alone = dir / ("alone" + std::to_string(k) + ".csv");
    args.insert(args.end(), {"--trajectory", alone.string(), "--omit-wall-time"});
    REQUIRE(cli(args).status == 0);
    expected.push_back(read_text_file(alone));
  }
  REQUIRE(expected[0] != expected[1]);
  const fs::path shared = dir / "same.csv";
  for (int attempt = 0; attempt < 20; ++attempt) {
    std::vector<CliResult> results(runs.size());
    std::vector<std::thread> threads;
    for (std::size_t k = 0; k < runs.size(); ++k) {
      threads.emplace_back([&, k] {
        std::vector<std::string> args = runs[k];
        args.insert(args.end(), {"--trajectory", shared.string(), "--omit-wall-time"});
        results[k] = cli(args);
      });
    }
    for (auto& t : threads) t.join();
    INFO("attempt " << attempt << ": " << results[0].err << results[1].err);
    CHECK(results[0].status == 0);
    CHECK(results[1].status == 0);
    const std::string file = read_text_file(shared);
    CHECK((file == expected[0] || file == expected[1]));
  }
  for (const auto& entry : fs::directory_iterator(dir)) {
    CHECK(entry.path().filename().string().find(".partial") == std::string::npos);
  }
}

TEST_CASE("A study whose collapse values of N print alike writes one trajectory file for each",
          "[reliability]") {
  namespace fs = std::filesystem;
  nlohmann::json j = nlohmann::json::parse(read_text_file(data_study("small.json")));
  j.erase("work_precision");
  j["collapse"]["N"] = {100, 100.00000001};
  const fs::path dir = fresh_dir("collapse_alike");
  ConvergeOptions options;
  options.out_dir = dir.string();
  options.jobs = 2;
  options.figures = false;
  const ConvergeResult result = run_study(parse_study(j), options);
  CHECK(result.points_internal_error == 0);
  std::set<std::string> files;
  for (const auto& f : result.summary["collapse"]["files"])
    files.insert(f["file"].get<std::string>());
  INFO(result.summary["collapse"].dump());
  CHECK(files.size() == 3);  // two values of N and the limit
  for (const auto& f : files) CHECK(fs::file_size(dir / f) > 0);
}

}  // namespace crbench::testing::reliability_tests
