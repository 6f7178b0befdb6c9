#include "crbench/bench/report.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <boost/version.hpp>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <thread>
#include <utility>

#include "crbench/bench/chain_outcome.hpp"
#include "crbench/bench/cross_validation.hpp"
#include "crbench/bench/impacts.hpp"
#include "crbench/bench/number_text.hpp"
#include "crbench/bench/observables.hpp"
#include "crbench/bench/run_support.hpp"
#include "crbench/bench/study.hpp"
#include "crbench/bench/sweep.hpp"
#include "crbench/bench/work_precision.hpp"
#include "crbench/cases/registry.hpp"
#include "crbench/solvers/outcome.hpp"
#include "crbench/solvers/solver.hpp"
#include "crbench/version.hpp"

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
// (tests/data/siconos, with its provenance).
std::string siconos_comparison(const std::string& out_dir) {
  namespace fs = std::filesystem;
  const std::string siconos_heading = "# External reference: Siconos BouncingBallTS\n\n";
  const fs::path reference_path = data_path("tests/data/siconos/BouncingBallTS.ref");
  std::ostringstream md;
  md << siconos_heading;
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
  {
    std::ostringstream text;
    text << to_json(record, false).dump(2) << "\n";
    write_file(fs::path(out_dir) / "moreau-jean.json", text.str());
  }
  md << "crbench's `moreau-jean` on `bouncing-ball-siconos` with no flags (the case carries "
        "Siconos's settings: h 0.005, theta 0.5, restitution 0.9, t in [0, 10]) against the "
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

struct StudyOutcome {
  std::string name;
  std::string file;
  nlohmann::ordered_json summary;
  int internal_errors = 0;
};

// The *.json files of a folder of the source tree (or of its installed copy), in name order.
std::vector<std::filesystem::path> json_files(const std::string& folder) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(data_path(folder))) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// What a sweep found, from its summary: the overview's line and its README's.
std::string sweep_facts(const nlohmann::ordered_json& s) {
  std::ostringstream facts;
  facts << s["points"].get<int>() << " grid points (" << s["ok"].get<int>()
        << " with status ok); Theorem 1 applies at " << s["theorem_applies"].get<int>()
        << ", and the lift-off is delayed at " << s["delayed"].get<int>()
        << " of them; Proposition 1 (beta^2 >= 4 alpha gamma) holds at "
        << s["proposition_1"]["points"].get<int>() << " of those, delayed at "
        << s["proposition_1"]["delayed"].get<int>();
  if (s.contains("checks")) {
    facts << "; realization checks at N = " << format_number(s["check"]["N"].get<double>()) << ": "
          << s["checks"]["points"].get<int>() << " points, " << s["checks"]["comparable"].get<int>()
          << " with a lift-off to compare, " << s["checks"]["agree"].get<int>() << " within 10/N, "
          << s["checks"]["flagged"].get<int>() << " flagged";
  }
  if (s.contains("scaling_invariance")) {
    const auto& inv = s["scaling_invariance"];
    facts << "; scaling invariance along alpha: " << inv["compared"].get<int>() << " of "
          << inv["columns"].get<int>()
          << " (zeta, omega0) columns have a lift-off at every alpha, the largest spread of "
             "their lift-offs is "
          << (inv["largest_spread"].is_number() ? format_number(inv["largest_spread"].get<double>())
                                                : std::string("-"))
          << ", and the classification changes along alpha in "
          << inv["classification_differs"].get<int>() << " columns";
  }
  return facts.str();
}

// A canonical sweep's README, after its figures.
void write_sweep_readme(const Sweep& sweep, const std::filesystem::path& file,
                        const std::filesystem::path& dir, const SweepResult& result) {
  namespace fs = std::filesystem;
  const std::string facts = sweep_facts(result.summary);
  std::ostringstream md;
  md << "# Sweep `" << sweep.name << "`\n\n"
     << "Sweep file: `bench/sweeps/" << file.filename().string()
     << "`. Run it alone with `crbench sweep --sweep bench/sweeps/" << file.filename().string()
     << "`; a finer grid is `bench/sweeps/fine/`.\n\n"
     << sweep.description << "\n\n"
     << facts << ". Tolerances: rtol " << format_number(sweep.rtol) << ", atol "
     << format_number(sweep.atol) << ".\n\n";
  if (result.figures_written) {
    md << "![The lift-off delay over the grid](phase_map.png)\n\n"
       << "*The delay tau - tau_classical of the limit model"
       << (sweep.axes.size() == 3 ? " over the first two axes, a map per slice of the third (a "
                                    "selection of slices, named above each map)"
                                  : "")
       << "; hatched: Theorem 1 does not "
          "apply (the reason is in the legend); the Proposition 1 boundary and the edge of "
          "the region where a proposition guarantees the delay; the realization checks.*\n\n";
  } else {
    md << "**" << result.figures_message << ".**\n\n";
  }
  if (fs::exists(dir / "grid.json")) {
    md << "Every point: `grid.csv` and `grid.json` (with its tolerances), `points.jsonl`.\n";
  } else {
    md << "Every point: `grid.csv` (with its tolerances) and `points.jsonl`; beyond 40 000 "
          "points no `grid.json` is written, and the repository keeps neither file of this "
          "sweep (about "
       << (fs::file_size(dir / "grid.csv") + fs::file_size(dir / "points.jsonl")) / 1000000
       << " MB): `crbench report` writes them.\n";
  }
  {
    std::ostringstream text;
    text << md.str();
    write_file(dir / "README.md", text.str());
  }
}

// The canonical sweeps (bench/sweeps/*.json, in name order), each into out_dir/sweeps/<name>/
// with a README and its phase map (drawn on `figures` while the next one computes); returns the
// overview's lines.
std::string canonical_sweeps(const std::filesystem::path& out_dir, int jobs, FigureQueue& figures,
                             std::ostream& progress) {
  namespace fs = std::filesystem;
  std::ostringstream overview;
  for (const auto& file : json_files("bench/sweeps")) {
    const Sweep sweep = load_sweep(file.string());
    SweepOptions options;
    const fs::path dir = out_dir / "sweeps" / sweep.name;
    options.out_dir = dir.string();
    options.jobs = jobs;
    options.log = &progress;
    options.figure_queue = &figures;
    options.on_finished = [sweep, file, dir](const SweepResult& finished) {
      write_sweep_readme(sweep, file, dir, finished);
    };
    const SweepResult result = run_sweep(sweep, options);
    overview << "- [`" << sweep.name << "`](sweeps/" << sweep.name
             << "/README.md): " << sweep_facts(result.summary) << ".\n";
  }
  return overview.str();
}

// The canonical impact studies (bench/impacts/*.json, in name order), each into
// out_dir/impacts/<name>/ with its README; returns the overview's lines.
std::string canonical_impacts(const std::filesystem::path& out_dir, int jobs,
                              std::ostream& progress) {
  std::ostringstream overview;
  for (const auto& file : json_files("bench/impacts")) {
    if (const auto missing = unbuilt_solver(file)) {
      progress << "impact study " << file.filename().string() << ": not run, solver " << *missing
               << " is not built\n";
      overview << "- `" << file.filename().string() << "`: not run, solver " << *missing
               << " is not built.\n";
      continue;
    }
    const ImpactStudy study = load_impact_study(file.string());
    FolderRunOptions options;
    options.out_dir = (out_dir / "impacts" / study.name).string();
    options.jobs = jobs;
    options.log = &progress;
    const ImpactResult result =
        run_impact_study(study, options, "bench/impacts/" + file.filename().string());
    overview << "- [`" << study.name << "`](impacts/" << study.name
             << "/README.md): " << result.points_total << " runs (" << study.rows.size()
             << " rows × " << study.speeds.size() << " impact speeds × " << study.steps.size()
             << " steps), " << result.points_total - result.points_not_ok << " with status ok.\n";
  }
  return overview.str();
}

// The canonical studies (bench/studies/*.json, in name order), each into
// out_dir/studies/<name>/ with a README of its own.
std::vector<StudyOutcome> canonical_studies(const std::filesystem::path& out_dir, int jobs,
                                            FigureQueue& figures, std::ostream& progress) {
  namespace fs = std::filesystem;
  std::vector<StudyOutcome> outcomes;
  for (const auto& file : json_files("bench/studies")) {
    // A study of optional solvers (the engines) is left out where they are not built.
    if (const auto missing = unbuilt_solver(file)) {
      progress << "study " << file.filename().string() << ": not run, solver " << *missing
               << " is not built\n";
      continue;
    }
    const Study study = load_study(file.string());
    ConvergeOptions options;
    const fs::path dir = out_dir / "studies" / study.name;
    options.out_dir = dir.string();
    options.jobs = jobs;
    options.log = &progress;
    // The figures are drawn while the next study computes; the README follows them.
    options.figure_queue = &figures;
    options.on_finished = [study, dir, file](const ConvergeResult& finished) {
      write_study_readme(study, finished, dir, "bench/studies/" + file.filename().string(),
                         "crbench", "../../timing.md");
    };
    const ConvergeResult result = run_study(study, options);
    outcomes.push_back(
        {study.name, file.filename().string(), result.summary, result.points_internal_error});
  }
  return outcomes;
}

// The error of a model's observable at one rung, as the glance table prints it: "-" where the
// ladder has no such rung or the run has no value, the status where the run did not end ok, and
// "(f)" after a flagged row.
std::string glance_cell(const nlohmann::ordered_json& rows, const std::string& axis, double at) {
  for (const auto& row : rows) {
    const double rung = row.at(axis).get<double>();
    if (std::abs(rung - at) > 1e-9 * std::abs(at)) continue;
    if (status_in(row) != Status::ok) return row.at("status").get<std::string>();
    if (row.at("error").is_null()) return "-";
    // An error of exactly 0 is printed as such (its flag says only that 0 cannot be resolved).
    if (row.at("error").get<double>() == 0.0) return "0";
    return scientific_text(row.at("error").get<double>(), 3) +
           (row.at("flagged").get<bool>() ? " (f)" : "");
  }
  return "-";
}

// The README's opening table (study.glance): per model its settings and each observable's error
// at each of the rungs, read from the study's summary.
std::string glance_table(const Study& study, const GlanceTable& glance,
                         const nlohmann::ordered_json& summary) {
  const std::string axis = axis_name(glance.axis, glance.parameter);
  std::ostringstream md;
  md << "### At a glance\n\n"
     << glance.caption << " Each cell is the error against the model's reference at that " << axis
     << " (its row in the observable's table below, with the tolerances it was computed with); "
        "(f): a flagged row; 0: exactly 0; -: no such rung or no value.\n\n| model | settings |";
  std::string rule = "|---|---|";
  for (const auto& observable : glance.observables) {
    for (const double at : glance.at) {
      md << " " << observable << " at " << rung_label(glance.axis, at, glance.parameter) << " |";
      rule += "---|";
    }
  }
  md << "\n" << rule << "\n";
  for (const auto& label : glance.models) {
    const auto& models = summary.at("models");
    const auto model = std::find_if(models.begin(), models.end(),
                                    [&](const auto& m) { return m.at("label") == label; });
    // Its settings as the study file writes them.
    const StudyModel& m = *std::find_if(study.models.begin(), study.models.end(),
                                        [&](const StudyModel& sm) { return sm.label == label; });
    md << "| " << label << " | " << m.solver;
    for (const auto& a : m.assignments) md << ", " << a.key << " = " << a.value;
    md << (m.assignments.empty() ? ", defaults |" : " |");
    for (const auto& observable : glance.observables) {
      const auto& rows = model->at("observables").at(observable).at("rows");
      for (const double at : glance.at) md << " " << glance_cell(rows, axis, at) << " |";
    }
    md << "\n";
  }
  return md.str() + "\n";
}

// "CONFIRMED", "NOT CONFIRMED", ... : the verdict's first words.
std::string verdict_head(const std::string& verdict) {
  const auto colon = verdict.find(':');
  return colon == std::string::npos ? verdict : verdict.substr(0, colon);
}

}  // namespace

void write_study_readme(const Study& study, const ConvergeResult& result,
                        const std::filesystem::path& dir, const std::string& study_file,
                        const std::string& program, const std::string& timing) {
  namespace fs = std::filesystem;
  std::ostringstream md;
  md << "# Study `" << study.name << "`\n\n"
     << "Study file: `" << study_file << "`; " << result.points_total
     << " points. Run it alone with `" << program << " converge --study " << study_file << "`.\n\n";
  if (study.glance) md << glance_table(study, *study.glance, result.summary);
  md << study.description << "\n\n"
     << "The convergence method (flags, extrapolation, error bars, verdicts) is "
        "docs/theory.md §4 in the repository.\n\n"
     << read_text(dir / "models.md") << "\n";
  if (result.figures_written) {
    for (const auto& [name, caption] : std::vector<std::pair<std::string, std::string>>{
             {"error_vs_N",
              "Lift-off error against N, log-log, with the fitted slopes "
              "(hollow markers: flagged rows)"},
             {"lift_off_vs_N", "Lift-off time against N with the predicted and classical lines"},
             {"collapse", "N f(q_N(t)) for several N over z(t) (Deryabin & Kozlov 1995 (2.6))"},
             {"near_lift_off", "The constraint value near lift-off"},
             {"paths",
              "Paths in the coordinate plane: each limit (thick) with its "
              "realizations (thin)"},
             {"error_vs_h",
              "Each h ladder's errors against h, log-log, per observable (hollow markers: "
              "flagged rows)"},
             {"error_vs_rtol",
              "Each rtol ladder's errors against rtol, log-log, per observable (hollow "
              "markers: flagged rows)"}}) {
      if (fs::exists(dir / (name + ".png"))) {
        md << "![" << caption << "](" << name << ".png)\n\n*" << caption << ".*\n\n";
      }
    }
    // Each parameter ladder's axis (the added mass alpha, ...) has its figure.
    std::set<std::string> parameters;
    for (const StudyModel& m : study.models) {
      if (m.has_ladder && m.axis == LadderAxis::parameter) parameters.insert(m.ladder_parameter);
    }
    for (const std::string& parameter : parameters) {
      const std::string name = "error_vs_" + parameter;
      if (!fs::exists(dir / (name + ".png"))) continue;
      const std::string caption = "Each " + parameter + " ladder's errors against " + parameter +
                                  ", log-log, per observable (hollow markers: flagged rows)";
      md << "![" << caption << "](" << name << ".png)\n\n*" << caption << ".*\n\n";
    }
    // A study without a lift-off (kinematic constraints) draws its first deviation instead,
    // and the impact observables each have one.
    for (const auto& o : study.observables) {
      const std::string name = o + "_vs_N";
      if (!fs::exists(dir / (name + ".png"))) continue;
      const std::string caption = o +
                                  ": each N ladder's error against its reference, against N, "
                                  "log-log, with the fitted slopes (hollow markers: flagged "
                                  "rows)";
      md << "![" << caption << "](" << name << ".png)\n\n*" << caption << ".*\n\n";
    }
  } else {
    md << "**" << result.figures_message << ".**\n\n";
  }
  for (const auto& o : study.observables) md << read_text(dir / (o + ".md")) << "\n";
  if (fs::exists(dir / "work_precision.md")) {
    md << "### Work–precision (case " << study.work_precision_case << ")\n\n"
       << "Cost against accuracy on " << study.work_precision_case
       << ": [work_precision.md](work_precision.md) and work_precision.png. They hold wall "
          "times, which differ from run to run" +
              (timing.empty() ? std::string() : " (see " + timing + ")") +
              "; steps and right-hand-side "
              "evaluations are in work_precision.csv beside them.\n";
  }
  write_file(dir / "README.md", md.str());
}

std::optional<std::string> unbuilt_solver(const std::filesystem::path& file) {
  const nlohmann::json study = nlohmann::json::parse(read_text(file));
  // A study's models, an impact study's rows.
  const char* list = study.contains("rows") ? "rows" : "models";
  if (!study.contains(list) || !study[list].is_array()) return std::nullopt;
  for (const auto& model : study[list]) {
    if (!model.is_object() || !model.contains("solver") || !model["solver"].is_string()) continue;
    const std::string name = model["solver"].get<std::string>();
    const auto& solvers = solver_registry();
    if (std::none_of(solvers.begin(), solvers.end(),
                     [&](const auto& s) { return s->name() == name; })) {
      return name;
    }
  }
  return std::nullopt;
}

namespace {

// The table of every case through every solver, as it is filled.
struct EveryCase {
  nlohmann::ordered_json summary = nlohmann::ordered_json::array();
  std::ostringstream table, timing;
  int runs = 0, runs_ok = 0, not_run = 0;
};

// One case through one solver with the settings a user gets without flags: its record and
// trajectory in out_dir/cases/<case>/, its rows of the table, the summary and the timing.
void run_case_with_solver(const CaseInfo& info, const Solver& solver,
                          const std::filesystem::path& out_dir, EveryCase& all,
                          std::ostream& progress) {
  namespace fs = std::filesystem;
  if (const auto part = unsupported_part(solver, info)) {
    all.table << "| " << info.name << " | " << solver.name()
              << " | - | not run: the solver does not compute " << *part
              << " | - | - | - | - | - | - | - | - |\n";
    ++all.not_run;
    return;
  }
  RunRequest request;
  request.case_name = info.name;
  request.solver_name = solver.name();
  const fs::path stem = out_dir / "cases" / info.name / solver.name();
  request.trajectory_path = stem.string() + ".trajectory.csv";

  const auto model = make_model(info.name, {});
  RunSettings defaults;
  configure_solver(solver, {}, defaults, &model->info());
  if (const auto why = solver.refusal(*model, defaults)) {
    // E.g. an ideal solver on data that violate Kozlov 1992 condition (10).
    all.table << "| " << info.name << " | " << solver.name() << " | - | not run: refused (" << *why
              << ") | - | - | - | - | - | - | - | - |\n";
    ++all.not_run;
    return;
  }
  const std::string limit_model =
      solver.limit_model(defaults.solver_params, defaults.solver_choices);
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
  {
    std::ostringstream text;
    text << to_json(record, false).dump(2) << "\n";
    write_file(stem.string() + ".json", text.str());
  }
  ++all.runs;
  all.runs_ok += record.status == Status::ok ? 1 : 0;

  std::string from_case;
  for (const auto& [name, source] : record.parameter_sources) {
    if (source != "case") continue;
    const auto value = record.solver_params.find(name);
    const auto choice = record.solver_choices.find(name);
    from_case +=
        (from_case.empty() ? "" : ", ") + name + " " +
        (value != record.solver_params.end() ? format_number(value->second) : choice->second);
  }
  const auto predicted = facts.lift_off_time(limit_model);
  const double error = predicted && record.lift_off_time
                           ? std::abs(*record.lift_off_time - *predicted)
                           : std::nan("");
  all.summary.push_back(
      {{"case", info.name},
       {"solver", solver.name()},
       {"model", limit_model},
       {"status", record.status},
       {"lift_off_time",
        record.lift_off_time ? nlohmann::json(*record.lift_off_time) : nlohmann::json()},
       {"predicted_lift_off_time", predicted ? nlohmann::json(*predicted) : nlohmann::json()},
       {"lift_off_error", std::isfinite(error) ? nlohmann::json(error) : nlohmann::json()},
       {"max_q_error_vs_closed_form",
        std::isfinite(max_q_error) ? nlohmann::json(max_q_error) : nlohmann::json()},
       {"contact_episodes", record.contact_episodes.size()},
       {"tolerances", record.tolerances},
       {"parameter_sources", record.parameter_sources}});
  all.table << "| " << info.name << " | " << solver.name() << " | " << limit_model << " | "
            << record.status << " | "
            << (record.lift_off_time ? format_number(*record.lift_off_time) : "none") << " | "
            << (predicted ? format_number(*predicted) : "n/a") << " | " << scientific(error)
            << " | " << scientific(max_q_error) << " | " << record.steps << " | "
            << record.rhs_evaluations << " | " << tolerance_text(record.tolerances) << " | "
            << (from_case.empty() ? "-" : from_case) << " |\n";
  all.timing << "| " << info.name << " | " << solver.name() << " | "
             << scientific(record.wall_time_s, 2) << " | " << record.steps << " |\n";
  progress << "report: " << info.name << " / " << solver.name() << ": " << record.status << "\n";
}

// Every case through every solver (the report's cases/ folder, its README and summary.json).
EveryCase run_every_case(const std::filesystem::path& out_dir, std::ostream& progress) {
  namespace fs = std::filesystem;
  EveryCase all;
  all.table
      << "| case | solver | model | status | lift_off_time | predicted | abs. error | max abs. "
         "error of q vs closed form (grid) | steps | rhs evals | tolerances | settings from "
         "the case |\n"
      << "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  all.timing << "| case | solver | wall time [s] | steps |\n|---|---|---|---|\n";
  for (const auto& c : case_registry()) {
    fs::create_directories(out_dir / "cases" / c.info.name);
    for (const auto& s : solver_registry())
      run_case_with_solver(c.info, *s, out_dir, all, progress);
  }
  {
    std::ostringstream text;
    text << all.summary.dump(2) << "\n";
    write_file(out_dir / "cases" / "summary.json", text.str());
  }
  {
    std::ostringstream text;
    text << "# Every case through every solver\n\n"
         << "Every registered case through every registered solver with the settings a user gets "
            "without flags: the solver's defaults and the case's own settings (last column; e.g. "
            "Siconos's step for bouncing-ball-siconos). Each run's record is "
            "`<case>/<solver>.json` and its trajectory on a 1001-point grid plus event rows is "
            "`<case>/<solver>.trajectory.csv`; `summary.json` holds this table.\n\n"
         << "\"predicted\" is the case's analytic lift-off time for the model the solver "
            "approximates (lift_off_time: the end of the last contact episode, docs/theory.md §5); "
            "the error column after it is the largest deviation of q from the case's closed-form "
            "trajectory for that model on the output grid. Wall times are in ../timing.md.\n\n"
         << all.table.str();
    write_file(out_dir / "cases" / "README.md", text.str());
  }

  return all;
}

// The least and largest local orders of a ladder's unflagged rows when they differ by more than
// 0.1 (a sequence with logarithms in it has no power law to fit), else none; the figures apply
// the same rule (scripts/figures.py, order_drift).
std::optional<std::pair<double, double>> order_drift(const nlohmann::ordered_json& rows) {
  std::vector<double> orders;
  for (const auto& row : rows) {
    if (row.value("flagged", false) || !row["local_order"].is_number()) continue;
    orders.push_back(row["local_order"].get<double>());
  }
  if (orders.size() < 2) return std::nullopt;
  const auto [low, high] = std::minmax_element(orders.begin(), orders.end());
  if (*high - *low <= 0.1) return std::nullopt;
  return std::make_pair(*low, *high);
}

// The overview's table per canonical study: each model's verdict, fitted order, extrapolated
// limit and digits, for the lift-off or the study's first observable.
std::string studies_overview(const std::vector<StudyOutcome>& studies) {
  std::ostringstream overview;
  for (const auto& st : studies) {
    overview << "\n### Study [`" << st.name << "`](studies/" << st.name << "/README.md)\n\n"
             << "| model | verdict | fitted order | extrapolated limit +/- bar (ideal: error) | "
                "digits supported |\n"
             << "|---|---|---|---|---|\n";
    // The lift-off when the study has one, else its first observable (a deviation).
    const std::string observable = st.summary["observables"].front().get<std::string>();
    const std::string shown_by_default =
        std::find(st.summary["observables"].begin(), st.summary["observables"].end(),
                  std::string(kLiftOffTime)) != st.summary["observables"].end()
            ? std::string(kLiftOffTime)
            : observable;
    for (const auto& m : st.summary["models"]) {
      const auto& x = m["extrapolation"];
      // An h or rtol ladder judged by its motion shows that observable's fit.
      const std::string shown = m["judged_observable"].is_string()
                                    ? m["judged_observable"].get<std::string>()
                                    : shown_by_default;
      const auto& fit = m["observables"][shown]["fit"];
      std::ostringstream limit;
      const auto& rows = m["observables"][shown]["rows"];
      if (rows.size() == 1 && m["axis"].is_null() && rows[0]["error"].is_number()) {
        limit << (shown == kLiftOffTime ? "error " : shown + " ")
              << scientific(std::abs(rows[0]["error"].get<double>()), 2) << " vs "
              << m["reference"]["kind"].get<std::string>();
      } else if (x["limit"].is_number()) {
        limit << format_number(x["limit"].get<double>());
        if (x["uncertainty"].is_number())
          limit << " +/- " << scientific(x["uncertainty"].get<double>(), 2);
      }
      std::ostringstream digits, order;
      if (m["digits_supported"].is_number())
        digits << std::fixed << std::setprecision(1) << m["digits_supported"].get<double>();
      if (fit.value("bounded_by_step", false)) {
        order << "none (bounded by h)";
      } else if (fit.value("floor", false)) {
        order << "none (a floor)";
      } else if (const auto drift =
                     fit["expected_order"].is_null() ? order_drift(rows) : std::nullopt) {
        // Without a stated order a single fitted one would describe none of the rungs.
        order << "none (local orders " << std::fixed << std::setprecision(2) << drift->first
              << " to " << drift->second << ")";
      } else if (fit["fitted_order"].is_number()) {
        order << std::fixed << std::setprecision(3) << fit["fitted_order"].get<double>();
      }
      overview << "| " << m["label"].get<std::string>() << " | "
               << verdict_head(m["verdict"].get<std::string>()) << " | "
               << (order.str().empty() ? "-" : order.str()) << " | "
               << (limit.str().empty() ? "-" : limit.str()) << " | "
               << (digits.str().empty() ? "-" : digits.str()) << " |\n";
    }
  }

  return overview.str();
}

// What fixed OpenBLAS's kernels in this run. Siconos's solvers call OpenBLAS, which picks its
// kernels by the CPU unless OPENBLAS_CORETYPE names them, and their rounding moves the step
// counts of an event-driven run through several contacts; scripts/run.sh names them.
std::string openblas_kernels() {
  const char* core = std::getenv("OPENBLAS_CORETYPE");
  return std::string(
             "Siconos's solvers call OpenBLAS, which picks its kernels by the CPU unless "
             "OPENBLAS_CORETYPE names them, and the kernels' rounding moves their step counts "
             "where several contacts meet (siconos-event-driven on falling-ladder; README.md of "
             "the repository); `bash scripts/run.sh` sets "
             "OPENBLAS_CORETYPE=Prescott (the generic x86-64 kernels) where it is unset. In this "
             "run it was ") +
         (core != nullptr && *core != '\0'
              ? std::string(core) + "."
              : "unset: the CPU's own kernels, so those files may differ from another machine's.");
}

// The report's README: the overview and where things are.
std::string results_readme(const std::string& overview, const EveryCase& all,
                           const std::string& sweeps, const std::string& impacts,
                           const WorkPrecisionOverview& work_precision,
                           const ChainOutcomeSummary& chain_outcome,
                           const CrossValidationSummary& cross_validation) {
  std::ostringstream readme;
  readme
      << "# crbench results\n\n"
      << "Written by `crbench report` (the main job, `bash scripts/run.sh`), crbench " << version
      << ". Every file here except `timing.md` and the work–precision files "
         "(which hold wall times) is the same on every run with the same libraries. "
      << openblas_kernels() << "\n\n"
      << "## Overview\n\n"
      << "Verdicts of the canonical studies: the lift-off, or, in a study without one, the order "
         "of the first deviation (the reasons are in each study's README; "
         "the method is docs/theory.md §4):\n"
      << overview << "\n"
      << "### Every case through every solver\n\n"
      << all.runs << " runs, " << all.runs_ok << " with status ok"
      << (all.not_run > 0
              ? " (" + std::to_string(all.not_run) +
                    " case × solver pairs not run: the solver does not compute a kind "
                    "of constraint of the case, or refuses its initial data; the reasons "
                    "are in the table)"
              : std::string())
      << ": [cases/README.md](cases/README.md).\n\n"
      << "### Phase maps of the lift-off delay\n\n"
      << sweeps << "\n"
      << "### Impacts\n\n"
      << "One impact at a given speed per run, over impact speeds × steps: restitution, peak "
         "penetration and contact duration beside the ideal rigid impact:\n\n"
      << impacts << "\n"
      << "### Work–precision\n\n"
      << work_precision.cases
      << " cases with a classical limit through every solver of the classical model, "
      << work_precision.points
      << " solves down their rtol or h ladders, every error on one axis (the largest q deviation "
         "from the same reference): [work-precision/README.md](work-precision/README.md), with "
         "the overview figure. Significant correct digits at fixed counts of right-hand-side "
         "evaluations:\n\n"
      << work_precision.markdown << "\n"
      << "### Penalty chain outcome\n\n"
      << "Newton's cradle of n touching balls through the undamped penalty realization at "
         "N = 1e2, 1e4, 1e6, and three balls under stiffness ratios from 0.01 to 100 with "
         "linear and Hertz contacts at N = 1e4, 1e6, 1e8 ("
      << chain_outcome.ok << " of " << chain_outcome.points
      << " runs with status ok): its final velocities do not depend on N, and its limit is "
         "neither Newton's simultaneous law nor the sequential cradle; with three balls it "
         "moves from the one to the other as the far contact goes from stiffer to softer "
         "([chain-outcome/README.md](chain-outcome/README.md); distances in the sup norm, "
         "v0 = 1):\n\n"
      << chain_outcome.markdown << "\n"
      << "### Cross-validation against the Siconos kernel\n\n"
      << (cross_validation.pairs == 0
              ? std::string("Not run: crbench was built without the Siconos kernel "
                            "(CRBENCH_SICONOS off).\n\n")
              : std::to_string(cross_validation.pairs) +
                    " case × pair runs of crbench's event-driven and moreau-jean beside the "
                    "kernel's solvers of the same model: " +
                    std::to_string(cross_validation.agree) + " agree, " +
                    std::to_string(cross_validation.explained) +
                    " differ for a reason of construction stated there, " +
                    std::to_string(cross_validation.disagree) +
                    " disagree or failed: "
                    "[cross-validation/README.md](cross-validation/README.md).\n\n")
      << "### External reference\n\n"
      << "Siconos's BouncingBallTS against crbench's `moreau-jean` with no flags: "
         "[siconos/README.md](siconos/README.md).\n\n"
      << "## Where things are\n\n"
      << "| path | what |\n|---|---|\n"
      << "| `studies/<study>/README.md` | a study: verdicts, figures, tables per observable |\n"
      << "| `studies/<study>/*.md, .csv, .tex, .json` | each table in four formats |\n"
      << "| `studies/<study>/points.jsonl`, `study.json` | every point and the whole analysis |\n"
      << "| `sweeps/<sweep>/README.md`, `phase_map.png` | a phase map of the delay |\n"
      << "| `impacts/<study>/README.md`, `impacts.png` | an impact study: tables and figure |\n"
      << "| `impacts/<study>/impacts.json`, `points.jsonl` | every impact run with its settings |\n"
      << "| `sweeps/<sweep>/grid.csv`, `grid.json`, `points.jsonl` | every grid point (no "
         "`grid.json` beyond 40 000 points; the repository does not keep the dk-plane cube's "
         "`grid.csv` and `points.jsonl`) |\n"
      << "| `cases/<case>/<solver>.json`, `.trajectory.csv` | one run's record and trajectory |\n"
      << "| `cases/summary.json` | the case × solver table |\n"
      << "| `cross-validation/` | crbench's solvers beside the Siconos kernel's, with verdicts |\n"
      << "| `siconos/` | the external reference comparison |\n"
      << "| `benchmarks/siconos.md` | crbench beside the Siconos kernel: Google Benchmark medians "
         "and ratios, written by `bash scripts/siconos_benchmarks.sh`, not by the report |\n"
      << "| `benchmarks/engines.md` | the physics engines beside crbench's solvers: medians, "
         "steps and ratios, written by `bash scripts/engine_benchmarks.sh`, not by the report |\n"
      << "| `timing.md` | wall times and the machine |\n";

  return readme.str();
}

}  // namespace

int write_report(const std::string& out, int jobs, std::ostream& progress) {
  namespace fs = std::filesystem;
  const auto start = std::chrono::steady_clock::now();
  const fs::path out_dir(out);
  std::error_code cannot_create;
  fs::create_directories(out_dir, cannot_create);
  if (cannot_create || !fs::is_directory(out_dir)) {
    throw InputError("--out: cannot create the folder '" + out + "'" +
                     (cannot_create ? " (" + cannot_create.message() + ")"
                                    : std::string(" (a file is in the way)")));
  }
  const OutputLock lock(out_dir);
  // The report owns these folders: nothing stale from an earlier layout or run stays in them.
  for (const char* owned : {"cases", "studies", "siconos", "cross-validation", "work-precision",
                            "chain-outcome", "impacts"}) {
    fs::remove_all(out_dir / owned);
  }
  const EveryCase all = run_every_case(out_dir, progress);

  fs::create_directories(out_dir / "siconos");
  const std::string siconos = siconos_comparison((out_dir / "siconos").string());
  {
    std::ostringstream text;
    text << siconos;
    write_file(out_dir / "siconos" / "README.md", text.str());
  }
  const CrossValidationSummary cross_validation =
      write_cross_validation(out_dir / "cross-validation", registered_subjects(), progress);
  // The figures of each study, sweep and overview are drawn beside the computations that follow.
  FigureQueue figures(jobs);
  const std::vector<StudyOutcome> studies = canonical_studies(out_dir, jobs, figures, progress);
  const std::string sweeps = canonical_sweeps(out_dir, jobs, figures, progress);
  const std::string impacts = canonical_impacts(out_dir, jobs, progress);
  const WorkPrecisionOverview work_precision = write_work_precision(
      out_dir / "work-precision", {.jobs = jobs, .figure_queue = &figures}, progress);
  const ChainOutcomeSummary chain_outcome =
      write_chain_outcome(out_dir / "chain-outcome", jobs, progress, &figures);
  figures.wait();
  progress << "report: figures written in " << figures.drawn() << " of " << figures.submitted()
           << " folders (their READMEs say where they are not)\n";
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  write_file(out_dir / "README.md",
             results_readme(studies_overview(studies), all, sweeps, impacts, work_precision,
                            chain_outcome, cross_validation));

  {
    std::ostringstream text;
    text << "# Timing\n\n"
         << "`crbench report` took " << std::fixed << std::setprecision(1) << seconds
         << std::defaultfloat << " s with " << jobs << " threads on: " << machine() << ".\n\n"
         << "Wall time of each case × solver run (the solve alone; the machine is shared, so these "
            "vary from run to run; `bench/perf` has Google Benchmark medians):\n\n"
         << all.timing.str();
    write_file(out_dir / "timing.md", text.str());
  }
  progress << "report: wrote " << out_dir.string() << "\n";
  int internal_errors = 0;
  for (const auto& outcome : studies) internal_errors += outcome.internal_errors;
  if (internal_errors > 0) {
    progress << "report: " << internal_errors
             << " study points ended in internal_error (see the studies' points.jsonl)\n";
    return 1;
  }
  return 0;
}

}  // namespace crbench
