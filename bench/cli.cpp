#include "crbench/bench/cli.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <thread>

#include "crbench/bench/check.hpp"
#include "crbench/bench/impacts.hpp"
#include "crbench/bench/json_fields.hpp"
#include "crbench/bench/mpi.hpp"
#include "crbench/bench/report.hpp"
#include "crbench/bench/run_support.hpp"
#include "crbench/bench/study.hpp"
#include "crbench/bench/sweep.hpp"
#include "crbench/bench/verify.hpp"
#include "crbench/cases/case_plugin.hpp"
#include "crbench/cases/registry.hpp"
#include "crbench/solvers/solver.hpp"
#include "crbench/version.hpp"

namespace crbench {
namespace {

std::string flag_name(const std::string& param) {
  std::string s = param;
  std::replace(s.begin(), s.end(), '_', '-');
  return "--" + s;
}

// The help of a flag that several solvers share: the first solver's description, and where
// others describe it otherwise (another meaning, default or set of names), which ones: `crbench
// run --solver S --help` gives S's.
std::string shared_description(const std::string& name) {
  std::string first, first_solver;
  std::vector<std::string> others;
  for (const auto& s : solver_registry()) {
    std::optional<std::string> description;
    for (const auto& p : s->parameters()) {
      if (p.name == name) description = p.description;
    }
    for (const auto& c : s->choices()) {
      if (c.name == name) description = c.description;
    }
    if (!description) continue;
    if (first_solver.empty()) {
      first = *description;
      first_solver = s->name();
    } else if (*description != first) {
      others.push_back(s->name());
    }
  }
  if (others.empty()) return first;
  return first_solver + ": " + first + " (otherwise for " + join(others) +
         ": crbench run --solver S --help)";
}

// Case parameters are given as `--set NAME=VALUE`, solver parameters as `--NAME-WITH-DASHES`.
void print_params(std::ostream& out, const std::vector<ParamSpec>& params, bool as_flags) {
  for (const auto& p : params) {
    out << "    " << std::left << std::setw(26) << (as_flags ? flag_name(p.name) : p.name)
        << " default " << std::setw(8)
        << (p.default_note.empty() ? format_number(p.default_value) : "(" + p.default_note + ")")
        << " range " << std::setw(14) << p.range_text();
    if (!p.unit.empty()) out << " [" << p.unit << "]";
    out << "  " << p.description << "\n";
  }
}

nlohmann::json params_json(const std::vector<ParamSpec>& params) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& p : params) {
    out.push_back(
        {{"name", p.name},
         {"default", p.default_note.empty() ? nlohmann::json(p.default_value) : nlohmann::json()},
         {"default_rule", p.default_note},
         {"min", std::isfinite(p.min) ? nlohmann::json(p.min) : nlohmann::json("-inf")},
         {"max", std::isfinite(p.max) ? nlohmann::json(p.max) : nlohmann::json("inf")},
         {"range", p.range_text()},
         {"unit", p.unit},
         {"description", p.description}});
  }
  return out;
}

nlohmann::json settings_json(const std::vector<CaseSolverSetting>& settings) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& s : settings) {
    out.push_back({{"solver", s.solver}, {"name", s.name}, {"value", s.value}, {"why", s.why}});
  }
  return out;
}

int list_command(bool as_json, std::ostream& out) {
  if (as_json) {
    nlohmann::json j;
    j["cases"] = nlohmann::json::array();
    for (const auto& c : case_registry()) {
      j["cases"].push_back({{"name", c.info.name},
                            {"description", c.info.description},
                            {"dof", c.info.dof},
                            {"constraints", c.info.constraints},
                            {"constraint_names", c.info.constraint_names},
                            {"switches", c.info.switch_names},
                            {"params", params_json(c.info.params)},
                            {"solver_settings", settings_json(c.info.solver_settings)}});
      if (!c.plugin.empty()) j["cases"].back()["plugin"] = c.plugin;
    }
    j["solvers"] = nlohmann::json::array();
    for (const auto& s : solver_registry()) {
      nlohmann::json choices = nlohmann::json::array();
      for (const auto& c : s->choices()) {
        nlohmann::json choice = {{"name", c.name},
                                 {"options", c.options},
                                 {"default", c.default_value},
                                 {"description", c.description}};
        if (!c.open_form.empty()) choice["form"] = c.open_form;
        choices.push_back(std::move(choice));
      }
      j["solvers"].push_back({{"name", s->name()},
                              {"description", s->description()},
                              {"params", params_json(s->parameters())},
                              {"choices", choices}});
    }
    out << j.dump(2) << "\n";
    return 0;
  }
  out << "cases (parameters: --set NAME=VALUE):\n";
  for (const auto& c : case_registry()) {
    out << "  " << c.info.name << "  (n = " << c.info.dof << ", m = " << c.info.constraints
        << ")\n    " << c.info.description << "\n";
    if (!c.plugin.empty()) out << "    loaded from " << c.plugin << "\n";
    if (!c.info.constraint_names.empty()) {
      // A chain case names one, numbered per contact (contact0, contact1, ...).
      std::string names;
      for (const auto& name : c.info.constraint_names) names += (names.empty() ? "" : ", ") + name;
      out << "    constraints (--constraint, \"constraint\"): " << names << "\n";
    }
    print_params(out, c.info.params, false);
    for (const auto& s : c.info.solver_settings) {
      out << "    carries for " << s.solver << ": " << flag_name(s.name) << " " << s.value << "  ("
          << s.why << ")\n";
    }
  }
  out << "solvers (parameters: --NAME VALUE):\n";
  for (const auto& s : solver_registry()) {
    out << "  " << s->name() << "\n    " << s->description() << "\n";
    for (const auto& c : s->choices()) {
      out << "    " << std::left << std::setw(26) << flag_name(c.name) << " default "
          << std::setw(8) << c.default_value << " one of " << c.accepted_text() << "  "
          << c.description << "\n";
    }
    print_params(out, s->parameters(), true);
  }
  return 0;
}

void print_summary(const RunRecord& r, std::ostream& out) {
  out << r.case_name << " / " << r.solver << ": " << r.status;
  if (!r.reason.empty()) out << " (" << r.reason << ")";
  for (const auto& w : r.warnings) out << "\n  warning: " << w;
  out << "\n  lift_off_time: "
      << (r.lift_off_time ? format_number(*r.lift_off_time) : std::string("none")) << "\n";
  out << "  events:";
  for (const auto& e : r.events) {
    out << "  " << e.kind << "@" << format_number(e.t);
    if (e.index >= 0) {
      const EventIndex counted = event_index_of(e.kind);
      out << (counted == EventIndex::switch_function ? " s"
              : counted == EventIndex::kinematic_row ? " g"
                                                     : " f")
          << e.index;
    }
  }
  out << "\n  min_constraint:";
  for (const double f : r.min_constraint) out << " " << format_number(f);
  if (!r.constraint_impulse.empty()) {
    out << "\n  constraint_impulse:";
    for (const double p : r.constraint_impulse) out << " " << format_number(p);
  }
  // The case's coordinate names: "x = 2, y = 2, v_x = 1, v_y = 2".
  const auto name = [&r](Eigen::Index i) {
    return i < static_cast<Eigen::Index>(r.coordinates.size())
               ? r.coordinates[static_cast<std::size_t>(i)].name
               : "q" + std::to_string(i);
  };
  out << "\n  final_state: t = " << format_number(r.final_state.t);
  for (Eigen::Index i = 0; i < r.final_state.q.size(); ++i)
    out << ", " << name(i) << " = " << format_number(r.final_state.q(i));
  for (Eigen::Index i = 0; i < r.final_state.v.size(); ++i)
    out << ", v_" << name(i) << " = " << format_number(r.final_state.v(i));
  out << "\n  steps " << r.steps << ", rhs evaluations " << r.rhs_evaluations << ", wall time "
      << r.wall_time_s << " s\n  tolerances: " << tolerance_text(r.tolerances) << "\n";
}

}  // namespace

// `crbench run --solver S --help`: the options every run takes, then S's own parameters and
// choices with their defaults, ranges and units (the general help lists every solver's flags).
// nullopt when argv is not such a request.
std::optional<int> solver_help(int argc, const char* const* argv, std::ostream& out,
                               std::ostream& err) {
  if (argc < 2 || std::string(argv[1]) != "run") return std::nullopt;
  bool help = false;
  std::optional<std::string> solver;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") help = true;
    if (a == "--solver" && i + 1 < argc) solver = argv[i + 1];
    if (a.rfind("--solver=", 0) == 0) solver = a.substr(9);
  }
  if (!help || !solver) return std::nullopt;
  const Solver* s = nullptr;
  try {
    s = &find_solver(*solver);
  } catch (const InputError& e) {
    err << "crbench: " << e.what() << "\n";
    return 2;
  }
  out << "crbench run --case C --solver " << s->name() << " [options]\n\n"
      << s->description() << "\n\n"
      << "Options of every run: --set KEY=VALUE (case parameters, see crbench list), --t-end T, "
         "--json, --omit-wall-time, --trajectory FILE.csv, --samples K, --max-wall-time S"
      << (s->takes_tolerances() ? ", --rtol R (default 1e-12), --atol A (default 1e-14)" : "")
      << ".\n\nParameters of " << s->name() << " (--NAME VALUE):\n";
  for (const auto& c : s->choices()) {
    out << "    " << std::left << std::setw(26) << flag_name(c.name) << " default " << std::setw(8)
        << c.default_value << " one of " << c.accepted_text() << "  " << c.description << "\n";
  }
  print_params(out, s->parameters(), true);
  return 0;
}

namespace {

// `crbench run`: one case, one solver. Every solver's parameters are options of `run`; after
// parsing, an option that does not belong to the chosen solver is rejected by name.
struct RunCommand {
  CLI::App* command = nullptr;
  RunRequest request;
  std::vector<std::string> assignments;
  std::string rtol_text, atol_text, t_end_text, samples_text, trajectory_path, max_wall_time_text;
  bool as_json = false;
  bool omit_wall_time = false;
  std::map<std::string, std::string> solver_option_text;
  std::map<std::string, CLI::Option*> solver_options;
  bool progress_shown = false;

  void add_to(CLI::App& app, std::ostream& err);
  void show_progress(std::ostream& err);
  int execute(std::ostream& out, std::ostream& err);
};

void RunCommand::add_to(CLI::App& app, std::ostream& err) {
  command = app.add_subcommand("run", "solve one case with one solver");
  command->add_option("--case", request.case_name, "case name (see crbench list)")->required();
  command->add_option("--solver", request.solver_name, "solver name (see crbench list)")
      ->required();
  command->add_option("--set", assignments, "case parameter KEY=VALUE (repeatable)");
  command->add_option("--rtol", rtol_text, "relative tolerance of the integrator (default 1e-12)");
  command->add_option("--atol", atol_text, "absolute tolerance of the integrator (default 1e-14)");
  command->add_option("--t-end", t_end_text, "end of the horizon (default: the case's)");
  command->add_flag("--json", as_json, "print the record as one JSON object");
  command->add_flag("--omit-wall-time", omit_wall_time,
                    "leave wall_time_s out of the JSON (for byte-for-byte comparisons)");
  command->add_option("--trajectory", trajectory_path,
                      "write t, q, v, f, lambda, mu to this CSV file");
  command->add_option("--samples", samples_text,
                      "trajectory grid points over the horizon (default 1001, at most 1e6)");
  command->add_option("--max-wall-time", max_wall_time_text,
                      "seconds the solve may take; past it the run ends with status "
                      "wall_time_exceeded (default: no bound)");
  const std::string solver_group =
      "Solver parameters (each belongs to some solvers: crbench run --solver S --help lists S's "
      "with their defaults and ranges)";
  for (const auto& s : solver_registry()) {
    for (const auto& p : s->parameters()) {
      if (solver_options.count(p.name)) continue;
      solver_options[p.name] = command
                                   ->add_option(flag_name(p.name), solver_option_text[p.name],
                                                shared_description(p.name))
                                   ->group(solver_group)
                                   ->type_name("NUMBER");
    }
    for (const auto& c : s->choices()) {
      if (solver_options.count(c.name)) continue;
      solver_options[c.name] = command
                                   ->add_option(flag_name(c.name), solver_option_text[c.name],
                                                shared_description(c.name))
                                   ->group(solver_group)
                                   ->type_name("NAME");
    }
  }
  if (isatty(fileno(stderr)) != 0) show_progress(err);
}

// On a terminal, a solve still running after 2 s keeps one live line on stderr: where it is, how
// long it has taken, and at its pace how long it will take. The line is cleared when the solve
// ends.
void RunCommand::show_progress(std::ostream& err) {
  request.on_progress = [started = std::chrono::steady_clock::now(), this, &err](
                            double t, double t0, double t_end) {
    if (!(t > t0) || !(t_end > t0)) return;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (elapsed < 2.0) return;
    const double fraction = std::min(1.0, (t - t0) / (t_end - t0));
    const double left = elapsed * (1.0 - fraction) / fraction;
    std::ostringstream line;
    line << "crbench: t = " << std::setprecision(4) << t << " of " << t_end << " ("
         << static_cast<int>(100.0 * fraction) << "%), " << std::llround(elapsed)
         << " s so far, about " << std::llround(left) << " s left (--max-wall-time bounds it)";
    err << "\r" << std::left << std::setw(78) << line.str();
    err.flush();
    progress_shown = true;
  };
}

int RunCommand::execute(std::ostream& out, std::ostream& err) {
  for (const auto& a : assignments)
    request.case_assignments.push_back(parse_assignment(a, "--set"));
  if (!rtol_text.empty()) request.rtol = parse_finite("--rtol", rtol_text);
  if (!atol_text.empty()) request.atol = parse_finite("--atol", atol_text);
  if (!t_end_text.empty()) request.t_end = parse_finite("--t-end", t_end_text);
  if (!samples_text.empty()) {
    const double samples = parse_finite("--samples", samples_text);
    if (samples != std::floor(samples) || samples < 2 || samples > 1e6) {
      throw InputError("--samples: '" + samples_text + "' must be a whole number in [2, 1e6]");
    }
    request.samples = static_cast<int>(samples);
  }
  if (!max_wall_time_text.empty()) {
    request.max_wall_time = parse_finite("--max-wall-time", max_wall_time_text);
    if (!kMaxWallTimeSpec.admits(request.max_wall_time)) {
      throw InputError("--max-wall-time: '" + max_wall_time_text + "' must be in " +
                       kMaxWallTimeSpec.range_text() + " (seconds)");
    }
  }
  for (const auto& [name, option] : solver_options) {
    if (option->count() > 0) request.solver_assignments.push_back({name, solver_option_text[name]});
  }
  request.trajectory_path = trajectory_path;

  const RunRecord record = solve(request);
  if (progress_shown) err << "\r" << std::string(78, ' ') << "\r";
  if (as_json) {
    out << to_json(record, !omit_wall_time).dump(2) << "\n";
  } else {
    print_summary(record, out);
  }
  return record.status == Status::ok ? 0 : 1;
}

// `crbench verify`: a ladder in N, h or rtol and its verdict.
struct VerifyCommand {
  CLI::App* command = nullptr;
  VerifyRequest request;
  std::vector<std::string> sets, solver_sets;
  std::map<std::string, std::string> model_text;
  std::string from_text, to_text, per_decade_text, digits_text, rtol_text, atol_text, tight_text,
      axis_text, N_text, t_end_text, constraint_text;

  void add_to(CLI::App& app);
  int execute(std::ostream& out);
};

void VerifyCommand::add_to(CLI::App& app) {
  command = app.add_subcommand(
      "verify",
      "the limit model's predicted lift-off beside the realization ladder in N; or one solver's "
      "error down a ladder in h or rtol, with the fitted order");
  command->add_option("--case", request.case_name, "case name")->required();
  command->add_option("--set", sets, "case parameter KEY=VALUE (repeatable)");
  for (const char* name : {"preset", "alpha", "beta", "gamma", "interaction", "kappa", "k",
                           "realize", "ideal_restitution"}) {
    command->add_option(flag_name(name), model_text[name],
                        "as for crbench run --solver realization / limit");
  }
  command->add_option("--theta", model_text["theta"], "moreau-jean's theta (an h ladder)");
  command->add_option("--solver-set", solver_sets,
                      "any other setting of the ladder's solver KEY=VALUE (repeatable), as its "
                      "--KEY VALUE in crbench run: restitution=0 for moreau-jean; an N ladder "
                      "gives it to the realization and to the limit model");
  command->add_option("--axis", axis_text,
                      "the ladder: N (the realization against the limit model, the default), h "
                      "(a fixed-step solver's step) or rtol (an adaptive solver's tolerance)");
  command->add_option("--solver", request.solver,
                      "the solver of an h or rtol ladder (default realization; an N ladder runs "
                      "the realization)");
  command->add_option("--N", N_text, "the fixed N of a realization's rtol ladder");
  command->add_option("--from,--N-from", from_text,
                      "the coarse end: N 1e2, h 1e-2, rtol 1e-4 by default");
  command->add_option("--to,--N-to", to_text,
                      "the fine end: N 1e10, h 1e-5, rtol 1e-12 by default");
  command->add_option("--per-decade", per_decade_text, "points per decade (default 1)");
  command->add_option("--digits", digits_text, "digits of agreement required (default 8)");
  command->add_option("--tight-factor", tight_text,
                      "the discretization check runs at tolerances / this (default 100)");
  command->add_option("--rtol", rtol_text, "relative tolerance (default 1e-12)");
  command->add_option("--atol", atol_text, "absolute tolerance (default 1e-14)");
  command->add_option("--t-end", t_end_text, "end of every run's horizon (default: the case's)");
  command->add_option("--constraint", constraint_text,
                      "the constraint (its name or index) whose lift-off is measured (default: "
                      "the whole system's, the end of the last contact of any constraint)");
  command->add_flag("--json", request.json, "print the verdict table as JSON");
}

int VerifyCommand::execute(std::ostream& out) {
  for (const auto& a : sets) request.case_assignments.push_back(parse_assignment(a, "--set"));
  for (const auto& [name, value] : model_text) {
    if (!value.empty()) request.model_assignments.push_back({name, value});
  }
  for (const auto& a : solver_sets) {
    request.model_assignments.push_back(parse_assignment(a, "--solver-set"));
  }
  const auto whole = [](const std::string& flag, const std::string& value) {
    const double x = parse_finite(flag, value);
    if (x != std::floor(x) || std::abs(x) > 1e6) {
      throw InputError(flag + ": '" + value + "' is not a whole number");
    }
    return static_cast<int>(x);
  };
  if (!axis_text.empty()) request.axis = parse_axis(axis_text, "--axis");
  if (!N_text.empty()) request.N_fixed = parse_finite("--N", N_text);
  if (!from_text.empty()) request.from = parse_finite("--from", from_text);
  if (!to_text.empty()) request.to = parse_finite("--to", to_text);
  if (!per_decade_text.empty()) request.per_decade = whole("--per-decade", per_decade_text);
  if (!digits_text.empty()) request.digits = whole("--digits", digits_text);
  if (!tight_text.empty()) request.tight_factor = parse_finite("--tight-factor", tight_text);
  if (!rtol_text.empty()) request.rtol = parse_finite("--rtol", rtol_text);
  if (!atol_text.empty()) request.atol = parse_finite("--atol", atol_text);
  if (!t_end_text.empty()) request.t_end = parse_finite("--t-end", t_end_text);
  if (!constraint_text.empty()) request.constraint = constraint_text;
  return run_verify(request, out);
}

// `crbench check`: the self-test of a case (bench/check.hpp).
struct CheckCommand {
  CLI::App* command = nullptr;
  CheckRequest request;
  std::vector<std::string> sets, solver_sets;

  void add_to(CLI::App& app) {
    command = app.add_subcommand(
        "check",
        "a case's self-test: AD derivatives against finite differences, its classical facts "
        "against event-driven, the metric along the path, each constraint's round-off floor "
        "and the largest N above it");
    command->add_option("--case", request.case_name, "case name")->required();
    command->add_option("--set", sets, "case parameter KEY=VALUE (repeatable)");
    command->add_option("--solver-set", solver_sets,
                        "a setting of the realization whose depth is set against the floors "
                        "KEY=VALUE (repeatable): preset, alpha, beta, gamma, N, contact_scale");
    command->add_flag("--json", request.json, "print the checks as JSON");
  }
  int execute(std::ostream& out) {
    for (const auto& a : sets) request.case_assignments.push_back(parse_assignment(a, "--set"));
    for (const auto& a : solver_sets) {
      request.realization_assignments.push_back(parse_assignment(a, "--solver-set"));
    }
    return run_check(request, out);
  }
};

// The threads of a command: --jobs, else the cores this process may run on (taskset, a cgroup,
// or mpirun, which binds each rank to one core by default), and under mpirun a node's share per
// rank.
int jobs_from(const std::string& text) {
  if (text.empty()) {
    const int node = static_cast<int>(std::thread::hardware_concurrency());
    return std::max(1, std::min(available_cores(), node / mpi::world().ranks_on_this_node));
  }
  const double x = parse_finite("--jobs", text);
  if (x != std::floor(x) || x < 1 || x > 256) {
    throw InputError("--jobs: '" + text + "' must be a whole number in [1, 256]");
  }
  return static_cast<int>(x);
}

// `crbench converge` and `crbench sweep`: a file of points, an output folder, threads.
struct FileCommand {
  CLI::App* command = nullptr;
  std::string path, out, jobs_text;
  // The program's own name (argv[0] without its folder): crbench, or a program of one's own built
  // with its cases, which a study's README must name to be run again (converge's README).
  std::string program = "crbench";
  bool resume = false, no_figures = false;

  // `file` names the file's kind ("study", "sweep"; its flag, --study, --sweep, unless `flag` is
  // given), `folder` the folder of bench/ whose README describes it.
  void add_to(CLI::App& app, const std::string& name, const std::string& description,
              const std::string& file, const std::string& figures_help, const std::string& folder,
              const std::string& flag = "") {
    command = app.add_subcommand(name, description);
    command
        ->add_option("--" + (flag.empty() ? file : flag), path,
                     file + " file (JSON; see bench/" + folder + "/README.md)")
        ->required();
    command->add_option("--out", out, "output folder (default: the " + file + "'s name)");
    command->add_option("--jobs", jobs_text,
                        "threads (default: the cores this process may use; under mpirun, per "
                        "rank)");
    command->add_flag("--resume", resume, "keep the points already in OUT/points.jsonl");
    command->add_flag("--no-figures", no_figures, figures_help);
  }

  // The folder, threads, resumption, figures and log the command runs with; `name` the file's
  // (the default folder), `log` where rank 0 reports its stages.
  FolderRunOptions folder_options(const std::string& name, std::ostream& log) const {
    FolderRunOptions options;
    options.out_dir = out.empty() ? name : out;
    options.jobs = jobs_from(jobs_text);
    options.resume = resume;
    options.figures = !no_figures;
    options.log = mpi::is_root() ? &log : nullptr;
    return options;
  }
};

int converge_command(const FileCommand& c, std::ostream& out, std::ostream& err) {
  // Under mpirun, rank 0 reads the file (the other nodes need not see it).
  const Study study = parse_study_text(
      mpi::text_from_root([&]() { return read_input_file(c.path, "--study"); }), c.path);
  ConvergeOptions options{c.folder_options(study.name, out)};
  options.progress_line = mpi::is_root() && isatty(fileno(stderr)) != 0;
  const ConvergeResult result = run_study(study, options);
  if (!mpi::is_root()) return 0;
  // A case loaded from a plugin: the command that runs the study again loads its folder.
  std::string program = c.program;
  if (const std::string& plugin = find_case(study.case_name).plugin; !plugin.empty()) {
    program += " --cases " + std::filesystem::path(plugin).parent_path().string();
  }
  write_study_readme(study, result, options.out_dir, c.path, program, "");
  for (const auto& m : result.summary["models"]) {
    out << "  " << m["label"].get<std::string>() << ": " << m["verdict"].get<std::string>() << "\n";
  }
  const auto not_confirmed = std::count(result.model_verdicts.begin(), result.model_verdicts.end(),
                                        VerdictKind::not_confirmed);
  if (result.points_internal_error > 0) {
    err << "crbench: " << result.points_internal_error
        << " points ended in internal_error (reasons in points.jsonl); the tables leave them "
           "out\n";
    return 1;
  }
  // As verify: 0 when every model with a stated prediction is confirmed (a model with no stated
  // rate or no prediction does not count), 1 when one is NOT CONFIRMED, 2 bad input.
  if (not_confirmed > 0) {
    err << "crbench: " << not_confirmed << " of " << result.summary["models"].size() << " models "
        << VerdictKind::not_confirmed << " (their verdicts above; " << options.out_dir
        << "/README.md)\n";
    return 1;
  }
  return 0;
}

int sweep_command(const FileCommand& c, std::ostream& out, std::ostream& err) {
  const Sweep plan = parse_sweep_text(
      mpi::text_from_root([&]() { return read_input_file(c.path, "--sweep"); }), c.path);
  SweepOptions options{c.folder_options(plan.name, out)};
  const SweepResult result = run_sweep(plan, options);
  if (!mpi::is_root()) return 0;
  if (result.points_internal_error > 0) {
    err << "crbench: " << result.points_internal_error
        << " points ended in internal_error (reasons in points.jsonl; --resume computes them "
           "again)\n";
    return 1;
  }
  return 0;
}

int impacts_command(const FileCommand& c, std::ostream& out, std::ostream& err) {
  const ImpactStudy study = load_impact_study(c.path);
  const ImpactResult result = run_impact_study(study, c.folder_options(study.name, out), c.path);
  if (result.points_not_ok > 0) {
    err << "crbench: " << result.points_not_ok
        << " points did not end with status ok (reasons in points.jsonl)\n";
    return 1;
  }
  return 0;
}

// What CLI11 could not parse, as one line (exit 2), or its help and version (exit 0). CLI11
// names neither a subcommand it does not know nor the one it needs.
int parse_failure(const CLI::App& app, const CLI::ParseError& e, int argc, const char* const* argv,
                  std::ostream& out, std::ostream& err) {
  if (e.get_exit_code() == 0) return mpi::is_root() ? app.exit(e, out, err) : 0;
  std::string what = e.what();
  if (argc > 1 && what == "A subcommand is required" && argv[1][0] != '-') {
    std::string names;
    for (const CLI::App* command :
         const_cast<CLI::App&>(app).get_subcommands([](CLI::App*) { return true; })) {
      names += (names.empty() ? "" : ", ") + command->get_name();
    }
    what = "'" + std::string(argv[1]) + "' is not a crbench subcommand; they are: " + names +
           " (crbench --help)";
  }
  if (mpi::is_root()) err << "crbench: " << what << "\n";
  return 2;
}

// An option given an empty value ('--t-end ""') would read as not given at all: its name, if one
// was.
std::optional<std::string> option_with_empty_value(CLI::App& app) {
  for (const CLI::App* command : app.get_subcommands()) {
    for (const CLI::Option* option : command->get_options()) {
      const auto& given = option->results();
      if (option->count() > 0 && std::find(given.begin(), given.end(), "") != given.end()) {
        return option->get_name();
      }
    }
  }
  return std::nullopt;
}

// `crbench case build|header FILE [--out DIR]`: python/crbench_case.py, found beside the program
// (a build tree) or in the installed Python folder, run with Debian's interpreter; its exit status.
int case_command(const std::string& action, const std::string& file, const std::string& out_dir) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::path program = fs::read_symlink("/proc/self/exe", error);
  std::string script;
  for (const fs::path& candidate :
       {program.parent_path() / "crbench_case.py",
        program.parent_path() / "../lib/python3/dist-packages/crbench_case.py"}) {
    if (!error && fs::exists(candidate, error)) {
      script = candidate.lexically_normal().string();
      break;
    }
  }
  if (script.empty()) {
    throw InputError(
        "case: the generator crbench_case.py is not beside this program nor in "
        "its installed Python folder");
  }
  std::vector<std::string> args = {CRBENCH_PYTHON_EXECUTABLE, script, action, file};
  if (!out_dir.empty()) args.insert(args.end(), {"--out", out_dir});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::cout.flush();
  const pid_t child = fork();
  if (child < 0) throw std::runtime_error("case: fork failed");
  if (child == 0) {
    execv(argv[0], argv.data());
    std::fprintf(stderr, "crbench: case: %s cannot be run\n", argv[0]);
    _exit(2);
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  if (const auto code = solver_help(argc, argv, out, err)) return *code;
  CLI::App app{"crbench: benchmarks of constraint-realization limits"};
  app.set_version_flag("--version", std::string(version));
  app.require_subcommand(1);
  // Options of the program itself may stand after the subcommand too.
  app.fallthrough();
  std::vector<std::string> case_folders;
  app.add_option("--cases", case_folders,
                 "a folder of case plugins (libcrbench_case_<name>.so, as `Case.build()` in Python "
                 "makes them) whose cases to load beside the built-in ones; repeatable, after "
                 "those of $CRBENCH_CASE_PATH (folders separated by ':')")
      ->type_name("DIR");

  auto* list = app.add_subcommand("list", "print the cases and solvers with their parameters");
  bool list_json = false;
  list->add_flag("--json", list_json, "machine-readable output");
  RunCommand run;
  run.add_to(app, err);
  VerifyCommand verify;
  verify.add_to(app);
  CheckCommand check;
  check.add_to(app);
  FileCommand converge, sweep, impacts;
  if (argc > 0 && argv[0] != nullptr) {
    const std::string own = std::filesystem::path(argv[0]).filename().string();
    if (!own.empty()) converge.program = own;
  }
  converge.add_to(app, "converge",
                  "run a study file: convergence tables in N, Richardson limits, figures", "study",
                  "skip the figures (scripts/figures.py)", "studies");
  sweep.add_to(app, "sweep",
               "run a sweep file: the limit model's lift-off delay over a grid (a phase map)",
               "sweep", "skip the figure (scripts/figures.py)", "sweeps");
  impacts.add_to(app, "impacts",
                 "run an impact study file: restitution, peak penetration and contact duration "
                 "over impact speeds and steps, per solver row",
                 "impact study", "skip the figure (scripts/figures.py)", "impacts", "file");
  auto* case_build = app.add_subcommand(
      "case",
      "a case of one's own from a JSON or TOML definition: build its plugin (for --cases) or "
      "print its generated header (docs/python.md)");
  std::string case_action, case_file, case_out;
  case_build->add_option("action", case_action, "build or header")
      ->required()
      ->check(CLI::IsMember({"build", "header"}));
  case_build->add_option("file", case_file, "the JSON or TOML definition (TOML: FILE.toml)")
      ->required();
  case_build->add_option("--out", case_out,
                         "the folder to write the plugin to (default: the case cache)");
  auto* report =
      app.add_subcommand("report", "the main job: the canonical runs, written to a folder");
  std::string out_dir = "results";
  std::string report_jobs_text;
  report->add_option("--out", out_dir, "output folder (default results)");
  report->add_option("--jobs", report_jobs_text,
                     "threads (default: the cores this process may use; under mpirun, per rank)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return parse_failure(app, e, argc, argv, out, err);
  }
  if (const auto empty = option_with_empty_value(app)) {
    if (mpi::is_root()) {
      err << "crbench: " << *empty << ": an empty value; give one or leave the option out\n";
    }
    return 2;
  }

  try {
    if (mpi::world().size > 1 && !converge.command->parsed() && !sweep.command->parsed()) {
      throw InputError(
          "mpirun: only sweep and converge spread their points over ranks; run "
          "this command without mpirun");
    }
    // Read on every rank before any point is handed out (a malformed value is exit 2 here, not
    // on rank 0 alone in the middle of the run).
    if (mpi::world().size > 1) mpi::rank_timeout_seconds();
    if (report->parsed() && !case_folders.empty()) {
      throw InputError("--cases: report runs the built-in cases only (its results are canonical)");
    }
    if (!report->parsed()) {
      for (const auto& folder : case_path_folders()) load_case_folder(folder, "CRBENCH_CASE_PATH");
      for (const auto& folder : case_folders) load_case_folder(folder, "--cases");
    }
    if (case_build->parsed()) return case_command(case_action, case_file, case_out);
    if (list->parsed()) return list_command(list_json, out);
    if (report->parsed()) return write_report(out_dir, jobs_from(report_jobs_text), out);
    if (converge.command->parsed()) return converge_command(converge, out, err);
    if (sweep.command->parsed()) return sweep_command(sweep, out, err);
    if (impacts.command->parsed()) return impacts_command(impacts, out, err);
    if (verify.command->parsed()) return verify.execute(out);
    if (check.command->parsed()) return check.execute(out);
    return run.execute(out, err);
  } catch (const InputError& e) {
    // Under mpirun every rank meets the same error (bench/mpi.hpp); rank 0 tells it.
    if (mpi::is_root()) err << "crbench: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    err << "crbench: internal error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace crbench
