#include "bench/report.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <boost/version.hpp>
#include <cctype>
#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "bench/run_support.hpp"
#include "bench/study.hpp"
#include "cases/registry.hpp"
#include "crbench/version.hpp"
#include "solvers/solver.hpp"

namespace crbench {
namespace {

std::string scientific(double x, int digits = 3) {
  if (!std::isfinite(x)) return "n/a";
  std::ostringstream s;
  s.precision(digits);
  s << std::scientific << x;
  return s.str();
}

std::string compiler() {
#if defined(__clang__)
  return "clang " __clang_version__;
#elif defined(__GNUC__)
  return "g++ " __VERSION__;
#else
  return "unknown compiler";
#endif
}

// Siconos's BouncingBallTS run (h = 0.005, θ = 0.5, e = 0.9 on [0, 10]) against its stored output
// (tests/data/siconos, copied from ../shared/reference/siconos with its provenance).
std::string siconos_comparison(const std::string& out_dir) {
  namespace fs = std::filesystem;
  const fs::path reference_path =
      fs::path(CRBENCH_SOURCE_DIR) / "tests/data/siconos/BouncingBallTS.ref";
  std::ostringstream md;
  md << "## External reference: Siconos BouncingBallTS\n\n";
  std::ifstream in(reference_path);
  int rows = 0, columns = 0;
  if (!(in >> rows >> columns) || rows < 1 || columns != 5) {
    md << "Reference file " << reference_path.string()
       << " not found or malformed: not compared.\n";
    return md.str();
  }
  std::vector<std::array<double, 5>> reference(static_cast<std::size_t>(rows));
  for (auto& r : reference) in >> r[0] >> r[1] >> r[2] >> r[3] >> r[4];

  RunRequest request;
  request.case_name = "bouncing-ball-siconos";
  request.solver_name = "moreau-jean";
  // h 0.005, theta 0.5 and restitution 0.9 are the case's own settings (CaseInfo).
  request.samples = rows;
  std::size_t row = 0;
  double worst_height = 0.0, worst_velocity = 0.0, worst_impulse = 0.0;
  request.observer = [&](const TrajectorySample& s) {
    if (!s.label.empty() || row >= reference.size()) return;
    const auto& r = reference[row++];
    worst_height = std::max(worst_height, std::abs(s.x.q(0) - r[1]));
    worst_velocity = std::max(worst_velocity, std::abs(s.x.v(0) - r[2]));
    worst_impulse = std::max(worst_impulse, std::abs(s.impulse(0) - r[3]));
  };
  const RunRecord record = execute(request);
  std::ofstream(fs::path(out_dir) / "siconos-bouncing-ball.moreau-jean.json")
      << to_json(record, false).dump(2) << "\n";
  md << "crbench's `moreau-jean` on `bouncing-ball-siconos` with Siconos's settings (h 0.005, "
        "theta 0.5, restitution 0.9, t in [0, 10]) against the "
     << rows << " rows of Siconos 4.4.0's output (status " << record.status << ", " << row
     << " rows compared):\n\n"
     << "| quantity | max abs. deviation |\n|---|---|\n"
     << "| height q0 | " << scientific(worst_height) << " |\n"
     << "| velocity v0 | " << scientific(worst_velocity) << " |\n"
     << "| impulse of the step | " << scientific(worst_impulse) << " |\n";
  return md.str();
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string first_line_with(const std::string& path, const std::string& prefix) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) == 0) return line.substr(prefix.size());
  }
  return "unknown";
}

std::string machine() {
  std::ostringstream s;
  std::string os = first_line_with("/etc/os-release", "PRETTY_NAME=");
  os.erase(std::remove(os.begin(), os.end(), '"'), os.end());
  std::string cpu = first_line_with("/proc/cpuinfo", "model name\t: ");
  s << cpu << ", " << std::thread::hardware_concurrency() << " hardware threads; " << os << "; "
    << compiler() << "; Eigen " << EIGEN_WORLD_VERSION << "." << EIGEN_MAJOR_VERSION << "."
    << EIGEN_MINOR_VERSION << ", Boost " << BOOST_VERSION / 100000 << "."
    << BOOST_VERSION / 100 % 1000 << ", nlohmann/json " << NLOHMANN_JSON_VERSION_MAJOR << "."
    << NLOHMANN_JSON_VERSION_MINOR << "." << NLOHMANN_JSON_VERSION_PATCH;
  return s.str();
}

// The canonical studies (bench/studies/*.json, in name order), each into out_dir/<name>/.
std::string canonical_studies(const std::string& out_dir, int jobs, std::ostream& progress) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(fs::path(CRBENCH_SOURCE_DIR) / "bench/studies")) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  std::ostringstream md;
  for (const auto& file : files) {
    const Study study = load_study(file.string());
    ConvergeOptions options;
    options.out_dir = (fs::path(out_dir) / study.name).string();
    options.jobs = jobs;
    options.log = &progress;
    const ConvergeResult result = run_study(study, options);
    const fs::path dir = options.out_dir;
    md << "## Study `" << study.name << "` (`bench/studies/" << file.filename().string() << "`)\n\n"
       << study.description << "\n\nFiles: `" << study.name << "/` (points.jsonl, study.json, "
       << "one table per observable as .md/.csv/.tex/.json, figures as .png/.pdf). "
       << result.points_total << " points.\n\n"
       << read_text(dir / "models.md") << "\n";
    if (result.figures_written) {
      for (const auto& [name, caption] : std::vector<std::pair<std::string, std::string>>{
               {"error_vs_N", "lift-off error against N, log-log, with the fitted slopes"},
               {"lift_off_vs_N", "lift-off time against N with the predicted and classical lines"},
               {"collapse", "N f(q_N(t)) for several N over z(t) (seed 004 (2.6))"},
               {"near_lift_off", "the constraint value near lift-off"},
               {"work_precision", "work-precision"}}) {
        if (fs::exists(dir / (name + ".png"))) {
          md << "![" << caption << "](" << study.name << "/" << name << ".png)\n\n*" << caption
             << ".*\n\n";
        }
      }
    } else {
      md << "**" << result.figures_message << ".**\n\n";
    }
    for (const auto& o : study.observables) md << read_text(dir / (o + ".md")) << "\n";
    if (fs::exists(dir / "work_precision.md")) md << read_text(dir / "work_precision.md") << "\n";
  }
  return md.str();
}

}  // namespace

int write_report(const std::string& out_dir, int jobs, std::ostream& progress) {
  namespace fs = std::filesystem;
  const auto start = std::chrono::steady_clock::now();
  fs::create_directories(out_dir);
  nlohmann::json summary = nlohmann::json::array();
  std::ostringstream table;
  table << "| case | solver | model | status | lift_off_time | predicted | abs. error | max abs. "
           "error of q vs closed form (grid) | steps | rhs evals | wall time [s] | tolerances |\n"
        << "|---|---|---|---|---|---|---|---|---|---|---|---|\n";

  for (const auto& c : case_registry()) {
    for (const auto& s : solver_registry()) {
      RunRequest request;
      request.case_name = c.info.name;
      request.solver_name = s->name();
      const std::string stem = c.info.name + "." + s->name();
      request.trajectory_path = (fs::path(out_dir) / (stem + ".trajectory.csv")).string();

      const auto model = make_model(c.info.name, {});
      RunSettings defaults;
      configure_solver(*s, {}, defaults);
      const std::string limit_model =
          s->limit_model(defaults.solver_params, defaults.solver_choices);
      const Facts facts = model->facts();
      const ClosedFormTrajectory* exact = facts.trajectory(limit_model);
      // Realization closed forms depend on N; the ideal ones ignore it.
      const auto N = defaults.solver_params.find("N");
      const double realization_N = N == defaults.solver_params.end() ? std::nan("") : N->second;
      double max_q_error = 0.0;
      long compared = 0;
      request.observer = [&](const TrajectorySample& sample) {
        if (!exact || !sample.label.empty()) return;
        if (const auto q = exact->q(sample.x.t, realization_N)) {
          max_q_error = std::max(max_q_error, (sample.x.q - *q).lpNorm<Eigen::Infinity>());
          ++compared;
        }
      };

      const RunRecord record = execute(request);
      if (compared == 0) max_q_error = std::nan("");
      std::ofstream(fs::path(out_dir) / (stem + ".json")) << to_json(record, false).dump(2) << "\n";

      const auto predicted = facts.lift_off_time(limit_model);
      const double error = predicted && record.lift_off_time
                               ? std::abs(*record.lift_off_time - *predicted)
                               : std::nan("");
      summary.push_back(
          {{"case", c.info.name},
           {"solver", s->name()},
           {"model", limit_model},
           {"status", record.status},
           {"lift_off_time",
            record.lift_off_time ? nlohmann::json(*record.lift_off_time) : nlohmann::json()},
           {"predicted_lift_off_time", predicted ? nlohmann::json(*predicted) : nlohmann::json()},
           {"lift_off_error", std::isfinite(error) ? nlohmann::json(error) : nlohmann::json()},
           {"max_q_error_vs_closed_form",
            std::isfinite(max_q_error) ? nlohmann::json(max_q_error) : nlohmann::json()},
           {"tolerances", record.tolerances}});
      table << "| " << c.info.name << " | " << s->name() << " | " << limit_model << " | "
            << record.status << " | "
            << (record.lift_off_time ? format_number(*record.lift_off_time) : "none") << " | "
            << (predicted ? format_number(*predicted) : "n/a") << " | " << scientific(error)
            << " | " << scientific(max_q_error) << " | " << record.steps << " | "
            << record.rhs_evaluations << " | " << scientific(record.wall_time_s, 2) << " | "
            << tolerance_text(record.tolerances) << " |\n";
      progress << "report: " << stem << ": " << record.status << "\n";
    }
  }
  std::ofstream(fs::path(out_dir) / "summary.json") << summary.dump(2) << "\n";
  const std::string siconos = siconos_comparison(out_dir);
  const std::string studies = canonical_studies(out_dir, jobs, progress);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::ofstream readme(fs::path(out_dir) / "README.md");
  readme << "# crbench results\n\n"
         << "Generated by `crbench report` (crbench " << version << ", " << compiler() << ") in "
         << std::fixed << std::setprecision(1) << seconds << std::defaultfloat << " s with " << jobs
         << " threads on: " << machine() << ".\n\n"
         << studies << "## Every case through every solver\n\n"
         << "Every registered case through every registered solver with default parameters. "
            "Each run's record is `<case>.<solver>.json` (wall time left out so that the file is "
            "deterministic) and its trajectory on a 1001-point grid plus event rows is "
            "`<case>.<solver>.trajectory.csv`; `summary.json` holds the table below.\n\n"
         << "\"predicted\" is the case's analytic lift-off time for the model the solver "
            "approximates; the last error column is the largest deviation of q from the case's "
            "closed-form trajectory for that model on the output grid.\n\n"
         << table.str() << "\n"
         << siconos;
  progress << "report: wrote " << out_dir << "\n";
  return 0;
}

}  // namespace crbench
