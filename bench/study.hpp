// Studies: a case × models × an N ladder × tolerances, run point by point on several threads
// (`crbench converge`), with convergence tables, Richardson limits, figures and work–precision.
// The study-file schema is documented in bench/studies/README.md.
#pragma once

#include <functional>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "crbench/bench/ladder.hpp"
#include "crbench/bench/points.hpp"
#include "crbench/cases/params.hpp"

namespace crbench {

struct StudyModel {
  std::string label;
  // The study's case and parameters unless the model names its own (a case-library study).
  std::string case_name;
  std::vector<Assignment> case_assignments;
  std::string solver;
  std::vector<Assignment> assignments;  // the solver's parameters and choices, without N
  std::string limit_model;              // Solver::limit_model of these settings (Facts' name)
  // What the errors are measured against: "limit" (the limit solver with the same model),
  // "closed-form" (the case's facts), "value" (numbers the theory gives, reference_values) or the
  // name of a solver run at the tight tolerances.
  std::string reference;
  // "value": observable → the number it tends to, and where that comes from.
  std::map<std::string, double> reference_values;
  std::string reference_source;
  // The horizon of every run of this model (the study's t_end, or the case's horizon).
  std::optional<double> t_end;
  // The constraint whose quantities the per-constraint observables measure ("constraint": its
  // name or index), and its name; none: the whole system.
  std::optional<int> constraint;
  std::string constraint_name;
  // The digits its extrapolated limit must be confirmed to, where the model names its own
  // ("digits"); none: the study's.
  std::optional<double> digits;
  // Its runs' tolerances and the tight twin's factor: the study's, or its own where it names them
  // ("tolerances"; own_tolerances). A model whose steps multiply below some atol (a medium whose
  // velocities scale as 1/sqrt(N)) runs its longer ladder at looser ones.
  double rtol = 1e-12;
  double atol = 1e-14;
  double tight_factor = 100.0;
  bool own_tolerances = false;
  // A solver reference's own parameters and choices ("reference_set"; otherwise its defaults and
  // the case's carried settings): Newton's restitution 1 for a penalty contact's elastic limit.
  std::vector<Assignment> reference_assignments;
  // The model runs a ladder: in N (a solver with an N parameter: the study's ladder cut to
  // [N_min, N_max], or the model's own "ladder" in N), or in h, rtol or a parameter (the model's
  // own "ladder"); otherwise one ideal row.
  bool has_ladder = false;
  LadderAxis axis = LadderAxis::N;
  // The parameter of a parameter ladder (axis == parameter): the solver's, or with
  // ladder_on_case the case's (the energy E of an oscillation, for example).
  std::string ladder_parameter;
  bool ladder_on_case = false;
  std::vector<double> ladder;  // the rungs on `axis`, coarse to fine (has_ladder), else empty
  // An h ladder's realization parameter N where the reference is the limit N → ∞ (closed-form or
  // limit): the model's h → 0 limit is its own motion at that N, not the reference.
  std::optional<double> fixed_N;
  std::map<std::string, double> expected_order;  // observable → order the theory states
  // observable → the power k of the logarithm in its error law C N^-p (ln N)^k (LadderRules)
  std::map<std::string, int> log_power;
  // observable → the coarsest rung its fits use (LadderRules::fit_from); the coarser rows are
  // tabled and not fitted
  std::map<std::string, double> fit_from;
  std::string order_source;  // where that order comes from
  // observable → the theory's leading coefficients a1, a2, … of its error as a series in the
  // rung x (a1 x^p + a2 x^(2p) + …, p the expected order), and where they come from.
  std::map<std::string, std::vector<double>> expected_coefficients;
  // observable → the powers of x of those coefficients, where they are not p, 2p, …
  std::map<std::string, std::vector<double>> coefficient_powers;
  std::string coefficient_source;
  std::string note;
};

struct CollapseFigure {
  std::string model;  // a model label with an N ladder
  std::vector<double> N;
  double window = 0.5;  // half-width of the near-lift-off figure around the predicted lift-off
};

// Paths in a coordinate plane (q_x, q_y): for each model, its realization at several N over its
// limit (e.g. the four members of the kinematic family and their realizations).
struct PathsFigure {
  std::vector<std::string> models;  // labels of models with an N ladder
  std::vector<double> N;
  static constexpr int kTime = -1;  // x: time instead of a coordinate
  int x = 0;
  int y = 1;
};

// The table a study's README opens with: for some ladder models on one axis, the errors of some
// observables at some rungs, side by side (each engine setting's lift-off error at robotics
// steps), so that a reader quotes one line instead of reading every model's ladder.
struct GlanceTable {
  std::string caption;
  LadderAxis axis = LadderAxis::N;  // the models' common ladder axis
  std::string parameter;            // its parameter's name (LadderAxis::parameter)
  std::vector<double> at;
  std::vector<std::string> observables;
  std::vector<std::string> models;
};

struct WorkPrecisionSeries {
  std::string label;
  std::string solver;
  std::vector<Assignment> assignments;
  std::string limit_model;  // Solver::limit_model of these settings (Facts' name)
  std::string vary;         // "rtol" (atol = rtol·atol_ratio) or "h"
  std::vector<double> values;
  std::string reference;  // "closed-form" or "tight" (the same solver at rtol 1e-14)
  std::string note;
};

struct Study {
  std::string name;
  std::string description;
  std::string case_name;
  std::vector<Assignment> case_assignments;
  double rtol = 1e-12;
  double atol = 1e-14;
  // The discretization check of an N ladder runs at tolerances / tight_factor; references run
  // there, and the references of h and rtol ladders also at the study's tolerances, their
  // difference being the reference's error estimate.
  double tight_factor = 100.0;
  int samples = 2001;           // output grid for the trajectory observables
  std::optional<double> t_end;  // the horizon of every run (a model may set its own)
  double digits = 8.0;          // digits of agreement a ladder model needs to be confirmed
  std::vector<double> ladder;   // the N ladder (study.N); empty when no model runs one
  std::vector<std::string> observables;
  std::vector<StudyModel> models;
  std::optional<CollapseFigure> collapse;
  std::optional<PathsFigure> paths;
  std::optional<GlanceTable> glance;
  std::string work_precision_case;
  std::vector<Assignment> work_precision_case_assignments;
  double work_precision_atol_ratio = 1e-2;
  int timing_repeats = 3;
  // Seconds each solve may take (RunSettings::max_wall_time); such points are tabulated as
  // wall_time_exceeded and computed again by --resume.
  double max_wall_time = std::numeric_limits<double>::infinity();
  std::vector<WorkPrecisionSeries> work_precision;
};

// InputError naming the field ("study.models[2].solver: ...") and the accepted values.
Study parse_study(const nlohmann::json& j);
Study load_study(const std::string& path);
// The text of a study file; `origin` names it in messages. InputError on anything malformed.
Study parse_study_text(std::string_view text, const std::string& origin);

struct ConvergeResult;

struct ConvergeOptions : FolderRunOptions {
  bool progress_line = false;  // a live "points done/total, elapsed, ETA" line on stderr
  // Called with the final result once the folder is finished (after its figures): before
  // run_study returns, or on the figure queue's thread where there is one (figure_queue).
  std::function<void(const ConvergeResult&)> on_finished;
};

struct ConvergeResult {
  nlohmann::ordered_json summary;  // what study.json holds
  int points_total = 0;
  int points_computed = 0;  // the rest came from points.jsonl (--resume)
  // Points whose line is an internal_error (a fault inside crbench, not a solver status): the
  // CLI exits 1 when there are any; --resume computes them again.
  int points_internal_error = 0;
  int points_wall_time_exceeded = 0;  // solves ended by the solver's max_wall_time
  bool figures_written = false;
  std::string figures_message;
  std::vector<VerdictKind> model_verdicts;  // per model of the study, in its order
};

// Runs every point not already in out_dir/points.jsonl (with resume), appending each as it
// completes, then writes the tables, study.json and (optionally) the figures into out_dir.
ConvergeResult run_study(const Study& study, const ConvergeOptions& options);

}  // namespace crbench
