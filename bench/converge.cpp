// run_study: the points of a study on K threads, points.jsonl as they complete, then the tables,
// study.json and the figures. Every output except the timings of the work–precision points is a
// function of the study alone: results are assembled in point order from their JSON lines
// (whether computed now or read back with --resume), so K and resumption do not change a byte.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include "crbench/bench/convergence.hpp"
#include "crbench/bench/json_fields.hpp"
#include "crbench/bench/ladder.hpp"
#include "crbench/bench/ladder_engine.hpp"
#include "crbench/bench/mpi.hpp"
#include "crbench/bench/number_text.hpp"
#include "crbench/bench/observables.hpp"
#include "crbench/bench/points.hpp"
#include "crbench/bench/run_support.hpp"
#include "crbench/bench/study.hpp"
#include "crbench/cases/registry.hpp"
#include "crbench/solvers/solver.hpp"
#include "crbench/version.hpp"

namespace crbench {
namespace {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

constexpr int kTrajectorySamples = 4001;

std::optional<double> optional_of(const ojson& j) {
  return j.is_number() ? std::optional<double>(j.get<double>()) : std::nullopt;
}

// Whether an observable converges to its reference's value, to be extrapolated along the ladder.
bool has_limit_value(const std::string& o) {
  return observable(o).judged == ObservableClass::limit_value;
}

// The deviations from the reference motion on the grid: their mode and whether they compare q'.
std::optional<GridDeviation> grid_deviation(const std::string& o) { return observable(o).grid; }

ojson observe(const std::vector<std::string>& observables, const GridRun& run,
              const LadderReference& reference, const Model& model) {
  ojson values = ojson::object();
  for (const auto& o : observables) {
    values[o] = number_or_null(observe_one(o, run, model, reference));
  }
  return values;
}

// Per coordinate (by the case's names), each grid deviation of a run.
ojson observe_by_coordinate(const std::vector<std::string>& observables, const GridRun& run,
                            const LadderReference& reference, const Model& model) {
  ojson out = ojson::object();
  for (const auto& o : observables) {
    const auto d = grid_deviation(o);
    if (!d) continue;
    const std::vector<double> each = per_coordinate(*d, run, reference.q, reference.v);
    if (each.empty()) continue;
    ojson named = ojson::object();
    for (std::size_t i = 0; i < each.size(); ++i) {
      named[model.coordinate_name(static_cast<int>(i))] = each[i];
    }
    out[o] = named;
  }
  return out;
}

struct Point {
  std::string key;
  std::string kind;       // ladder, trajectory, work_precision, work_precision_reference
  std::size_t index = 0;  // model (ladder, trajectory) or series (work precision)
  // A ladder's rung on the model's axis (N, h or rtol), a trajectory's N; nullopt: a model
  // without a ladder, or the limit.
  std::optional<double> rung;
  double value = 0.0;  // work precision: rtol or h
  std::string file;    // trajectory: its file under --out, unique among the points
  // Everything that determines the point's line (its solves' every setting and, for a ladder row,
  // its reference), hashed: --resume reuses a line only under the same fingerprint.
  std::string fingerprint;
};

// The points' lines by what they belong to, (kind, model or series index), in point order.
using GroupedLines = std::map<std::pair<std::string, std::size_t>, std::vector<const ojson*>>;

// Per observable: its table, and each model's unit where the models' units differ (a column),
// else an empty map.
struct ObservableTables {
  std::map<std::string, Table> tables;
  std::map<std::string, std::map<std::string, std::string>> unit_column;
};

class Converge {
 public:
  Converge(const Study& study, const ConvergeOptions& options)
      : study_(study), options_(options), out_(options.out_dir) {}

  ConvergeResult run() {
    // Under MPI, rank 0 alone owns the folder (bench/mpi.hpp). Shared: a figure queue's job
    // holds both until the folder is finished.
    const std::shared_ptr<OutputLock> lock = claim_output_folder(out_);
    const auto manifest = std::make_shared<OutputManifest>(out_);
    compute_references();
    make_points();
    ConvergeResult result;
    result.points_total = static_cast<int>(points_.size());
    result.points_computed = run_points();
    if (!mpi::is_root()) return result;
    for (const auto& line : lines_) {
      const std::optional<Status> status = status_in(line);
      if (status == Status::internal_error) ++result.points_internal_error;
      if (status == Status::wall_time_exceeded) ++result.points_wall_time_exceeded;
    }
    result.summary = assemble();
    result.model_verdicts = model_verdicts_;
    {
      std::ostringstream text;
      text << result.summary.dump(2) << "\n";
      write_file(out_ / "study.json", text.str());
    }
    log("converge " + study_.name + ": " + std::to_string(result.points_computed) + " of " +
        std::to_string(result.points_total) + " points computed, tables in " + out_.string() +
        (result.points_wall_time_exceeded > 0
             ? "; " + std::to_string(result.points_wall_time_exceeded) +
                   " ended at max_wall_time (status wall_time_exceeded)"
             : std::string()) +
        (result.points_internal_error > 0
             ? "; " + std::to_string(result.points_internal_error) +
                   " ended in internal_error (reasons in points.jsonl; --resume computes them "
                   "again)"
             : std::string()) +
        (lines_discarded_ > 0
             ? "; --resume discarded " + std::to_string(lines_discarded_) +
                   " lines of points.jsonl computed with other settings (case, parameters, "
                   "models, tolerances, observables or version) or altered since written "
                   "(checksum)"
             : std::string()));
    std::vector<std::string> trajectories;
    for (const auto& p : points_) {
      if (p.kind == "trajectory") trajectories.push_back(p.file);
    }
    // The figures, then the manifest and the caller's on_finished: at once, or on the figure
    // queue's thread (which logs nothing: the caller's log is not its own).
    const auto finish = [lock, manifest, trajectories, result,
                         on_finished = options_.on_finished](const std::string* failure) {
      ConvergeResult finished = result;
      if (failure) {
        finished.figures_written = failure->empty();
        finished.figures_message = failure->empty() ? "figures written" : *failure;
      }
      manifest->finish(trajectories);
      if (on_finished) on_finished(finished);
      return finished;
    };
    if (options_.figures && options_.figure_queue) {
      options_.figure_queue->submit(out_,
                                    [finish](const std::string& failure) { finish(&failure); });
      return result;
    }
    if (!options_.figures) return finish(nullptr);
    const std::string failure = run_figures(out_);
    log("converge " + study_.name + ": " + (failure.empty() ? "figures written" : failure));
    return finish(&failure);
  }

 private:
  void log(const std::string& line) {
    if (options_.log) *options_.log << line << "\n";
  }

  // The step h of a model whose solver runs an N ladder with a fixed step and no tolerances (an
  // engine): its `set` h, or the solver's default; nothing for every other model.
  static std::optional<double> fixed_step(const StudyModel& model) {
    const Solver& solver = find_solver(model.solver);
    if (solver.takes_tolerances()) return std::nullopt;
    const auto parameters = solver.parameters();
    const auto has = [&](const char* name) {
      return std::any_of(parameters.begin(), parameters.end(),
                         [&](const ParamSpec& p) { return p.name == name; });
    };
    if (!has("N") || !has("h")) return std::nullopt;
    for (const auto& a : model.assignments) {
      if (a.key == "h") return std::stod(a.value);
    }
    for (const auto& p : parameters) {
      if (p.name == "h") return p.default_value;
    }
    return std::nullopt;
  }

  RunRequest base_request(const StudyModel& model) const {
    RunRequest r;
    r.case_name = model.case_name;
    r.solver_name = model.solver;
    r.case_assignments = model.case_assignments;
    r.solver_assignments = model.assignments;
    r.rtol = model.rtol;
    r.atol = model.atol;
    r.samples = samples_of(model);
    r.t_end = model.t_end;
    r.max_wall_time = study_.max_wall_time;
    return r;
  }

  // What besides the model and N determines a point's line: a line of points.jsonl is reused by
  // --resume only under the same key.
  std::string config_key() const {
    std::ostringstream s;
    s << study_.case_name << "{" << assignments_text(study_.case_assignments) << "}|rtol "
      << format_number(study_.rtol) << "|atol " << format_number(study_.atol) << "|tight "
      << format_number(study_.tight_factor) << "|samples " << study_.samples << "|observables";
    for (const auto& o : study_.observables) s << " " << o;
    s << "|max_wall_time " << format_number(study_.max_wall_time) << "|crbench " << version;
    return s.str();
  }

  // A model's own tolerances in its points' keys (none where it runs at the study's, which the
  // config key holds).
  static std::string own_tolerances_key(const StudyModel& m) {
    if (!m.own_tolerances) return "";
    return "|tolerances rtol " + format_number(m.rtol) + " atol " + format_number(m.atol) +
           " tight " + format_number(m.tight_factor);
  }

  // The q observables' grid of a model: the study's samples, or on an h ladder a grid at least
  // one coarsest step apart (step_ladder_samples). Set once per model by
  // compute_references (a horizon may take a quadrature), read by the points' threads.
  int samples_of(const StudyModel& m) const {
    const auto it = samples_.find(m.label);
    return it != samples_.end() ? it->second : study_.samples;
  }
  int grid_samples(const StudyModel& m, const Model& model) const {
    if (!m.has_ladder || m.axis != LadderAxis::h) return study_.samples;
    return step_ladder_samples(m.axis, m.ladder.front(),
                               m.t_end.value_or(model.horizon()) - model.initial_state().t,
                               study_.samples);
  }

  // A model's ladder: its runs at the study's tolerances, the rung on its axis, the tight twins.
  LadderPlan plan_of(const StudyModel& m) const {
    LadderPlan plan;
    plan.base = base_request(m);
    plan.axis = m.has_ladder ? m.axis : LadderAxis::N;
    plan.parameter = m.ladder_parameter;
    plan.parameter_on_case = m.ladder_on_case;
    plan.rtol = m.rtol;
    plan.atol = m.atol;
    plan.tight_factor = m.tight_factor;
    plan.fixed_step = fixed_step(m);
    return plan;
  }

  // The references: numbers the theory gives, the case's closed form, or a solver run at the
  // tight tolerances (far more accurate than the points).
  void compute_references() {
    for (const auto& m : study_.models) {
      const auto model = make_model(m.case_name, m.case_assignments);
      samples_[m.label] = grid_samples(m, *model);
      ReferenceSpec spec;
      spec.kind = m.reference;
      spec.constraint = m.constraint;
      spec.values = m.reference_values;
      spec.source = m.reference_source;
      spec.limit_model = m.limit_model;
      spec.run = base_request(m);
      spec.tight_factor = m.tight_factor;
      spec.observables = study_.observables;
      if (m.reference != "value" && m.reference != "closed-form") {
        RunRequest& r = spec.run;
        r.solver_name = m.reference;
        // The limit solver takes the model's settings; another solver its own defaults and the
        // case's; the model's own solver (an rtol ladder against its tight run) the model's.
        if (m.reference != "limit" && m.reference != m.solver) {
          r.solver_assignments = m.reference_assignments;
        } else {
          // A parameter ladder's reference: the model's settings with the parameter at its limit.
          for (const Assignment& a : m.reference_assignments) {
            std::erase_if(r.solver_assignments,
                          [&](const Assignment& b) { return b.key == a.key; });
            r.solver_assignments.push_back(a);
          }
        }
        if (m.has_ladder && m.axis == LadderAxis::rtol) {
          std::erase_if(r.solver_assignments, [](const Assignment& a) { return a.key == "rtol"; });
        }
        // A ladder's reference's own error, estimated by the same reference at the study's
        // tolerances: the rows of an h or rtol ladder (no tight twin) are judged against it; on
        // other axes it widens the error bar the reference must lie within.
        spec.estimate_error = m.has_ladder;
      }
      references_.push_back(make_reference(spec, *model));
    }
  }

  void make_points() {
    const std::string config = config_key();
    for (std::size_t i = 0; i < references_.size(); ++i) {
      reference_digests_.push_back(fingerprint_text(digest(references_[i], study_.models[i].axis)));
    }
    for (std::size_t i = 0; i < study_.models.size(); ++i) {
      const auto& m = study_.models[i];
      const std::string head = "ladder|" + m.label + "|" + m.case_name + "{" +
                               assignments_text(m.case_assignments) + "}|" + m.solver + "{" +
                               assignments_text(m.assignments) + "}|ref " + m.reference +
                               (m.reference_assignments.empty()
                                    ? std::string()
                                    : "{" + assignments_text(m.reference_assignments) + "}") +
                               (m.t_end ? "|t_end " + format_number(*m.t_end) : std::string()) +
                               own_tolerances_key(m) + "|" + config;
      if (m.has_ladder) {
        for (const double rung : m.ladder) {
          points_.push_back(
              {head + "|" + axis_name(m.axis, m.ladder_parameter) + " " + format_number(rung),
               "ladder", i, rung, 0.0});
        }
      } else {
        points_.push_back({head, "ladder", i, std::nullopt, 0.0});
      }
    }
    // Trajectory points for the collapse and paths figures: each (model, N) and each model's
    // limit once.
    std::set<std::string> trajectory_keys;
    const auto add_trajectories = [&](const std::string& label, const std::vector<double>& Ns) {
      const auto it = std::find_if(study_.models.begin(), study_.models.end(),
                                   [&](const StudyModel& m) { return m.label == label; });
      const auto i = static_cast<std::size_t>(it - study_.models.begin());
      const std::string head = "trajectory|" + it->label + "|" + it->case_name + "{" +
                               assignments_text(it->case_assignments) + "}|" + it->solver + "{" +
                               assignments_text(it->assignments) + "}" + own_tolerances_key(*it) +
                               "|" + config;
      for (const double N : Ns) {
        const std::string key = head + "|N " + format_number(N);
        if (trajectory_keys.insert(key).second) {
          points_.push_back({key, "trajectory", i, N, 0.0});
        }
      }
      if (trajectory_keys.insert(head + "|limit").second) {
        points_.push_back({head + "|limit", "trajectory", i, std::nullopt, 0.0});
      }
    };
    if (study_.collapse) add_trajectories(study_.collapse->model, study_.collapse->N);
    if (study_.paths) {
      for (const auto& label : study_.paths->models) add_trajectories(label, study_.paths->N);
    }
    for (std::size_t s = 0; s < study_.work_precision.size(); ++s) {
      const auto& w = study_.work_precision[s];
      const std::string head = "work_precision|" + w.label + "|" + study_.work_precision_case +
                               "{" + assignments_text(study_.work_precision_case_assignments) +
                               "}|" + w.solver + "{" + assignments_text(w.assignments) +
                               "}|atol_ratio " + format_number(study_.work_precision_atol_ratio) +
                               "|" + w.vary + " ";
      for (const double v : w.values) {
        points_.push_back({head + format_number(v), "work_precision", s, std::nullopt, v});
      }
      if (w.reference == "tight") {
        points_.push_back(
            {head + "reference 1e-14", "work_precision_reference", s, std::nullopt, 1e-14});
      }
    }
    // Trajectory files: two points whose names would coincide (labels that differ only in the
    // characters made '_', values of N with one label, such as 100 and 100.00000001) must not
    // write one file: the later gets its point number in the name.
    std::set<std::string> used;
    for (std::size_t i = 0; i < points_.size(); ++i) {
      if (points_[i].kind != "trajectory") continue;
      std::string name = trajectory_file(points_[i]);
      if (!used.insert(name).second) {
        name = name.substr(0, name.size() - 4) + ".point" + std::to_string(i) + ".csv";
        used.insert(name);
      }
      points_[i].file = name;
    }
    for (auto& p : points_) p.fingerprint = fingerprint_of(p, config);
  }

  // The label with every character but letters, digits, '.', '-' and '_' replaced by '_', so that
  // no label can name a file outside trajectories/.
  std::string trajectory_file(const Point& p) const {
    std::string stem = study_.models[p.index].label;
    for (char& c : stem) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_') c = '_';
    }
    if (stem.find_first_not_of('.') == std::string::npos) stem = "model" + stem;
    return "trajectories/" + stem + "." + (p.rung ? "N" + N_label(*p.rung) : std::string("limit")) +
           ".csv";
  }

  // The solves a point makes: a ladder row's own and, where it has one, its tight twin's (the
  // same point at the tight tolerances, or for a solver with a fixed step and no tolerances, a
  // physics engine's N ladder, at half its step: first order, the difference estimates the step's
  // error; an h or rtol ladder's rows have none, the ladder itself is the discretization); a
  // trajectory's; a work–precision point's.
  std::vector<RunRequest> requests_of(const Point& p) const {
    if (p.kind == "ladder") {
      const LadderPlan plan = plan_of(study_.models[p.index]);
      const RunRequest r = rung_request(plan, p.rung);
      if (!has_tight_twins(plan.axis)) return {r};
      return {r, tight_twin(plan, r)};
    }
    if (p.kind == "trajectory") {
      RunRequest r = base_request(study_.models[p.index]);
      if (p.rung) {
        r.solver_assignments.push_back({"N", format_number(*p.rung)});
      } else {
        r.solver_name = "limit";
      }
      r.samples = kTrajectorySamples;
      r.trajectory_path = (out_ / p.file).string();
      return {r};
    }
    const auto& w = study_.work_precision[p.index];
    RunRequest r;
    r.case_name = study_.work_precision_case;
    r.case_assignments = study_.work_precision_case_assignments;
    r.max_wall_time = study_.max_wall_time;
    r.solver_name = w.solver;
    r.solver_assignments = w.assignments;
    if (w.vary == "h") {
      r.solver_assignments.push_back({"h", format_number(p.value)});
    } else {
      r.rtol = p.value;
      // Rounded to 12 digits: 1e-5 / 100 is 1.0000000000000001e-07, not the double nearest
      // 1e-7.
      r.atol = twelve_digits(p.value * study_.work_precision_atol_ratio);
    }
    return {r};
  }

  // `config`: config_key(), computed once for all points.
  std::string fingerprint_of(const Point& p, const std::string& config) const {
    std::string text = p.kind + "|" + config + "|file " + p.file;
    for (RunRequest r : requests_of(p)) {
      r.trajectory_path.clear();  // the file is named above, relative to --out
      text += "|" + describe(r);
    }
    if (p.kind == "ladder") text += "|reference " + reference_digests_[p.index];
    if (p.kind != "ladder" && p.kind != "trajectory") {
      text += "|repeats " + std::to_string(study_.timing_repeats);
    }
    return fingerprint_text(text);
  }

  // Whether a line's own fields are those of the point its key names (a line edited and sealed
  // again, a body of N = 100 under the key of N = 1000, is not reused).
  bool body_agrees(const Point& p, const ojson& line) const {
    if (line.value("kind", std::string()) != p.kind) return false;
    if (p.kind == "ladder" || p.kind == "trajectory") {
      const auto& m = study_.models[p.index];
      const bool in_N = p.kind == "trajectory" || !m.has_ladder || m.axis == LadderAxis::N;
      const auto rung = line.find(in_N ? std::string("N") : axis_name(m.axis, m.ladder_parameter));
      return line.value("model", std::string()) == m.label && rung != line.end() &&
             *rung == number_or_null(p.rung) &&
             (p.kind == "ladder" || line.value("file", std::string()) == p.file);
    }
    const auto value = line.find("value");
    return line.value("series", std::string()) == study_.work_precision[p.index].label &&
           value != line.end() && *value == ojson(p.value);
  }

  ojson compute(const Point& p) const {
    ojson line;
    line["key"] = p.key;
    line["kind"] = p.kind;
    line["fingerprint"] = p.fingerprint;
    const std::vector<RunRequest> requests = requests_of(p);
    if (p.kind == "ladder") {
      const auto& m = study_.models[p.index];
      const bool ladder_in_N = !m.has_ladder || m.axis == LadderAxis::N;
      const GridRun normal = solve_on_grid(requests[0]);
      const auto case_model = make_model(m.case_name, requests[0].case_assignments);
      line["model"] = m.label;
      line[ladder_in_N ? std::string("N") : axis_name(m.axis, m.ladder_parameter)] =
          number_or_null(p.rung);
      line["status"] = normal.record.status;
      line["reason"] = normal.record.reason;
      line["tolerances"] = normal.record.tolerances;
      line["values"] = observe(study_.observables, normal, references_[p.index], *case_model);
      if (const ojson each =
              observe_by_coordinate(study_.observables, normal, references_[p.index], *case_model);
          !each.empty()) {
        line["by_coordinate"] = each;
      }
      if (requests.size() > 1) {
        const GridRun tight = solve_on_grid(requests[1]);
        line["tight_status"] = tight.record.status;
        line["tight_tolerances"] = tight.record.tolerances;
        line["tight_values"] =
            observe(study_.observables, tight, references_[p.index], *case_model);
      }
      line["steps"] = normal.record.steps;
      line["rhs_evaluations"] = normal.record.rhs_evaluations;
      if (!normal.record.warnings.empty()) line["warnings"] = normal.record.warnings;
    } else if (p.kind == "trajectory") {
      const RunRecord record = execute(requests[0]);
      line["model"] = study_.models[p.index].label;
      line["N"] = number_or_null(p.rung);
      line["status"] = record.status;
      line["lift_off_time"] = number_or_null(record.lift_off_time);
      line["file"] = p.file;
    } else {
      const auto& w = study_.work_precision[p.index];
      RunRecord best;
      double wall = INFINITY;
      // The minimum over repeats: the least disturbed measurement of the same deterministic solve.
      const int repeats = p.kind == "work_precision" ? study_.timing_repeats : 1;
      for (int k = 0; k < repeats; ++k) {
        RunRecord record = execute(requests[0]);
        wall = std::min(wall, record.wall_time_s);
        best = std::move(record);
      }
      line["series"] = w.label;
      line["value"] = p.value;
      line["status"] = best.status;
      line["reason"] = best.reason;
      line["tolerances"] = best.tolerances;
      line["lift_off_time"] = number_or_null(best.lift_off_time);
      line["steps"] = best.steps;
      line["rhs_evaluations"] = best.rhs_evaluations;
      line["wall_time_s"] = wall;
    }
    return line;
  }

  // Returns how many points were computed (the others were read back from points.jsonl).
  int run_points() {
    const fs::path jsonl = out_ / "points.jsonl";
    // Work–precision timings live beside points.jsonl (timing.jsonl), so that a finished
    // points.jsonl is deterministic; an interrupted one still carries them in its lines.
    std::map<std::string, double> timings;
    if (options_.resume && fs::exists(out_ / "timing.jsonl")) {
      std::ifstream in(out_ / "timing.jsonl");
      for (std::string text; std::getline(in, text);) {
        const ojson t = ojson::parse(text, nullptr, false);
        if (t.is_discarded() || !t.contains("key") || !t.contains("wall_time_s")) continue;
        if (t["key"].is_string() && t["wall_time_s"].is_number()) {
          timings[t["key"].get<std::string>()] = t["wall_time_s"].get<double>();
        }
      }
    }
    mpi::on_root([&]() { fs::create_directories(out_ / "trajectories"); });
    std::vector<std::string> keys;
    for (const auto& point : points_) keys.push_back(point.key);
    const auto keep = [this](std::size_t i, const ojson& line) {
      // Computed with other settings (a changed horizon, tolerance, reference, ...): computed
      // again.
      const auto it = line.find("fingerprint");
      if (it == line.end() || *it != points_[i].fingerprint) return false;
      if (!body_agrees(points_[i], line)) return false;
      // A trajectory is kept only if its file is there and not empty (files are renamed into
      // place when complete, but a user may have truncated one).
      if (points_[i].kind != "trajectory") return true;
      std::error_code missing;
      const auto bytes = fs::file_size(out_ / line.value("file", std::string()), missing);
      return !missing && bytes != 0;
    };
    const auto compute_line = [this](std::size_t i) {
      try {
        return compute(points_[i]);
      } catch (const OutputError& e) {
        // A file of the point that cannot be written: run_points ends the command with exit 2.
        return ojson{{"key", points_[i].key},
                     {"kind", points_[i].kind},
                     {"status", Status::output_error},
                     {"reason", e.what()}};
      } catch (const std::exception& e) {
        return ojson{{"key", points_[i].key},
                     {"kind", points_[i].kind},
                     {"status", Status::internal_error},
                     {"reason", e.what()}};
      }
    };
    PointRun run = crbench::run_points(
        jsonl, keys, compute_line, keep,
        {.name = study_.name,
         .jobs = options_.jobs,
         .resume = options_.resume,
         .progress_line = options_.progress_line,
         // A trajectory point writes its file on rank 0's disk.
         .root_only = [this](std::size_t i) { return points_[i].kind == "trajectory"; }});
    if (!run.writer) return 0;
    lines_discarded_ = run.discarded;
    lines_ = std::move(run.lines);
    for (std::size_t i = 0; i < points_.size(); ++i) {
      if (run.resumed[i] && points_[i].kind == "work_precision" &&
          !lines_[i].contains("wall_time_s")) {
        const auto t = timings.find(points_[i].key);
        lines_[i]["wall_time_s"] = t != timings.end() ? ojson(t->second) : ojson();
      }
    }
    // Point order, so that a finished points.jsonl does not depend on K either (except the
    // work–precision timings).
    std::ostringstream sorted;
    std::ostringstream timing;
    for (const auto& line : lines_) {
      if (!line.contains("wall_time_s")) {
        sorted << line.dump() << "\n";
        continue;
      }
      ojson without = line;
      without.erase("wall_time_s");
      seal(without);
      sorted << without.dump() << "\n";
      timing << ojson{{"key", line["key"]}, {"wall_time_s", line["wall_time_s"]}}.dump() << "\n";
    }
    write_file(jsonl, sorted.str());
    if (!timing.str().empty()) {
      std::ostringstream text;
      text << timing.str();
      write_file(out_ / "timing.jsonl", text.str());
    }
    return run.computed;
  }

  ojson assemble();
  ojson summary_head(const Model& model) const;
  ObservableTables observable_tables(const std::string& tolerance_caption) const;
  Table verdict_table(const std::string& tolerance_caption) const;
  GroupedLines grouped_lines() const;
  ojson model_head(const StudyModel& m, const LadderReference& ref) const;
  ojson model_json(std::size_t mi, GroupedLines& grouped, ObservableTables& tables,
                   Table& verdicts);
  void write_observable_files(const ojson& summary, const ojson& models, ObservableTables& tables,
                              const Table& verdicts);
  ojson collapse_json(GroupedLines& grouped) const;
  ojson paths_json(GroupedLines& grouped) const;
  ojson work_precision_json(GroupedLines& grouped) const;

  // Whether every model runs the study's own case (with its parameters).
  bool single_case_study() const {
    return std::all_of(study_.models.begin(), study_.models.end(), [this](const StudyModel& m) {
      return m.case_name == study_.case_name &&
             assignments_text(m.case_assignments) == assignments_text(study_.case_assignments);
    });
  }

  const Study& study_;
  ConvergeOptions options_;
  fs::path out_;
  std::vector<LadderReference> references_;
  std::vector<std::string> reference_digests_;  // fingerprint_text(digest(reference)), per model
  std::map<std::string, int> samples_;          // each model's grid (samples_of)
  std::vector<Point> points_;
  std::vector<ojson> lines_;
  std::vector<VerdictKind> model_verdicts_;  // filled by assemble
  int lines_discarded_ = 0;                  // lines of points.jsonl that --resume did not reuse
};

// ---------------------------------------------------------------------------------------------
// Tables.

// Cells of the tables: blank for a missing or non-finite number.
std::string fixed(std::optional<double> x, int digits) {
  return x && std::isfinite(*x) ? fixed_text(*x, digits) : std::string();
}

std::string sci(std::optional<double> x, int digits = 3) {
  return x && std::isfinite(*x) ? scientific_text(*x, digits) : std::string();
}

std::string full(std::optional<double> x) {
  return x && std::isfinite(*x) ? full_text(*x) : std::string();
}

// The tolerances a point's line carries (Solver record's map), as text.
ParamValues tolerances_of(const ojson& line) {
  const auto it = line.find("tolerances");
  return it != line.end() && it->is_object() ? it->get<ParamValues>() : ParamValues{};
}

// "1e-12/1e-14" (rtol/atol) or "0.001" (h), for narrow tables; the full text is in the JSON rows.
std::string compact_tolerances(const ParamValues& tolerances) {
  std::string out;
  for (const char* name : {"rtol", "atol", "h"}) {
    const auto it = tolerances.find(name);
    if (it != tolerances.end()) out += (out.empty() ? "" : "/") + format_number(it->second);
  }
  return out;
}

// One observable's ladder for one model: its rows from the points' lines (in point order), the
// reference value, the analysis and, where the theory states them, the leading coefficients
// (part of the verdict).
struct ObservableLadder {
  std::optional<double> reference_value;
  std::string rung_key;  // "N", or the model's own axis
  std::vector<LadderInput> inputs;
  LadderAnalysis analysis;
  std::optional<CoefficientFit> coefficients;
};
ObservableLadder analyse_observable(const std::string& o, const StudyModel& m,
                                    const LadderReference& ref,
                                    const std::vector<const ojson*>& lines,
                                    const LadderRules& model_rules) {
  ObservableLadder out;
  LadderRules rules = model_rules;
  if (const auto k = m.log_power.find(o); k != m.log_power.end()) rules.log_power = k->second;
  if (const auto f = m.fit_from.find(o); f != m.fit_from.end()) rules.fit_from = f->second;
  out.reference_value = reference_value(o, ref);
  const bool own_axis = m.has_ladder && m.axis != LadderAxis::N;
  out.rung_key = own_axis ? axis_name(m.axis, m.ladder_parameter) : std::string("N");
  for (const ojson* line : lines) {
    RowMeasurement row{
        .rung = optional_of(line->value(out.rung_key, ojson())),
        .status = status_in(*line).value_or(Status::internal_error),
        .reason = line->value("reason", std::string()),
        .warnings = line->value("warnings", std::vector<std::string>()),
        .value = optional_of(line->value("values", ojson::object()).value(o, ojson())),
        .tight_status = parse_text<Status>(line->value("tight_status", std::string())),
        .tight = optional_of(line->value("tight_values", ojson::object()).value(o, ojson()))};
    out.inputs.push_back(ladder_input(o, m.has_ladder ? m.axis : LadderAxis::N, row, ref));
  }
  const auto expected = m.expected_order.find(o);
  out.analysis = judge_rows(
      o, out.inputs, ref,
      expected != m.expected_order.end() ? std::optional<double>(expected->second) : std::nullopt,
      rules, m.axis, m.ladder_parameter, ref.why, m.fixed_N);
  // The theory's leading coefficients, where it states them: part of the verdict.
  LadderAnalysis& analysis = out.analysis;
  std::optional<CoefficientFit>& coefficients = out.coefficients;
  if (const auto c = m.expected_coefficients.find(o);
      c != m.expected_coefficients.end() && analysis.expected_order) {
    const auto powers = m.coefficient_powers.find(o);
    coefficients = fit_coefficients(
        analysis, *analysis.expected_order, c->second,
        powers != m.coefficient_powers.end() ? powers->second : std::vector<double>{});
    if (analysis.verdict.confirmed() && !coefficients->agrees) {
      analysis.verdict =
          Verdict::of(VerdictKind::not_confirmed,
                      analysis.verdict.why +
                          "; but the leading coefficients do not agree: " + coefficients->text);
    } else {
      analysis.verdict.append("; coefficients " + coefficients->text);
    }
  }
  return out;
}

// One observable's ladder of one model in study.json (rows, fit, verdict), and its rows of the
// observable's table (`unit_column`: each model's unit where the models' units differ).
ojson observable_json(const std::string& o, const StudyModel& m, const ObservableLadder& ladder,
                      const std::vector<const ojson*>& lines, Table& table,
                      std::map<std::string, std::string>& unit_column) {
  const std::optional<double>& reference_value = ladder.reference_value;
  const std::string& rung_key = ladder.rung_key;
  const std::vector<LadderInput>& inputs = ladder.inputs;
  const LadderAnalysis& analysis = ladder.analysis;
  const std::optional<CoefficientFit>& coefficients = ladder.coefficients;
  ojson rows = ojson::array();
  for (std::size_t k = 0; k < analysis.rows.size(); ++k) {
    const LadderRow& row = analysis.rows[k];
    const ojson& line = *lines[k];
    rows.push_back(
        {{rung_key, number_or_null(row.rung)},
         {"status", inputs[k].status},
         {"value", number_or_null(row.value)},
         {"error", number_or_null(row.error)},
         {"local_order", number_or_null(row.local_order)},
         {"value_tight", number_or_null(inputs[k].tight)},
         {"discretization_estimate", number_or_null(row.discretization)},
         {"flagged", row.flagged},
         {"flag", row.flag},
         {"tolerances", tolerance_text(tolerances_of(line))},
         {"by_coordinate", line.value("by_coordinate", ojson::object()).value(o, ojson())},
         {"steps", line.value("steps", 0L)},
         {"rhs_evaluations", line.value("rhs_evaluations", 0L)}});
    if (row.before_fit) rows.back()["before_fit"] = true;
    table.rows.push_back({m.label,
                          row.rung ? rung_label(m.axis, *row.rung, m.ladder_parameter) : "ideal",
                          has_limit_value(o) ? full(row.value) : sci(row.value), sci(row.error),
                          fixed(row.local_order, 3), sci(row.discretization),
                          row.before_fit && row.flag.empty() ? "not fitted" : row.flag,
                          compact_tolerances(tolerances_of(line))});
    if (!unit_column.empty()) table.rows.back().push_back(unit_column[m.label]);
    if (grid_deviation(o)) {
      // "x 1.20e-03; y 4.00e-05", in the case's order of coordinates.
      std::string each;
      const ojson named = line.value("by_coordinate", ojson::object()).value(o, ojson());
      if (named.is_object()) {
        for (const auto& [name, value] : named.items()) {
          if (!value.is_number()) continue;
          each += (each.empty() ? "" : "; ") + name + " " + sci(value.get<double>());
        }
      }
      table.rows.back().push_back(each);
    }
  }
  ojson fit;
  fit["fitted_order"] = number_or_null(analysis.fitted_order);
  fit["points_in_fit"] = analysis.points_in_fit;
  fit["expected_order"] = number_or_null(analysis.expected_order);
  fit["agrees"] = analysis.order_agrees ? ojson(*analysis.order_agrees) : ojson();
  if (analysis.bounded_by_step) fit["bounded_by_step"] = true;
  if (analysis.floor) fit["floor"] = true;
  if (analysis.log_power != 0) fit["log_power"] = analysis.log_power;
  if (analysis.fit_from) fit["fit_from"] = *analysis.fit_from;
  if (coefficients) {
    fit["expected_coefficients"] = coefficients->expected;
    fit["fitted_coefficients"] = coefficients->fitted;
    fit["coefficient_uncertainty"] = coefficients->uncertainty;
    fit["coefficients_agree"] = coefficients->agrees;
    if (const auto powers = m.coefficient_powers.find(o); powers != m.coefficient_powers.end()) {
      fit["coefficient_powers"] = powers->second;
    }
    fit["coefficient_source"] = m.coefficient_source;
  }
  return {{"rows", rows},
          {"fit", fit},
          {"flagged_rows", analysis.flagged_rows},
          {"reference_value", number_or_null(reference_value)},
          {"extrapolated_limit", number_or_null(analysis.extrapolation.limit)},
          {"uncertainty", number_or_null(analysis.extrapolation.uncertainty)},
          {"confirmed", analysis.verdict.confirmed()},
          {"verdict", analysis.verdict.text}};
}

// The verdict on a model from its observables' analyses (judge_model's comments say which rests
// on what), and the digits of its lift-off.
struct ModelJudgement {
  Verdict verdict = Verdict::of(VerdictKind::nothing_judged);
  std::optional<double> digits, digits_supported;
};

ModelJudgement judge_model(
    const LadderReference& ref, std::optional<LadderAnalysis>& lift_off,
    const std::optional<std::pair<std::string, LadderAnalysis>>& deviation,
    const std::vector<std::pair<std::string, LadderAnalysis>>& stated_others) {
  ModelJudgement out;
  Verdict& verdict = out.verdict;
  std::optional<double>& digits = out.digits;
  std::optional<double>& digits_supported = out.digits_supported;
  // A model is judged by the other observables with a stated order when its lift-off has none
  // (Moreau-Jean's h ladder: the largest q deviation, order 1, its lift-off not a power law in
  // h; a realization of an impact: its penetration depth and rebound velocity), and by them and
  // its lift-off when both are stated: CONFIRMED when every one of them is.
  if (lift_off && !lift_off->expected_order && !stated_others.empty()) lift_off.reset();
  // Several verdicts, each named by its observable, in one: those not confirmed first, so that
  // the head says whether the model is; confirmed when every one is.
  const auto join_verdicts = [&](std::vector<std::pair<std::string, const LadderAnalysis*>> parts) {
    std::vector<std::pair<std::string, const Verdict*>> each;
    for (const auto& [o, analysis] : parts) each.emplace_back(o, &analysis->verdict);
    std::stable_partition(each.begin(), each.end(),
                          [](const auto& part) { return !part.second->confirmed(); });
    verdict = Verdict::joined(each);
  };
  std::vector<std::pair<std::string, const LadderAnalysis*>> others;
  for (const auto& [o, analysis] : stated_others) others.emplace_back(o, &analysis);
  // The lift-off prediction's rule decides only where the verdict rests on the lift-off (or on
  // nothing else with a stated order).
  if ((lift_off || stated_others.empty()) &&
      (ref.prediction_rule == PredictionRule::none ||
       (!ref.theorem_applies && ref.prediction_rule != PredictionRule::continuation))) {
    verdict = Verdict::of(VerdictKind::no_prediction, ref.why);
  } else if (!lift_off && !stated_others.empty()) {
    // Every other observable with a stated order.
    join_verdicts(others);
  } else if (!lift_off) {
    // A study without a lift-off (kinematic constraints) and without stated orders: the first
    // deviation (an ideal model's error).
    if (deviation) {
      verdict = Verdict::joined(std::vector<std::pair<std::string, const Verdict*>>{
          {deviation->first, &deviation->second.verdict}});
    }
  } else {
    verdict = lift_off->verdict;
    digits = lift_off->digits_of_agreement;
    digits_supported = lift_off->digits_supported;
    // Other observables with a stated order (the distance of z from its viscous limit beside
    // the lift-off of Proposition 3) must be confirmed too.
    if (!others.empty()) {
      others.insert(others.begin(), {std::string(kLiftOffTime), &*lift_off});
      join_verdicts(others);
    }
  }
  return out;
}

// The study's own fields of study.json: the case, its coordinates, the tolerances, the rules.
ojson Converge::summary_head(const Model& model) const {
  ojson summary;
  summary["crbench_version"] = version;
  summary["build"] = build_json();
  summary["study"] = study_.name;
  summary["description"] = study_.description;
  summary["case"] = study_.case_name;
  summary["params"] = model.params();
  // The study case's coordinates (figure axes, the q deviations' units).
  summary["coordinates"] = ojson::array();
  for (int i = 0; i < model.dof(); ++i) {
    summary["coordinates"].push_back(
        {{"name", model.coordinate_name(i)}, {"unit", model.coordinate_unit(i)}});
  }
  summary["tolerances"] = {{"rtol", study_.rtol},
                           {"atol", study_.atol},
                           {"tight_factor", study_.tight_factor},
                           {"tight_rtol", tight_rtol(study_.rtol, study_.tight_factor)},
                           {"tight_atol", tight_atol(study_.atol, study_.tight_factor)}};
  summary["flag_rule"] =
      "a row with N is flagged when its discretization estimate |value(tol) - "
      "value(tol/tight_factor)| is not below 1% of its error; an ideal row when it is not below 1% "
      "of the ideal tolerance 1e-10 (relative to max(1, |value|)); a row of an h or rtol ladder "
      "(no tight twin: the ladder itself is the discretization) is flagged REFERENCE when the "
      "reference's own error estimate (0 for a closed form; for a solver, its difference between "
      "the tight tolerances and the study's) is not below 1% of its error, and ROUND-OFF when its "
      "error is within 100 ulps of max(1, |reference|); flagged rows are left out of "
      "the least-squares fit and of the extrapolation";
  summary["confirmation_rule"] =
      "a ladder model is CONFIRMED when the theory states an order, the fitted order is within "
      "0.05 of it, the extrapolated limit has an error bar (four trusted rows at the fine end, "
      "orders from the two finest triples within 10%), the reference lies within that bar "
      "widened by the reference's own error estimate (its difference from the same reference at "
      "the study's tolerances; 0 for a closed form), and "
      "the bar is at most 10^-" +
      format_number(study_.digits) +
      " relative; an ideal model when its error is at most 1e-10 relative and its row is not "
      "flagged";
  // Models with digits of their own (the study's otherwise).
  std::string own_digits;
  for (const auto& m : study_.models) {
    if (!m.digits) continue;
    own_digits += (own_digits.empty() ? "" : ", ") + m.label + " " + format_number(*m.digits);
  }
  if (!own_digits.empty()) {
    summary["confirmation_rule"] = summary["confirmation_rule"].get<std::string>() +
                                   "; these models name their own digits: " + own_digits;
  }
  summary["ladder"] = study_.ladder;
  summary["observables"] = study_.observables;
  // Each observable's unit in the study's case (figure axes).
  summary["observable_units"] = ojson::object();
  for (const auto& o : study_.observables)
    summary["observable_units"][o] = observable(o).unit(model);

  return summary;
}

// One table per observable, its caption, header and unit column.
ObservableTables Converge::observable_tables(const std::string& tolerance_caption) const {
  ObservableTables out;
  std::map<std::string, Table>& tables = out.tables;
  std::map<std::string, std::map<std::string, std::string>>& unit_column = out.unit_column;
  for (const auto& o : study_.observables) {
    Table t;
    t.title = study_.name + ": " + o;
    const std::string what = " (" + observable_caption(observable(o), study_.samples) + ")";
    t.caption = (single_case_study() ? "Case " + study_.case_name + ", observable "
                                     : std::string("Observable ")) +
                o + what + ". " + tolerance_caption;
    // The models that measure it on one constraint.
    std::string on_one;
    for (const auto& m : study_.models) {
      if (!m.constraint || !observable(o).per_constraint) continue;
      on_one += (on_one.empty() ? "" : ", ") + m.label + ": constraint " + m.constraint_name;
    }
    if (!on_one.empty()) t.caption += " Measured on one constraint (" + on_one + ").";
    // The models whose law carries a logarithm: their local orders are of the error over it.
    std::string with_log;
    for (const auto& m : study_.models) {
      const auto k = m.log_power.find(o);
      if (k == m.log_power.end()) continue;
      with_log +=
          (with_log.empty() ? "" : ", ") + m.label + ": (ln N)^" + std::to_string(k->second);
    }
    if (!with_log.empty()) {
      t.caption +=
          " Local orders of the error over a logarithm where the theory's law carries one (" +
          with_log + ").";
    }
    // The models whose fits start at a finer rung: their coarser rows are "not fitted".
    std::string fit_from;
    for (const auto& m : study_.models) {
      const auto f = m.fit_from.find(o);
      if (f == m.fit_from.end()) continue;
      fit_from += (fit_from.empty() ? "" : ", ") + m.label + ": from " +
                  (m.axis == LadderAxis::N ? "N " : "") +
                  rung_label(m.axis, f->second, m.ladder_parameter);
    }
    if (!fit_from.empty()) {
      t.caption +=
          " Rows coarser than a model's fit_from are tabled and left out of its fits, "
          "flag \"not fitted\" (" +
          fit_from + ").";
    }
    // Units from the cases: in the header when every model's case gives the same, else a column.
    std::vector<std::string> units;
    for (const auto& m : study_.models) {
      units.push_back(observable(o).unit(*make_model(m.case_name, m.case_assignments)));
    }
    const bool uniform = std::all_of(units.begin(), units.end(),
                                     [&](const std::string& u) { return u == units.front(); });
    const std::string bracket = uniform && !units.front().empty() ? " [" + units.front() + "]" : "";
    t.header = {
        "model",          "N (or h, rtol)", "value" + bracket, "error" + bracket, "local order",
        "disc. estimate", "flag",           "rtol/atol (h)"};
    if (!uniform) t.header.push_back("unit");
    // A deviation of the vector q (or q') per coordinate, by the case's names.
    if (grid_deviation(o)) t.header.push_back("by coordinate");
    tables[o] = t;
    unit_column[o] = uniform ? std::map<std::string, std::string>{} : [&] {
      std::map<std::string, std::string> by_model;
      for (std::size_t i = 0; i < units.size(); ++i) by_model[study_.models[i].label] = units[i];
      return by_model;
    }();
  }
  return out;
}

// The models table: one row per model, its verdict and what it rests on.
Table Converge::verdict_table(const std::string& tolerance_caption) const {
  Table verdicts;
  verdicts.title = study_.name + ": models";
  verdicts.caption =
      "Least-squares order over the unflagged rows; extrapolated limit of the lift-off (Aitken "
      "on the three finest trusted rows, computed without the reference) with an error bar that "
      "is an upper bound (the distance to the same extrapolation one row coarser plus the "
      "propagated discretization); digits supported = -log10(bar / |reference|). " +
      tolerance_caption;
  verdicts.header = {"model",
                     "reference",
                     "reference lift-off",
                     "expected order",
                     "fitted order",
                     "extrapolated limit",
                     "+/- (upper bound)",
                     "digits supported",
                     "digits of agreement",
                     "flagged rows (lift-off, else the judged deviation)",
                     "verdict"};

  return verdicts;
}

// The points' lines by what they belong to (kind, model or series), in point order.
GroupedLines Converge::grouped_lines() const {
  GroupedLines grouped;
  for (std::size_t i = 0; i < points_.size(); ++i) {
    const std::string kind =
        points_[i].kind == "work_precision_reference" ? "work_precision" : points_[i].kind;
    grouped[{kind, points_[i].index}].push_back(&lines_[i]);
  }
  return grouped;
}

// A model's own fields of study.json: its case, solver, settings and reference.
ojson Converge::model_head(const StudyModel& m, const LadderReference& ref) const {
  ojson jm;
  jm["label"] = m.label;
  jm["case"] = m.case_name;
  ojson case_params = ojson::object();
  for (const auto& a : m.case_assignments) case_params[a.key] = a.value;
  jm["case_params"] = case_params;
  jm["solver"] = m.solver;
  // The ladder's axis: "N", "h" or "rtol" (the key of each row's rung), null for an ideal row.
  jm["axis"] = m.has_ladder ? ojson(axis_name(m.axis, m.ladder_parameter)) : ojson();
  ojson set = ojson::object();
  for (const auto& a : m.assignments) set[a.key] = a.value;
  jm["set"] = set;
  jm["note"] = m.note;
  if (m.t_end) jm["t_end"] = *m.t_end;
  // The per-constraint observables' constraint, where the model names one.
  if (m.constraint) jm["constraint"] = m.constraint_name;
  // Its own digits, where it names them (the study's otherwise: confirmation_rule).
  if (m.digits) jm["digits"] = *m.digits;
  // Its own tolerances, where it names them (the study's otherwise).
  if (m.own_tolerances) {
    jm["tolerances"] = {{"rtol", m.rtol},
                        {"atol", m.atol},
                        {"tight_factor", m.tight_factor},
                        {"tight_rtol", tight_rtol(m.rtol, m.tight_factor)},
                        {"tight_atol", tight_atol(m.atol, m.tight_factor)}};
  }
  // Its observables' units where its case gives other units than the study's (figure axes).
  if (m.case_name != study_.case_name) {
    const auto own = make_model(m.case_name, m.case_assignments);
    const auto study_case = make_model(study_.case_name, study_.case_assignments);
    ojson units = ojson::object();
    for (const auto& o : study_.observables) {
      if (observable(o).unit(*own) != observable(o).unit(*study_case)) {
        units[o] = observable(o).unit(*own);
      }
    }
    if (!units.empty()) jm["observable_units"] = units;
  }
  jm["reference"] = {{"kind", ref.kind},
                     {"status", ref.status},
                     {"lift_off_time", number_or_null(ref.lift_off)},
                     {"theorem_applies", ref.theorem_applies},
                     {"prediction_rule", ref.prediction_rule},
                     {"why", ref.why},
                     {"tolerances", ref.tolerances},
                     {"values", ref.values},
                     {"uncertainty", ref.uncertainty},
                     {"trajectory_known", !ref.q.empty()}};
  if (!m.reference_assignments.empty()) {
    ojson reference_set = ojson::object();
    for (const auto& a : m.reference_assignments) reference_set[a.key] = a.value;
    jm["reference"]["set"] = reference_set;
  }
  if (ref.kind == "value") jm["reference"]["source"] = m.reference_source;
  return jm;
}

// One model of the study: its observables' ladders (their rows into the tables), its verdict
// (into the models table and model_verdicts_), as its entry of study.json.
ojson Converge::model_json(std::size_t mi, GroupedLines& grouped, ObservableTables& tables,
                           Table& verdicts) {
  const StudyModel& m = study_.models[mi];
  const LadderReference& ref = references_[mi];
  const std::vector<const ojson*>& lines = grouped[{"ladder", mi}];
  ojson jm = model_head(m, ref);
  ojson observables = ojson::object();
  LadderRules rules;
  rules.digits = m.digits.value_or(study_.digits);
  std::optional<LadderAnalysis> lift_off;
  std::optional<std::pair<std::string, LadderAnalysis>> deviation;  // the first with an order
  // Every observable but the lift-off whose order the theory states, in the study's order.
  std::vector<std::pair<std::string, LadderAnalysis>> stated_others;
  for (const auto& o : study_.observables) {
    ObservableLadder ladder = analyse_observable(o, m, ref, lines, rules);
    const LadderAnalysis& analysis = ladder.analysis;
    observables[o] = observable_json(o, m, ladder, lines, tables.tables[o], tables.unit_column[o]);
    if (o == kLiftOffTime) lift_off = analysis;
    if (o != kLiftOffTime && analysis.expected_order) stated_others.emplace_back(o, analysis);
    if (o != kLiftOffTime && !deviation && (analysis.expected_order || !m.has_ladder)) {
      deviation = std::make_pair(o, analysis);
    }
  }
  jm["observables"] = observables;
  jm["order_source"] = m.order_source;

  const ModelJudgement judgement = judge_model(ref, lift_off, deviation, stated_others);
  const Verdict& verdict = judgement.verdict;
  const std::optional<double>& digits = judgement.digits;
  const std::optional<double>& digits_supported = judgement.digits_supported;
  const Extrapolated* extrapolation = lift_off ? &lift_off->extrapolation : nullptr;
  const auto from = [&](std::optional<double> Extrapolated::*field) {
    return number_or_null(extrapolation ? extrapolation->*field : std::nullopt);
  };
  jm["extrapolation"] = {
      {"method",
       "Aitken delta^2 on the three finest trusted rows; error bar = distance to the same "
       "extrapolation one row coarser + twice the propagated discretization and round-off"},
      {"order_from_differences", from(&Extrapolated::order)},
      {"order_one_row_coarser", from(&Extrapolated::order_shifted)},
      {"limit", from(&Extrapolated::limit)},
      {"uncertainty", from(&Extrapolated::uncertainty)},
      {"no_uncertainty_reason", extrapolation ? extrapolation->no_uncertainty_reason : ""},
      {"finest_rung_used", from(&Extrapolated::finest_rung)}};
  jm["digits_of_agreement"] = number_or_null(digits);
  jm["digits_supported"] = number_or_null(digits_supported);
  jm["confirmed"] = verdict.confirmed();
  jm["verdict"] = verdict.text;
  model_verdicts_.push_back(verdict.kind);
  // The observable the verdict rests on (the report's overview shows its fit): the lift-off,
  // else the first other observable with a stated order, else the first deviation.
  if (!lift_off && !stated_others.empty()) deviation = stated_others.front();
  jm["judged_observable"] = lift_off    ? ojson(std::string(kLiftOffTime))
                            : deviation ? ojson(deviation->first)
                                        : ojson();

  const auto optional_text = [](std::optional<double> x, int decimals) {
    return x ? fixed(x, decimals) : std::string();
  };
  // The analysis the verdict rests on: the lift-off, or the deviation that judged the model.
  const LadderAnalysis* judged = lift_off ? &*lift_off : deviation ? &deviation->second : nullptr;
  verdicts.rows.push_back(
      {m.label, ref.kind, full(ref.lift_off),
       judged && judged->expected_order ? format_number(*judged->expected_order) : "",
       // A floor's fitted order is no rate (LadderAnalysis::floor).
       judged ? (judged->floor ? "none (a floor)" : optional_text(judged->fitted_order, 3)) : "",
       full(extrapolation ? extrapolation->limit : std::nullopt),
       sci(extrapolation ? extrapolation->uncertainty : std::nullopt, 2),
       optional_text(digits_supported, 1), optional_text(digits, 1),
       judged ? std::to_string(judged->flagged_rows) : "", verdict.text});
  return jm;
}

// Each observable's table (four formats) and JSON, and the models table.
void Converge::write_observable_files(const ojson& summary, const ojson& models,
                                      ObservableTables& tables, const Table& verdicts) {
  for (const auto& o : study_.observables) {
    write_table(out_ / o, tables.tables[o]);
    ojson j;
    j["study"] = study_.name;
    j["observable"] = o;
    j["tolerances"] = summary["tolerances"];
    j["models"] = ojson::array();
    for (const auto& m : models) {
      j["models"].push_back({{"label", m["label"]},
                             {"reference", m["reference"]},
                             {"fit", m["observables"][o]["fit"]},
                             {"rows", m["observables"][o]["rows"]}});
    }
    {
      std::ostringstream text;
      text << j.dump(2) << "\n";
      write_file(out_ / (o + ".json"), text.str());
    }
  }
  write_table(out_ / "models", verdicts);
}

// The collapse figure's files (study.json's "collapse").
ojson Converge::collapse_json(GroupedLines& grouped) const {
  ojson c;
  c["model"] = study_.collapse->model;
  c["window"] = study_.collapse->window;
  c["files"] = ojson::array();
  const auto mi = static_cast<std::size_t>(
      std::find_if(study_.models.begin(), study_.models.end(),
                   [&](const StudyModel& m) { return m.label == study_.collapse->model; }) -
      study_.models.begin());
  c["predicted_lift_off_time"] = number_or_null(references_[mi].lift_off);
  for (const ojson* line_pointer : grouped[{"trajectory", mi}]) {
    const ojson& line = *line_pointer;
    c["files"].push_back({{"N", line.value("N", ojson())},
                          {"file", line.value("file", std::string())},
                          {"status", line.value("status", std::string())},
                          {"lift_off_time", line.value("lift_off_time", ojson())}});
  }
  return c;
}

// The paths figure's files (study.json's "paths").
ojson Converge::paths_json(GroupedLines& grouped) const {
  ojson paths;
  paths["x"] = study_.paths->x == PathsFigure::kTime ? ojson("t") : ojson(study_.paths->x);
  paths["y"] = study_.paths->y;
  paths["models"] = ojson::array();
  for (const auto& label : study_.paths->models) {
    const auto mi = static_cast<std::size_t>(
        std::find_if(study_.models.begin(), study_.models.end(),
                     [&](const StudyModel& m) { return m.label == label; }) -
        study_.models.begin());
    ojson files = ojson::array();
    for (const ojson* line_pointer : grouped[{"trajectory", mi}]) {
      const ojson& line = *line_pointer;
      const ojson N = line.value("N", ojson());
      const bool wanted = N.is_null() || std::find(study_.paths->N.begin(), study_.paths->N.end(),
                                                   N.get<double>()) != study_.paths->N.end();
      if (!wanted) continue;
      files.push_back({{"N", N},
                       {"file", line.value("file", std::string())},
                       {"status", line.value("status", std::string())}});
    }
    paths["models"].push_back({{"label", label}, {"files", files}});
  }
  return paths;
}

// The work-precision series (study.json's "work_precision", work_precision.csv and .md).
ojson Converge::work_precision_json(GroupedLines& grouped) const {
  ojson wp;
  wp["case"] = study_.work_precision_case;
  wp["atol_ratio"] = study_.work_precision_atol_ratio;
  wp["timing"] = "minimum wall time over " + std::to_string(study_.timing_repeats) +
                 " repeats, in work_precision.csv/.md only (timings are not deterministic)";
  wp["series"] = ojson::array();
  Table t;
  t.title = study_.name + ": work-precision";
  t.caption = "Case " + study_.work_precision_case +
              ": lift-off error against the closed form (or the same solver at rtol 1e-14) "
              "versus cost. Wall time: the minimum over " +
              std::to_string(study_.timing_repeats) + " repeats on this machine.";
  t.header = {"series",          "vary",          "value",        "lift-off error", "steps",
              "rhs evaluations", "wall time [s]", "rtol/atol (h)"};
  const auto wp_model =
      make_model(study_.work_precision_case, study_.work_precision_case_assignments);
  const Facts wp_facts = wp_model->facts();
  std::ostringstream timing;
  timing << "series,vary,value,error,steps,rhs_evaluations,wall_time_s\n";
  for (std::size_t s = 0; s < study_.work_precision.size(); ++s) {
    const auto& w = study_.work_precision[s];
    std::vector<const ojson*> points = grouped[{"work_precision", s}];
    const ojson* reference_line = nullptr;
    if (w.reference == "tight") {
      reference_line = points.back();
      points.pop_back();
    }
    std::optional<double> reference;
    if (w.reference == "closed-form") {
      reference = wp_facts.lift_off_time(w.limit_model);
    } else if (reference_line) {
      reference = optional_of(reference_line->value("lift_off_time", ojson()));
    }
    ojson js;
    js["label"] = w.label;
    js["solver"] = w.solver;
    js["vary"] = w.vary;
    js["reference"] = w.reference;
    js["reference_lift_off_time"] = number_or_null(reference);
    js["note"] = w.note;
    js["points"] = ojson::array();
    for (const ojson* p : points) {
      const auto lift_off = optional_of(p->value("lift_off_time", ojson()));
      // A NaN rather than an optional: GCC 12 warns (falsely) about the optional here.
      const double error_value =
          lift_off && reference ? std::abs(*lift_off - *reference) : std::nan("");
      const std::optional<double> error = error_value;
      js["points"].push_back({{"value", p->value("value", 0.0)},
                              {"status", p->value("status", std::string())},
                              {"lift_off_time", number_or_null(lift_off)},
                              {"error", number_or_null(error)},
                              {"steps", p->value("steps", 0L)},
                              {"rhs_evaluations", p->value("rhs_evaluations", 0L)},
                              {"tolerances", tolerance_text(tolerances_of(*p))}});
      const double wall = p->value("wall_time_s", std::nan(""));
      t.rows.push_back({w.label, w.vary, format_number(p->value("value", 0.0)), sci(error),
                        std::to_string(p->value("steps", 0L)),
                        std::to_string(p->value("rhs_evaluations", 0L)), sci(wall),
                        compact_tolerances(tolerances_of(*p))});
      timing << csv_field(w.label) << "," << w.vary << "," << full(p->value("value", 0.0)) << ","
             << full(error) << "," << p->value("steps", 0L) << ","
             << p->value("rhs_evaluations", 0L) << "," << full(wall) << "\n";
    }
    wp["series"].push_back(js);
  }
  write_file(out_ / "work_precision.csv", timing.str());
  // The Markdown table carries the timings; the CSV above is the figure's input.
  std::ostringstream notes;
  for (const auto& w : study_.work_precision) {
    if (!w.note.empty()) notes << "- " << w.label << ": " << w.note << "\n";
  }
  {
    std::ostringstream text;
    text << "### " << t.title << "\n\n"
         << t.caption << "\n\n"
         << markdown(t) << "\n"
         << notes.str();
    write_file(out_ / "work_precision.md", text.str());
  }
  return wp;
}

ojson Converge::assemble() {
  const auto model = make_model(study_.case_name, study_.case_assignments);
  ojson summary = summary_head(*model);
  const bool own = std::any_of(study_.models.begin(), study_.models.end(),
                               [](const StudyModel& m) { return m.own_tolerances; });
  const std::string tolerance_caption =
      "rtol " + format_number(study_.rtol) + ", atol " + format_number(study_.atol) +
      (own ? " (or a model's own where it names them: the rtol/atol column)" : "") +
      "; discretization estimate = difference from the same point at tolerances / " +
      format_number(study_.tight_factor) + "; references at those tighter tolerances.";
  ObservableTables tables = observable_tables(tolerance_caption);
  Table verdicts = verdict_table(tolerance_caption);
  GroupedLines grouped = grouped_lines();
  ojson models = ojson::array();
  model_verdicts_.clear();
  for (std::size_t mi = 0; mi < study_.models.size(); ++mi) {
    models.push_back(model_json(mi, grouped, tables, verdicts));
  }
  summary["models"] = models;
  write_observable_files(summary, models, tables, verdicts);
  if (study_.collapse) summary["collapse"] = collapse_json(grouped);
  if (study_.paths) summary["paths"] = paths_json(grouped);
  // The classical lift-off, for the figures' reference line.
  const Facts facts = model->facts();
  const bool single_case = single_case_study();
  summary["single_case"] = single_case;
  summary["classical_lift_off_time"] =
      single_case ? number_or_null(facts.lift_off_time("classical")) : ojson();

  if (!study_.work_precision.empty()) summary["work_precision"] = work_precision_json(grouped);
  return summary;
}

}  // namespace

ConvergeResult run_study(const Study& study, const ConvergeOptions& options) {
  return Converge(study, options).run();
}

}  // namespace crbench
