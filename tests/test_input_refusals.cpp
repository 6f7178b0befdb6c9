// Input that used to be accepted and then ignored, misread or failed later: each is refused when it
// is read, with exit status 2 and one line naming the field.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "crbench/bench/sweep.hpp"
#include "tests/support.hpp"

namespace crbench::testing::input_refusal_tests {
namespace {

namespace fs = std::filesystem;

fs::path write_text(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
  return path;
}

nlohmann::json sweep_on(const std::string& case_name, const std::string& axis, double from,
                        double to, const nlohmann::json& model) {
  return {
      {"name", "s"},
      {"case", case_name},
      {"axes", {{{"name", axis}, {"from", from}, {"to", to}, {"count", 3}, {"spacing", "log"}}}},
      {"model", model}};
}

}  // namespace

TEST_CASE("Command-line values: an empty one, one beyond a double, an unknown subcommand",
          "[reliability]") {
  check_refused({"run", "--case", "dk-plane", "--solver", "event-driven", "--t-end", ""},
                "--t-end: an empty value");
  check_refused({"run", "--case", "dk-plane", "--solver", "event-driven", "--t-end", "1e400"},
                "--t-end: '1e400' is out of the range of a double");
  check_refused({"frobnicate"}, "'frobnicate' is not a crbench subcommand");
}

TEST_CASE("Study and sweep files: a key twice, a label too long, a file too large",
          "[reliability]") {
  const fs::path dir = fresh_dir("input_refusals");
  fs::create_directories(dir);
  const fs::path twice = write_text(
      dir / "twice.json", R"({"name": "a", "case": "dk-plane", "case": "particle-on-circle"})");
  check_refused({"converge", "--study", twice.string()}, "gives the key \"case\" twice");
  check_refused({"sweep", "--sweep", twice.string()}, "gives the key \"case\" twice");
  nlohmann::json study = {{"name", "a"},
                          {"case", "dk-plane"},
                          {"N", {{"from", 100}, {"to", 10000}}},
                          {"observables", {"lift_off_time"}},
                          {"models",
                           {{{"label", std::string(100000, 'x')},
                             {"solver", "realization"},
                             {"set", {{"preset", "viscous"}}},
                             {"reference", "limit"}}}}};
  const fs::path long_label = write_text(dir / "long.json", study.dump());
  check_refused({"converge", "--study", long_label.string()},
                "study.models[0].label: a label of 100000 characters; at most 100");
  const fs::path large = dir / "large.json";
  write_text(large, "{}");
  fs::resize_file(large, 17u << 20);
  check_refused({"converge", "--study", large.string()},
                "a study or sweep file has at most 16 MiB");
}

TEST_CASE("A sweep's models are checked when it is read: ranges and kinematic cases",
          "[reliability]") {
  const fs::path dir = fresh_dir("sweep_models");
  fs::create_directories(dir);
  const fs::path beta =
      write_text(dir / "beta.json",
                 sweep_on("dk-plane", "beta", 1, 1e12, {{"alpha", 0}, {"gamma", 1}}).dump());
  check_refused({"sweep", "--sweep", beta.string()},
                "the model's beta = 1e+12 is outside the limit solver's range");
  const fs::path kinematic =
      write_text(dir / "kinematic.json",
                 sweep_on("chaplygin-sled", "gamma", 1, 10, {{"alpha", 0}, {"beta", 1}}).dump());
  check_refused({"sweep", "--sweep", kinematic.string()}, "has kinematic constraints");
}

TEST_CASE("A log axis from near the smallest double has distinct finite values", "[reliability]") {
  const Sweep s = parse_sweep_text(
      sweep_on("dk-plane", "case.g", 1e-320, 1e3, {{"alpha", 1}, {"beta", 1}, {"gamma", 1}}).dump(),
      "tiny");
  REQUIRE(s.axes.size() == 1);
  const auto& v = s.axes[0].values;
  REQUIRE(v.size() == 3);
  CHECK(v[0] == 1e-320);
  CHECK(std::isfinite(v[1]));
  CHECK(v[1] > v[0]);
  CHECK(v[2] == 1e3);
}

}  // namespace crbench::testing::input_refusal_tests
