// crbench verify: the limit model's prediction confirmed by the realization ladder.
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "crbench/bench/cli.hpp"
#include "crbench/bench/study.hpp"
#include "support.hpp"

namespace verify_tests {

namespace {

std::pair<int, nlohmann::json> verify(std::vector<std::string> extra,
                                      const std::string& case_name = "dk-plane") {
  std::vector<std::string> args{"crbench", "verify", "--case", case_name, "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  const int status = crbench::run_cli(static_cast<int>(argv.size()), argv.data(), out, err);
  INFO(err.str());
  return {status, status == 2 ? nlohmann::json() : nlohmann::json::parse(out.str())};
}

// The prediction lies within the extrapolation's error bar, which supports `digits` digits.
void check_bar(const nlohmann::json& j, double digits) {
  INFO(j["verdict"]);
  REQUIRE(j["extrapolation"]["uncertainty"].is_number());
  CHECK(std::abs(j["extrapolation"]["tau_inf"].get<double>() -
                 j["prediction"]["lift_off_time"].get<double>()) <=
        j["extrapolation"]["uncertainty"].get<double>());
  CHECK(j["digits_supported"].get<double>() >= digits);
}

}  // namespace

TEST_CASE("verify confirms the viscous prediction tau = 2 to >= 8 digits with order 1",
          "[verify]") {
  const auto [status, j] = verify({"--preset", "viscous"});
  CHECK(status == 0);
  CHECK(j["confirmed"] == true);
  CHECK(j["prediction"]["lift_off_time"].get<double>() == Approx(2.0).margin(1e-12));
  // The prediction's own error estimate (its run at the ladder's tolerances against the tight
  // one) bounds its actual error: the exact lift-off is 2.
  const double own_error = j["prediction"]["error_estimate"].get<double>();
  CHECK(own_error < 1e-10);
  CHECK(std::abs(j["prediction"]["lift_off_time"].get<double>() - 2.0) <= own_error + 1e-15);
  check_bar(j, 8.0);
  CHECK(j["least_squares_order"].get<double>() == Approx(1.0).margin(0.05));
  CHECK(j["points"].size() == 9);
  for (const auto& p : j["points"]) CHECK(p["flagged"] == false);
}

TEST_CASE("verify confirms two (alpha, beta, gamma) predictions with alpha > 0", "[verify]") {
  for (const auto& model :
       std::vector<std::vector<std::string>>{{"--alpha", "1", "--beta", "0", "--gamma", "1"},
                                             {"--alpha", "1", "--beta", "1", "--gamma", "1"}}) {
    const auto [status, j] = verify(model);
    INFO(j.dump());
    CHECK(status == 0);
    check_bar(j, 8.0);
    CHECK(j["least_squares_order"].get<double>() == Approx(1.0).margin(0.05));
  }
}

TEST_CASE("verify confirms the obstacle's classical limit (order 1/2)", "[verify]") {
  // 1 + ln2/N + sqrt(2/N)(1 - ln2/N)^(1/2): exponents 1/2 and 1; Aitken removes the first, and
  // the error bar (distance to the extrapolation one row coarser) covers the rest.
  const auto [status, j] = verify({"--interaction", "obstacle"});
  CHECK(status == 0);
  CHECK(j["least_squares_order"].get<double>() == Approx(0.5).margin(0.02));
  check_bar(j, 8.0);
}

TEST_CASE("verify does not confirm what the ladder does not support", "[verify]") {
  // The penalty realization's lift-off carries the phase of an undamped normal oscillation:
  // τ_N − 1 = φ(N)/√N with φ(N) oscillating, no power law to extrapolate.
  const auto [status, j] = verify({"--preset", "penalty", "--N-to", "1e4"});
  CHECK(status == 1);
  CHECK(j["confirmed"] == false);
  CHECK(j["expected_order"].is_null());  // the theory states no rate for the penalty
  CHECK(j["extrapolation"]["uncertainty"].is_null());
  CHECK(j["digits_of_agreement"].get<double>() < 8.0);
}

TEST_CASE("verify refuses the tolerances a study refuses, naming the flag", "[verify]") {
  // rtol / tight_factor below the smallest rtol the solvers take: the tight twin would not be
  // tighter by the stated factor. A study refuses it (study.tolerances.tight_factor); so does
  // verify.
  const auto tight = crbench::testing::cli({"verify", "--case", "dk-plane", "--rtol", "1e-14"});
  CHECK(tight.status == 2);
  CHECK(tight.err.find("--tight-factor: --rtol / --tight-factor = 1e-16") != std::string::npos);
  nlohmann::json study = nlohmann::json::parse(R"({
    "name": "t", "case": "dk-plane", "N": {"from": 100, "to": 10000},
    "tolerances": {"rtol": 1e-14},
    "models": [{"label": "viscous", "solver": "realization", "set": {"preset": "viscous"}}]
  })");
  CHECK_THROWS_AS(crbench::parse_study(study), crbench::InputError);
  study["tolerances"]["tight_factor"] = 10;
  CHECK_NOTHROW(crbench::parse_study(study));
  CHECK(crbench::testing::cli({"verify", "--case", "dk-plane", "--rtol", "1e-14", "--tight-factor",
                               "10", "--to", "1e4"})
            .status != 2);  // accepted (its verdict is not this test's)
  for (const auto& [flag, value] : std::vector<std::pair<std::string, std::string>>{
           {"--rtol", "1"}, {"--rtol", "0"}, {"--atol", "-1"}}) {
    const auto refused = crbench::testing::cli({"verify", "--case", "dk-plane", flag, value});
    INFO(flag << " " << value << ": " << refused.err);
    CHECK(refused.status == 2);
    CHECK(refused.err.find(flag + ": " + value + " must be in") != std::string::npos);
  }
}

TEST_CASE("verify: bad ladders are input errors", "[verify]") {
  CHECK(verify({"--N-from", "1e4", "--N-to", "1e3"}).first == 2);
  CHECK(verify({"--N-from", "0"}).first == 2);
  CHECK(verify({"--digits", "0"}).first == 2);
  CHECK(verify({"--per-decade", "1.5"}).first == 2);
  CHECK(verify({"--tight-factor", "1"}).first == 2);
  CHECK(verify({"--N-from", "1e2", "--N-to", "1e3"}).first == 2);  // 2 points
  CHECK(verify({"--preset", "nope"}).first == 2);
}

TEST_CASE(
    "verify runs the case's own configuration: bouncing-ball-penalty's kozlov-impact at the rate "
    "1/2, with advice that fits the ladder",
    "[verify]") {
  // The case carries --preset kozlov-impact for the realization and the limit; verify must judge
  // that model (rate N^-1/2: each stay lasts pi/(omega sqrt(N))), not the default viscous one.
  const auto run_verify = [](std::vector<std::string> extra) {
    return verify(std::move(extra), "bouncing-ball-penalty");
  };
  const auto [coarse_status, coarse] = run_verify({"--N-to", "1e6"});
  CHECK(coarse["model"]["preset"] == "kozlov-impact");
  CHECK(coarse["expected_order"] == 0.5);
  // From 1e2 the coarse rows are not asymptotic: the fit is off, and the verdict says what helps.
  CHECK(coarse_status == 1);
  CHECK_THAT(coarse["verdict"].get<std::string>(),
             Catch::Contains("a ladder that starts at a larger N"));
  const auto [status, j] = run_verify({"--N-from", "1e4", "--N-to", "1e8", "--digits", "5"});
  INFO(j["verdict"]);
  CHECK(status == 0);
  CHECK(j["least_squares_order"].get<double>() == Approx(0.5).margin(0.01));
}

TEST_CASE(
    "verify flags the rows whose solve warns: vibrating-table (1.21e-4, 0, 1) at N = 1e9 and 1e10",
    "[verify]") {
  // Past N = 1e8 the realization's hop out of the medium (height O(1/N^2)) is below the round-off
  // of f: at 1e10 it returns 0.11535, the lift-off of z continued through its zero, with status ok
  // and a warning. A row with a warning must not be trusted.
  const auto [status, j] =
      verify({"--alpha", "1.21e-4", "--beta", "0", "--gamma", "1"}, "vibrating-table");
  CHECK(status == 1);
  CHECK(j["prediction"]["prediction_rule"] == "continuation");
  for (const auto& row : j["points"]) {
    const double N = row["N"].get<double>();
    INFO("N " << N);
    CHECK(row["flagged"] == (N > 2e8));
    if (N > 2e8) CHECK(row["flag"] == "SOLVER WARNING");
  }
  CHECK_THAT(j["verdict"].get<std::string>(), Catch::Contains("starts at a larger N"));
  const auto [confirmed, k] =
      verify({"--alpha", "1.21e-4", "--beta", "0", "--gamma", "1", "--N-from", "1e5", "--N-to",
              "1e8", "--per-decade", "2", "--digits", "5"},
             "vibrating-table");
  INFO(k["verdict"]);
  CHECK(confirmed == 0);
  check_bar(k, 5.0);
}

TEST_CASE("verify --axis h: Moreau-Jean's positions converge at order 1 in h on dk-plane",
          "[verify][ladder-axis]") {
  // h = 3e-2 ... 3e-5 puts the switch at x = 0 (t = 1) inside a step. The classical motion is
  // x = t - 1, y = 0 to t = 1, then y = (t - 1)^2 / 2: the scheme's largest deviation from it is
  // about 1.4 h (the lift-off is resolved to a step), of order 1.
  const auto [status, j] =
      verify({"--solver", "moreau-jean", "--axis", "h", "--from", "3e-2", "--to", "3e-5"});
  INFO(j.dump(1));
  CHECK(status == 0);
  CHECK(j["axis"] == "h");
  CHECK(j["confirmed"] == true);
  const auto& max_q = j["observables"]["max_q_deviation"];
  CHECK(max_q["points"].size() == 4);
  CHECK(max_q["least_squares_order"].get<double>() == Approx(1.0).margin(0.05));
  for (const auto& p : max_q["points"]) {
    CHECK(p["flagged"] == false);
    // An order-1 error of about h: between h/10 and 10 h on every rung.
    const double h = p["h"].get<double>(), e = p["error"].get<double>();
    CHECK(e > 0.1 * h);
    CHECK(e < 10.0 * h);
  }
  // The lift-off: the end of a step, within h of the classical 1, no order stated.
  const auto& lift = j["observables"]["lift_off_time"];
  CHECK(lift["expected_order"].is_null());
  for (const auto& p : lift["points"]) {
    CHECK(std::abs(p["error"].get<double>()) <= p["h"].get<double>() * (1.0 + 1e-9));
  }
}

TEST_CASE("verify --axis h flags rows whose error the reference or round-off hides",
          "[verify][ladder-axis]") {
  // On the decade ladder 1e-2 ... 1e-5 the switch at t = 1 is a step end: the lift-off error is
  // exactly 0 at 1e-3 ... 1e-5, and at h = 1e-2 the scheme leaves one step early and lands on the
  // classical motion to round-off. Those rows are flagged ROUND-OFF and left out of the fits.
  const auto [status, j] = verify({"--solver", "moreau-jean", "--axis", "h"});
  INFO(j.dump(1));
  const auto& lift = j["observables"]["lift_off_time"]["points"];
  REQUIRE(lift.size() == 4);
  CHECK(lift[0]["flag"] == "");
  for (int i = 1; i < 4; ++i) CHECK(lift[i]["flag"] == "ROUND-OFF");
  CHECK(j["observables"]["max_q_deviation"]["points"][0]["flag"] == "ROUND-OFF");
  // The three trusted rows still give order 1.
  CHECK(j["observables"]["max_q_deviation"]["least_squares_order"].get<double>() ==
        Approx(1.0).margin(0.05));
  CHECK(status == 0);
}

TEST_CASE("verify --axis rtol measures an adaptive solver against its own tight run",
          "[verify][ladder-axis]") {
  // The realization at N = 1e4 is not the limit model, so its reference is itself at rtol 1e-14
  // (error estimate: the difference from rtol 1e-12); rows whose error that estimate does not
  // resolve are flagged REFERENCE. No order in rtol is stated (NO RATE STATED, exit 1).
  const auto [status, j] =
      verify({"--solver", "realization", "--N", "1e4", "--alpha", "1", "--beta", "0", "--gamma",
              "1", "--axis", "rtol", "--from", "1e-6", "--to", "1e-12"});
  INFO(j.dump(1));
  CHECK(status == 1);
  CHECK(j["reference"]["what"].get<std::string>().find("realization at rtol 1e-14") == 0);
  const auto& lift = j["observables"]["lift_off_time"];
  CHECK(lift["expected_order"].is_null());
  CHECK(lift["verdict"].get<std::string>().rfind("NO RATE STATED", 0) == 0);
  const double estimate = j["reference"]["error_estimate"]["lift_off_time"].get<double>();
  for (const auto& p : lift["points"]) {
    if (p["flag"] == "") CHECK(estimate < 0.01 * std::abs(p["error"].get<double>()));
    if (p["flag"] == "REFERENCE") CHECK(!(estimate < 0.01 * std::abs(p["error"].get<double>())));
  }
  // The finest rung (rtol 1e-12) is what the estimate itself measures: it cannot be trusted.
  CHECK(lift["points"].back()["flagged"] == true);
}

TEST_CASE("verify: an axis the solver cannot run is an input error", "[verify][ladder-axis]") {
  CHECK(verify({"--solver", "event-driven", "--axis", "h"}).first == 2);    // no step h
  CHECK(verify({"--solver", "moreau-jean", "--axis", "rtol"}).first == 2);  // no rtol
  CHECK(verify({"--solver", "moreau-jean", "--axis", "N"}).first == 2);
  CHECK(verify({"--solver", "realization", "--axis", "rtol"}).first == 2);  // needs --N
  CHECK(verify({"--axis", "dt"}).first == 2);
  CHECK(
      verify({"--solver", "moreau-jean", "--axis", "h", "--from", "1e-5", "--to", "1e-2"}).first ==
      2);  // fine end coarser than the coarse end
  CHECK(verify({"--solver", "moreau-jean", "--axis", "h", "--from", "2"}).first == 2);
  CHECK(verify({"--N", "1e4"}).first == 2);  // an N ladder sets N itself
}

}  // namespace verify_tests

namespace verify_tests {

// The same ladders through `crbench verify` and through a study: the one ladder engine
// (bench/ladder_engine.hpp) builds both commands' runs, references and row inputs, so their rows
// and verdicts are equal. An N ladder of the realization against the limit model (the study's
// "limit" reference), and Moreau-Jean's h ladder against the case's closed form.
TEST_CASE("verify and converge give the same rows and verdict on the same ladder",
          "[verify][study]") {
  const nlohmann::json study = nlohmann::json::parse(R"({
    "name": "agreement", "case": "dk-plane",
    "N": {"from": 100, "to": 100000, "per_decade": 1},
    "tolerances": {"rtol": 1e-12, "atol": 1e-14, "tight_factor": 100},
    "samples": 601,
    "observables": ["lift_off_time", "max_q_deviation"],
    "models": [
      {"label": "viscous", "solver": "realization", "set": {"preset": "viscous"},
       "reference": "limit", "expected_order": {"lift_off_time": 1}},
      {"label": "mj", "solver": "moreau-jean", "ladder": {"axis": "h", "from": 3e-2, "to": 3e-4},
       "reference": "closed-form", "expected_order": {"max_q_deviation": 1}}
    ]
  })");
  crbench::ConvergeOptions options;
  options.out_dir = crbench::testing::fresh_dir("verify_agreement").string();
  options.jobs = 2;
  options.figures = false;
  const auto result = crbench::run_study(crbench::parse_study(study), options);
  const nlohmann::json models = nlohmann::json::parse(result.summary.dump())["models"];
  REQUIRE(models.size() == 2);

  SECTION("an N ladder against the limit model") {
    const auto [status, j] = verify({"--preset", "viscous", "--to", "1e5"});
    const nlohmann::json& ladder = models[0]["observables"]["lift_off_time"];
    INFO(j.dump(1) << "\n" << ladder.dump(1));
    CHECK(j["verdict"] == ladder["verdict"]);
    CHECK(j["verdict"].get<std::string>().rfind("CONFIRMED", 0) == 0);
    CHECK(j["prediction"]["lift_off_time"] == ladder["reference_value"]);
    REQUIRE(j["points"].size() == ladder["rows"].size());
    for (std::size_t i = 0; i < j["points"].size(); ++i) {
      CHECK(j["points"][i]["tau_N"] == ladder["rows"][i]["value"]);
      CHECK(j["points"][i]["tau_N_tight"] == ladder["rows"][i]["value_tight"]);
      CHECK(j["points"][i]["flag"] == ladder["rows"][i]["flag"]);
    }
    CHECK(j["extrapolation"]["tau_inf"] == ladder["extrapolated_limit"]);
  }

  SECTION("an h ladder against the closed form") {
    const auto [status, j] =
        verify({"--axis", "h", "--solver", "moreau-jean", "--from", "3e-2", "--to", "3e-4"});
    for (const char* o : {"lift_off_time", "max_q_deviation"}) {
      const nlohmann::json& ours = j["observables"][o];
      const nlohmann::json& ladder = models[1]["observables"][o];
      INFO(o << "\n" << ours.dump(1) << "\n" << ladder.dump(1));
      CHECK(ours["verdict"] == ladder["verdict"]);
      REQUIRE(ours["points"].size() == ladder["rows"].size());
      for (std::size_t i = 0; i < ours["points"].size(); ++i) {
        CHECK(ours["points"][i]["value"] == ladder["rows"][i]["value"]);
        CHECK(ours["points"][i]["flag"] == ladder["rows"][i]["flag"]);
      }
    }
    CHECK(j["observables"]["max_q_deviation"]["verdict"].get<std::string>().rfind("CONFIRMED", 0) ==
          0);
  }
}

}  // namespace verify_tests

TEST_CASE(
    "verify states the obstacle's order from the kind of sign change of lambda at the limit's "
    "lift-off - 1/3 where it crosses 0 - 1/2 where a force switch makes it jump",
    "[verify][obstacle]") {
  const auto order_of = [](const std::string& case_name, const std::string& digits) {
    const crbench::testing::CliResult r =
        crbench::testing::cli({"verify", "--case", case_name, "--interaction", "obstacle", "--from",
                               "1e2", "--to", "1e6", "--digits", digits, "--json"});
    INFO(r.out << r.err);
    return nlohmann::json::parse(r.out);
  };
  // pendulum-string: the string's tension falls through 0 continuously.
  const auto string = order_of("pendulum-string", "2");
  CHECK(string["expected_order"].get<double>() == 1.0 / 3.0);
  CHECK(string["confirmed"] == true);
  CHECK(string["least_squares_order"].get<double>() == Approx(1.0 / 3.0).margin(0.05));
  // dk-plane: the force switch at t = 1 makes lambda jump.
  const auto plane = order_of("dk-plane", "8");
  CHECK(plane["expected_order"].get<double>() == 0.5);
}
