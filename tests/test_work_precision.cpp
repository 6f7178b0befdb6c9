// The work–precision overview of the main job (bench/work_precision.hpp): every case with a
// classical limit, every solver of the classical model, one error axis, deterministic output.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "crbench/bench/work_precision.hpp"
#include "crbench/cases/registry.hpp"
#include "support.hpp"

namespace work_precision_tests {

namespace fs = std::filesystem;

TEST_CASE(
    "The work-precision overview: every case with a classical limit, Moreau-Jean at order 1, "
    "byte-identical with 1 and 2 threads",
    "[work-precision]") {
  // A short h ladder (1e-2 ... 1e-3) and one timing solve keep the test fast; the main job runs
  // h to 1e-5 with three.
  const auto run = [](const fs::path& dir, int jobs) {
    std::ostringstream progress;
    return crbench::write_work_precision(
        dir, {.jobs = jobs, .h_fine = 1e-3, .timing_repeats = 1, .figures = false}, progress);
  };
  const fs::path one = crbench::testing::fresh_dir("work_precision_1");
  const fs::path two = crbench::testing::fresh_dir("work_precision_2");
  const auto summary = run(one, 1);
  run(two, 2);
  const std::string text = crbench::testing::read_text_file(one / "work_precision_overview.json");
  CHECK(text == crbench::testing::read_text_file(two / "work_precision_overview.json"));
  CHECK(crbench::testing::read_text_file(one / "digits.csv") ==
        crbench::testing::read_text_file(two / "digits.csv"));

  const auto j = nlohmann::json::parse(text);
  // Every registered case is either measured or left out with a reason.
  std::set<std::string> seen;
  for (const auto& c : j["cases"]) seen.insert(c["case"].get<std::string>());
  for (const auto& c : j["left_out"]) {
    CHECK(!c["why"].get<std::string>().empty());
    seen.insert(c["case"].get<std::string>());
  }
  CHECK(seen.size() == crbench::case_registry().size());
  CHECK(summary.cases >= 16);
  for (const auto& c : j["cases"]) {
    INFO(c["case"].get<std::string>());
    std::set<std::string> solvers;
    for (const auto& s : c["solvers"]) solvers.insert(s["solver"].get<std::string>());
    // The solvers of the classical model, and only those (no medium, no limit model); Siconos's
    // event-driven and Moreau-Jean where it is built and takes the case (a constraint independent
    // of time).
    // Moreau-Jean where it computes the case (not Coulomb friction).
    std::set<std::string> expected{"event-driven"};
    for (const auto& s : crbench::solver_registry()) {
      const auto model = crbench::make_model(c["case"].get<std::string>(), {});
      if (crbench::unsupported_part(*s, model->info())) continue;
      if (s->name() == "moreau-jean") expected.insert(s->name());
      if (!s->name().starts_with("siconos-")) continue;
      crbench::RunSettings settings;
      crbench::configure_solver(*s, {}, settings, &model->info());
      if (!s->refusal(*model, settings)) expected.insert(s->name());
    }
    CHECK(solvers == expected);
    for (const auto& s : c["solvers"]) {
      for (const auto& p : s["points"]) {
        // A trusted point's error is resolved by the reference (1% rule) and above round-off.
        if (p["flag"] == "" && p["error"].is_number()) {
          CHECK(c["reference_error_estimate"].get<double>() < 0.01 * p["error"].get<double>());
        }
        CHECK(p["rhs_evaluations"].get<long>() >= p["steps"].get<long>());
      }
    }
  }
  // dk-plane against its closed form: Moreau-Jean's largest deviation is about 2h (the lift-off
  // resolved to a step), so it falls tenfold from h = 1e-2 to 1e-3 (order 1); event-driven
  // integrates the piecewise-quadratic motion exactly (every point at round-off).
  const auto& dk = j["cases"][0];
  REQUIRE(dk["case"] == "dk-plane");
  CHECK(dk["reference"].get<std::string>().rfind("the closed form", 0) == 0);
  for (const auto& s : dk["solvers"]) {
    // Siconos's Moreau-Jean coincides with crbench's on dk-plane (tests/test_siconos.cpp).
    if (s["solver"] == "moreau-jean" || s["solver"] == "siconos-moreau-jean") {
      REQUIRE(s["points"].size() == 2);
      const double coarse = s["points"][0]["error"].get<double>();
      const double fine = s["points"][1]["error"].get<double>();
      // h = 1e-2 leaves one step early and lands on the classical motion to round-off; the
      // deviation at h = 1e-3 is 2h.
      CHECK(s["points"][0]["flag"] == "ROUND-OFF");
      CHECK(fine == Approx(2e-3).epsilon(0.01));
      CHECK(coarse < fine);
    } else if (s["solver"] == "siconos-event-driven") {
      // DLSODAR's Adams steps are not exact on the piecewise-quadratic motion: the deviation is
      // about 1e-4 rtol (measured 1.0e-7 at rtol 1e-3 ... 1.0e-13 at 1e-9), round-off from
      // rtol 1e-10 on.
      for (const auto& p : s["points"]) {
        const double rtol = p["rtol"].get<double>();
        INFO("siconos-event-driven at rtol " << rtol);
        REQUIRE(p["status"] == "ok");
        CHECK(p["error"].get<double>() <= 2e-4 * rtol + 1e-14);
        if (rtol <= 1e-10) CHECK(p["flag"] == "ROUND-OFF");
      }
    } else {
      for (const auto& p : s["points"]) CHECK(p["flag"] == "ROUND-OFF");
    }
  }
}

}  // namespace work_precision_tests
