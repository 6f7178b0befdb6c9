// crbench sweep (bench/sweep.hpp): the limit model's lift-off over a (ζ, ω₀) grid on dk-plane
// against the closed-form z, Proposition 1 over the written grid, determinism across threads and
// resumption, and malformed sweep files.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "crbench/bench/sweep.hpp"
#include "support.hpp"

namespace sweep_tests {

namespace fs = std::filesystem;
using crbench::InputError;
using nlohmann::json;

namespace {

json dk_plane_map(int count, bool check = false) {
  json j = json::parse(R"({
    "name": "t", "case": "dk-plane",
    "axes": [{"name": "zeta", "from": 0.05, "to": 20, "count": 10, "spacing": "log"},
             {"name": "omega0", "from": 0.1, "to": 20, "count": 10, "spacing": "log"}],
    "model": {"alpha": 1}
  })");
  j["axes"][0]["count"] = count;
  j["axes"][1]["count"] = count;
  if (check) j["check"] = {{"N", 1e6}, {"stride", 4}};
  return j;
}

std::string error_of(const json& j) {
  try {
    crbench::parse_sweep(j);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string read(const fs::path& p) { return crbench::testing::read_text_file(p); }

fs::path fresh_dir(const std::string& name) { return crbench::testing::fresh_dir("sweep_" + name); }

crbench::SweepResult sweep(const json& j, const fs::path& dir, int jobs, bool resume = false) {
  crbench::SweepOptions options;
  options.out_dir = dir.string();
  options.jobs = jobs;
  options.resume = resume;
  options.figures = false;
  return crbench::run_sweep(crbench::parse_sweep(j), options);
}

std::vector<json> rows_of(const fs::path& dir) {
  std::vector<json> rows;
  std::ifstream in(dir / "points.jsonl");
  for (std::string line; std::getline(in, line);) rows.push_back(json::parse(line));
  return rows;
}

}  // namespace

TEST_CASE("sweep on dk-plane: the limit's lift-off is the closed-form zero of z at sampled points",
          "[sweep]") {
  const fs::path dir = fresh_dir("closed_form");
  const auto result = sweep(dk_plane_map(10), dir, 2);
  REQUIRE(result.points_total == 100);
  const auto rows = rows_of(dir);
  REQUIRE(rows.size() == 100);
  int compared = 0;
  for (std::size_t k = 0; k < rows.size() && compared < 20; k += 3) {
    const json& r = rows[k];
    if (!r["lift_off_time"].is_number()) continue;
    const double a = r["alpha"], b = r["beta"], c = r["gamma"];
    INFO("(alpha, beta, gamma) = (" << a << ", " << b << ", " << c << ")");
    CHECK(std::abs(r["lift_off_time"].get<double>() -
                   crbench::testing::dk_plane_lift_off(a, b, c)) <= 1e-10);
    CHECK(r["classical_lift_off_time"].get<double>() == Approx(1.0).margin(1e-12));
    // ζ and ω₀ recovered from the (α, β, γ) the point ran with.
    CHECK(r["damping_ratio"].get<double>() == Approx(r["zeta"].get<double>()).epsilon(1e-14));
    CHECK(r["natural_frequency"].get<double>() == Approx(r["omega0"].get<double>()).epsilon(1e-14));
    ++compared;
  }
  CHECK(compared == 20);
}

TEST_CASE("sweep on dk-plane: Proposition 1 holds at every grid point with zeta >= 1", "[sweep]") {
  // Deryabin & Kozlov 1995 §3: β² ≥ 4αγ gives z < 0 beyond the first zero of λ, hence a delay;
  // where z has no zero before the horizon the lift-off (if any) is later still.
  const fs::path dir = fresh_dir("proposition_1");
  const auto result = sweep(dk_plane_map(12), dir, 2);
  int checked = 0;
  for (const json& r : rows_of(dir)) {
    if (!(r["damping_ratio"].get<double>() >= 1.0)) continue;
    ++checked;
    INFO(r.dump());
    if (r["theorem_applies"].get<bool>()) {
      CHECK(r["delay"].get<double>() > 0.0);
      CHECK(r["proposition"] == "1");
    } else {
      CHECK_THAT(r["why"].get<std::string>(), Catch::StartsWith("no zero of z before the horizon"));
    }
  }
  CHECK(checked >= 50);
  const json summary = json::parse(read(dir / "sweep.json"));
  CHECK(summary["proposition_1"]["points"] == summary["proposition_1"]["delayed"]);
}

TEST_CASE(
    "sweep on dk-plane: the lift-off and the proposition label are the same for (alpha, beta, "
    "gamma) scaled by 0.1 and 10",
    "[sweep]") {
  // Scaling (α, β, γ) by s gives the same model (Deryabin & Kozlov 1995 §1): with ζ and ω₀ fixed,
  // α = s scales β = 2ζ√(αγ) and γ = αω₀² by s too. Every label must follow (Proposition 2's
  // window included: the damped half-period π/ω_d, not the printed π/√(4αγ − β²)).
  std::vector<std::vector<json>> runs;
  for (const double s : {1.0, 0.1, 10.0}) {
    json j = dk_plane_map(12);
    j["model"]["alpha"] = s;
    const fs::path dir = fresh_dir("scaled_" + std::to_string(static_cast<int>(10 * s)));
    sweep(j, dir, 2);
    runs.push_back(rows_of(dir));
  }
  int proposition_2 = 0;
  for (std::size_t k = 0; k < runs[0].size(); ++k) {
    const json& base = runs[0][k];
    if (base["proposition"] == "2") ++proposition_2;
    for (std::size_t s = 1; s < runs.size(); ++s) {
      const json& scaled = runs[s][k];
      INFO(base.dump() << "\n" << scaled.dump());
      CHECK(scaled["proposition"] == base["proposition"]);
      CHECK(scaled["theorem_applies"] == base["theorem_applies"]);
      if (base["lift_off_time"].is_number()) {
        CHECK(std::abs(scaled["lift_off_time"].get<double>() -
                       base["lift_off_time"].get<double>()) <= 1e-9);
      }
    }
  }
  CHECK(proposition_2 >= 10);  // the grid has points where Proposition 2 decides
}

TEST_CASE(
    "sweep over three axes (zeta, omega0, alpha): every alpha slice is the two-axis map, and the "
    "summary's scaling invariance says so",
    "[sweep]") {
  // With ζ and ω₀ fixed, α scales (α, β, γ) = α (1, 2ζω₀, ω₀²): the same limit motion (Deryabin &
  // Kozlov 1995, after Theorem 1), so each slice along α must repeat the (ζ, ω₀) map.
  json cube = dk_plane_map(6);
  cube["model"] = json::object();
  cube["axes"].push_back(
      {{"name", "alpha"}, {"from", 0.1}, {"to", 10}, {"count", 3}, {"spacing", "log"}});
  const fs::path dir = fresh_dir("cube");
  const auto result = sweep(cube, dir, 2);
  REQUIRE(result.points_total == 108);
  const fs::path flat_dir = fresh_dir("cube_flat");
  sweep(dk_plane_map(6), flat_dir, 2);
  const auto rows = rows_of(dir);
  const auto flat = rows_of(flat_dir);
  REQUIRE(rows.size() == 108);
  REQUIRE(flat.size() == 36);
  int compared = 0;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const json& r = rows[k];
    // Row-major, the last axis fastest.
    const std::vector<int> index = r["index"];
    REQUIRE(index.size() == 3);
    CHECK(static_cast<std::size_t>((index[0] * 6 + index[1]) * 3 + index[2]) == k);
    const json& f = flat[k / 3];
    INFO(r.dump() << "\n" << f.dump());
    CHECK(r["alpha"].get<double>() == Approx(std::pow(10.0, index[2] - 1)).epsilon(1e-15));
    CHECK(r["damping_ratio"].get<double>() ==
          Approx(f["damping_ratio"].get<double>()).epsilon(1e-14));
    CHECK(r["theorem_applies"] == f["theorem_applies"]);
    CHECK(r["proposition"] == f["proposition"]);
    CHECK(r["lift_off_time"].is_number() == f["lift_off_time"].is_number());
    if (r["lift_off_time"].is_number()) {
      CHECK(std::abs(r["lift_off_time"].get<double>() - f["lift_off_time"].get<double>()) <= 1e-9);
      ++compared;
    }
  }
  CHECK(compared >= 60);
  const json invariance = json::parse(read(dir / "sweep.json"))["scaling_invariance"];
  INFO(invariance.dump());
  CHECK(invariance["columns"] == 36);
  CHECK(invariance["compared"].get<int>() * 3 >= compared);
  CHECK(invariance["largest_spread"].get<double>() <= 1e-9);
  CHECK(invariance["classification_differs"] == 0);
  // A two-axis (ζ, ω₀) map has no such summary.
  CHECK_FALSE(json::parse(read(flat_dir / "sweep.json")).contains("scaling_invariance"));
}

TEST_CASE("sweep: the same files with 1 or 2 threads and after an interrupted run", "[sweep]") {
  const json j = dk_plane_map(6, true);
  const fs::path one = fresh_dir("jobs1");
  const fs::path two = fresh_dir("jobs2");
  sweep(j, one, 1);
  sweep(j, two, 2);
  for (const char* file : {"points.jsonl", "grid.csv", "grid.json", "sweep.json"}) {
    INFO(file);
    CHECK(read(one / file) == read(two / file));
  }
  // An interrupted run: half the lines kept, the last one cut in the middle.
  const std::string full = read(one / "points.jsonl");
  std::size_t cut = 0;
  for (int k = 0; k < 18; ++k) cut = full.find('\n', cut) + 1;
  {
    std::ofstream out(two / "points.jsonl", std::ios::binary | std::ios::trunc);
    out << full.substr(0, cut + 20);
  }
  const auto resumed = sweep(j, two, 2, true);
  CHECK(resumed.points_computed == 36 - 18);
  for (const char* file : {"points.jsonl", "grid.csv", "grid.json", "sweep.json"}) {
    INFO(file);
    CHECK(read(one / file) == read(two / file));
  }
  // The realization checks (every 4th point along each axis: 4 of 36).
  const json summary = json::parse(read(one / "sweep.json"));
  CHECK(summary["checks"]["points"] == 4);
  CHECK(summary["checks"]["flagged"] == 0);
}

TEST_CASE("sweep files: a malformed one is an input error naming the field", "[sweep]") {
  const auto with = [](const std::function<void(json&)>& edit) {
    json j = dk_plane_map(4);
    edit(j);
    return error_of(j);
  };
  CHECK(error_of(dk_plane_map(4)).empty());
  CHECK_THAT(with([](json& j) { j["colour"] = 1; }),
             Catch::StartsWith("sweep.colour: unknown field"));
  CHECK_THAT(with([](json& j) { j["axes"][0]["name"] = "eta"; }),
             Catch::StartsWith("sweep.axes[0].name: 'eta' is neither a model parameter"));
  CHECK_THAT(with([](json& j) { j["axes"][1]["count"] = 1; }),
             Catch::StartsWith("sweep.axes[1].count: 1 is outside [2, 200]"));
  CHECK_THAT(with([](json& j) { j["axes"][0]["to"] = 0.01; }),
             Catch::StartsWith("sweep.axes[0].to: 0.01 must exceed from = 0.05"));
  CHECK_THAT(with([](json& j) { j["axes"][0]["spacing"] = "geometric"; }),
             Catch::StartsWith("sweep.axes[0].spacing: 'geometric' must be linear or log"));
  CHECK_THAT(with([](json& j) { j["axes"].erase(1); }),
             Catch::StartsWith("sweep.model.omega0: with zeta or omega0 the model needs both"));
  CHECK_THAT(with([](json& j) { j["model"]["beta"] = 1; }),
             Catch::StartsWith("sweep.model.beta: beta and gamma follow from zeta and omega0"));
  CHECK_THAT(with([](json& j) { j["model"]["zeta"] = 1; }),
             Catch::StartsWith("sweep.model.zeta: it is an axis too"));
  CHECK_THAT(with([](json& j) {
               j["axes"][1] = {{"name", "case.g"}, {"from", -1}, {"to", 2}, {"count", 3}};
             }),
             Catch::StartsWith("sweep.axes[1]: the value -1 of case.g is outside its range"));
  CHECK_THAT(with([](json& j) { j["axes"][1]["name"] = "case.mass"; }),
             Catch::StartsWith("sweep.axes[1].name: 'case.mass' is not a parameter of dk-plane"));
  CHECK_THAT(
      with([](json& j) {
        j["axes"] = json::array({{{"name", "beta"}, {"from", 0.1}, {"to", 1}, {"count", 3}}});
        j["model"] = {{"alpha", 1}};
      }),
      Catch::StartsWith("sweep.model.gamma: neither an axis nor a fixed value"));
  CHECK_THAT(with([](json& j) {
               j["check"] = {{"N", 0}};
             }),
             Catch::StartsWith("sweep.check.N: 0 is outside (0, 1e+15]"));
  CHECK_THAT(with([](json& j) {
               j["axes"][0]["count"] = 200;
               j["axes"][1]["count"] = 201;
             }),
             Catch::StartsWith("sweep.axes[1].count: 201 is outside [2, 200]"));
  CHECK_THAT(with([](json& j) {
               for (const char* name : {"alpha", "case.g"}) {
                 j["axes"].push_back({{"name", name}, {"from", 1}, {"to", 2}, {"count", 2}});
               }
             }),
             Catch::StartsWith("sweep.axes: must be an array of one, two or three axes"));
  CHECK_THAT(with([](json& j) {
               j["axes"][0]["count"] = 200;
               j["axes"][1]["count"] = 200;
               j["axes"].push_back({{"name", "alpha"}, {"from", 1}, {"to", 2}, {"count", 4}});
             }),
             Catch::StartsWith("sweep.axes: 160000 points; at most 125000"));
  // Through the command line: exit 2 and one line naming the field.
  const fs::path dir = fresh_dir("malformed");
  fs::create_directories(dir);
  {
    std::ofstream out(dir / "bad.json");
    out << "{\"name\": \"t\", \"case\": \"dk-plane\", \"axes\": 3}";
  }
  const auto r = crbench::testing::cli(
      {"sweep", "--sweep", (dir / "bad.json").string(), "--out", (dir / "out").string()});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("sweep.axes: must be an array of one, two or three axes"));
  {
    std::ofstream out(dir / "broken.json");
    out << "{\"name\": ";
  }
  const auto broken = crbench::testing::cli({"sweep", "--sweep", (dir / "broken.json").string()});
  CHECK(broken.status == 2);
  CHECK_THAT(broken.err, Catch::Contains("is not valid JSON"));
}

TEST_CASE(
    "sweep --resume never keeps rows of other settings: a changed case, parameter, tolerance or "
    "check computes every point again",
    "[sweep]") {
  const fs::path dir = fresh_dir("resume_settings");
  json j = dk_plane_map(3);
  const auto first = sweep(j, dir, 2);
  REQUIRE(first.points_computed == 9);
  CHECK(sweep(j, dir, 2, true).points_computed == 0);  // the same settings: all kept
  std::vector<json> changed;
  changed.push_back(j);
  changed.back()["params"] = {{"g", 4}};
  changed.push_back(j);
  changed.back()["case"] = "particle-on-circle";
  changed.push_back(j);
  changed.back()["tolerances"] = {{"rtol", 1e-10}, {"atol", 1e-12}};
  changed.push_back(j);
  changed.back()["check"] = {{"N", 1e4}, {"stride", 2}};
  changed.push_back(j);
  changed.back()["model"]["alpha"] = 2;
  for (const json& c : changed) {
    INFO(c.dump());
    // Each resume starts from the files of the run before it, whose settings differ.
    const auto resumed = sweep(c, dir, 2, true);
    CHECK(resumed.points_computed == 9);
    CHECK(resumed.lines_discarded == 9);
    // The written rows are this run's: the same as a fresh run with these settings.
    const fs::path fresh = fresh_dir("resume_settings_fresh");
    sweep(c, fresh, 1);
    CHECK(read(dir / "points.jsonl") == read(fresh / "points.jsonl"));
    CHECK(read(dir / "grid.csv") == read(fresh / "grid.csv"));
  }
}

TEST_CASE("sweep: an axis whose values coincide in double precision is an input error", "[sweep]") {
  json j = dk_plane_map(3);
  j["axes"][0] = {{"name", "zeta"}, {"from", 1}, {"to", 1.00000000000001}, {"count", 200}};
  CHECK_THAT(error_of(j), Catch::Contains("sweep.axes[0]"));
  CHECK_THAT(error_of(j), Catch::Contains("the same number in double precision"));
}

TEST_CASE("sweep: a full disk loses no computed point: the rest go to a fallback file",
          "[sweep][reliability]") {
  // The disk fills (RLIMIT_FSIZE: writes past 40 KB fail with EFBIG, as ENOSPC would) in the
  // middle of points.jsonl: the points finished after that stay in memory and go to a fallback
  // file next to the folder; with them appended, --resume computes nothing and the files equal
  // an uninterrupted run's.
  const json j = dk_plane_map(8);
  const fs::path whole = fresh_dir("disk_whole");
  const fs::path full = fresh_dir("disk_full");
  sweep(j, whole, 1);
  const fs::path message = full.string() + ".message";
  fs::remove(message);
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    std::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{40 * 1024, 40 * 1024};
    if (setrlimit(RLIMIT_FSIZE, &limit) != 0) _exit(98);
    int status = 0;
    std::string text;
    try {
      sweep(j, full, 1);
    } catch (const crbench::InputError& e) {
      text = e.what();
      status = 2;
    }
    std::ofstream(message) << text;
    _exit(status);
  }
  int status = 0;
  waitpid(child, &status, 0);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 2);
  const std::string text = read(message);
  INFO(text);
  CHECK_THAT(text, Catch::Contains("cannot append to '" + (full / "points.jsonl").string() +
                                   "' (File too large)"));
  const std::size_t at = text.find("are in '");
  REQUIRE(at != std::string::npos);
  const std::string fallback = text.substr(at + 8, text.find('\'', at + 8) - at - 8);
  CHECK(fs::path(fallback).parent_path() == full.parent_path());
  CHECK(fs::file_size(full / "points.jsonl") == 40 * 1024);
  {
    std::ofstream out(full / "points.jsonl", std::ios::binary | std::ios::app);
    out << read(fallback);
  }
  const auto resumed = sweep(j, full, 1, true);
  CHECK(resumed.points_computed == 0);
  for (const char* file : {"points.jsonl", "grid.csv", "grid.json", "sweep.json"}) {
    INFO(file);
    CHECK(read(whole / file) == read(full / file));
  }
  fs::remove(fallback);
  fs::remove(message);
}

TEST_CASE("sweep: --resume computes again a line altered since it was written", "[sweep]") {
  // Every line carries a checksum of its text. A number turned into a string (the grid took it
  // as it was), a boolean into a number (an internal error) or a line of another point under
  // this point's key are each discarded and computed again.
  const json j = dk_plane_map(3);
  const fs::path whole = fresh_dir("altered_whole");
  const fs::path altered = fresh_dir("altered");
  sweep(j, whole, 1);
  const std::string original = read(whole / "points.jsonl");
  std::vector<std::string> lines;
  {
    std::istringstream in(original);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  REQUIRE(lines.size() == 9);
  json first = json::parse(lines[0]);
  first["lift_off_time"] = "1.5";
  json second = json::parse(lines[1]);
  second["theorem_applies"] = 3;
  json third = json::parse(lines[3]);
  third["key"] = json::parse(lines[2])["key"];
  std::string text = first.dump() + "\n" + second.dump() + "\n" + third.dump() + "\n";
  for (std::size_t k = 4; k < lines.size(); ++k) text += lines[k] + "\n";
  fs::create_directories(altered);
  std::ofstream(altered / "points.jsonl", std::ios::binary) << text;
  const auto resumed = sweep(j, altered, 1, true);
  CHECK(resumed.points_computed == 4);
  CHECK(resumed.lines_discarded == 3);
  for (const char* file : {"points.jsonl", "grid.csv", "grid.json", "sweep.json"}) {
    INFO(file);
    CHECK(read(whole / file) == read(altered / file));
  }
}

TEST_CASE("a sweep's axes carry their units: a case parameter's from the case", "[sweep]") {
  const json j = {{"name", "units"},
                  {"case", "particle-on-circle"},
                  {"axes",
                   {{{"name", "case.v0"}, {"from", 0.1}, {"to", 0.5}, {"count", 2}},
                    {{"name", "omega0"}, {"from", 1}, {"to", 2}, {"count", 2}}}},
                  {"model", {{"alpha", 1}, {"zeta", 1}}}};
  const auto result = sweep(j, fresh_dir("units"), 2);
  const auto& axes = result.summary["axes"];
  CHECK(axes[0]["unit"] == "length/time");
  CHECK(axes[1]["unit"] == "1/time");
}

TEST_CASE("a sweep's t_end ends every solve: a horizon before the lift-off gives none", "[sweep]") {
  json j = {{"name", "horizon"},
            {"case", "dk-plane"},
            {"axes", {{{"name", "zeta"}, {"from", 0.5}, {"to", 2}, {"count", 2}}}},
            {"model", {{"alpha", 1}, {"omega0", 1}}}};
  const auto full = sweep(j, fresh_dir("horizon_full"), 2);
  CHECK(full.summary["ok"] == 2);
  CHECK_FALSE(full.summary.contains("t_end"));
  j["t_end"] = 0.5;  // before the classical lift-off at 1
  const auto dir = fresh_dir("horizon_short");
  const auto cut = sweep(j, dir, 2);
  CHECK(cut.summary["t_end"] == 0.5);
  for (const auto& row : rows_of(dir)) CHECK(row["lift_off_time"].is_null());
  j["t_end"] = -1;
  CHECK_THROWS_WITH(crbench::parse_sweep(j), Catch::Contains("sweep.t_end"));
}

}  // namespace sweep_tests
