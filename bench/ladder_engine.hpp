// The one ladder engine of the experiments: what a ladder runs at each rung and its tight twin
// (a ladder plan), what its rows are measured against (a reference: numbers the theory gives, a
// closed form sampled on the output grid, or a run at the tight tolerances with its own error
// estimate), one row's measurement, and the judgement of an observable's rows. `crbench converge`
// runs the rows of its plans on its point pool (one line of points.jsonl each) and `crbench verify`
// one after another (run_ladder); both build them, their references and their inputs here, so the
// same ladder gives both the same verdict. The arithmetic of the judgement is bench/ladder.hpp's.
#pragma once

#include <Eigen/Core>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "crbench/bench/ladder.hpp"
#include "crbench/bench/run_support.hpp"
#include "crbench/cases/case.hpp"

namespace crbench {

// What a ladder runs at each rung.
struct LadderPlan {
  // The model's run at the settings' tolerances on the output grid, without the rung.
  RunRequest base;
  LadderAxis axis = LadderAxis::N;
  // A parameter ladder's parameter: the solver's, or with parameter_on_case the case's.
  std::string parameter;
  bool parameter_on_case = false;
  // The settings' tolerances: a tight twin runs at tight_rtol/tight_atol of these, an rtol rung
  // keeps atol's ratio to rtol.
  double rtol = kDefaultRtol;
  double atol = kDefaultAtol;
  double tight_factor = 100.0;
  // A solver with a fixed step and no tolerances (a physics engine) on an N ladder: its tight twin
  // runs at half the step instead (first order: the difference estimates the step's error).
  std::optional<double> fixed_step;
};

// The run of a row: the base with the rung set on the plan's axis; nullopt: the base itself (an
// ideal model's single row).
RunRequest rung_request(const LadderPlan& plan, std::optional<double> rung);
// Whether the rows of a ladder on this axis have a tight twin: N and parameter ladders do; an h or
// rtol ladder's rows do not (the ladder itself is the discretization; they are judged against
// the reference's own error estimate instead).
bool has_tight_twins(LadderAxis axis);
// The tight twin of a row's run (has_tight_twins): the same run at the tight tolerances, or at
// half the fixed step.
RunRequest tight_twin(const LadderPlan& plan, const RunRequest& row);

// The output grid: point i of `samples` over [t0, t1], the last exactly t1 (solve_on_grid's).
double grid_time(double t0, double t1, int i, int samples);
// A closed-form motion on that grid; empty where the formula has no value at some grid time.
std::vector<Eigen::VectorXd> sample_motion(const ClosedFormTrajectory& motion, double t0, double t1,
                                           int samples);

// What a ladder's rows are measured against.
struct LadderReference {
  std::string kind;  // "value", "closed-form" or the solver of a run
  // The constraint whose quantities the rows measure (ObservableSpec::per_constraint) and whose
  // lift-off `lift_off` is; none: the whole system.
  std::optional<int> constraint;
  Status status = Status::ok;
  std::optional<double> lift_off;
  std::vector<Eigen::VectorXd> q;  // on the ladder's grid; empty when not known
  std::vector<Eigen::VectorXd> v;  // the same for q' (a run's; closed forms give q)
  std::vector<double> z;           // a limit run's z over its first contact (first_contact_z)
  bool theorem_applies = true;
  // Theorem 1, or its continuation past zeros of z with lambda > 0 (docs/theory.md §3): either
  // gives a prediction; "none" does not.
  PredictionRule prediction_rule = PredictionRule::theorem_1;
  std::string why;
  std::string tolerances;
  // The value of each observable besides the lift-off and the grid deviations (penetration
  // depth, post-impact velocity, energy drift); absent where there is none.
  std::map<std::string, double> values;
  // The reference's own error estimate per observable (the rows of h and rtol ladders are judged
  // against it; on other axes it widens the error bar the reference must lie within): 0 for given
  // numbers and closed forms; for a run, its difference from the same run at the settings'
  // tolerances.
  std::map<std::string, double> uncertainty;
  // Not in the digest (they follow from what is): what the reference is, in words, and the
  // record of its run (a run reference's).
  std::string what;
  RunRecord record;
};

// Everything a reference holds that a row's measurement on `axis` reads, numbers exact: two
// references with equal digests give a row equal values.
std::string digest(const LadderReference& reference, LadderAxis axis);

struct ReferenceSpec {
  // "value" (numbers the theory gives), "closed-form" (the case's facts) or the solver of a run.
  std::string kind;
  // The constraint the ladder measures (LadderReference::constraint); none: the whole system.
  std::optional<int> constraint;
  std::map<std::string, double> values;  // "value": observable → number
  std::string source;                    // "value": where the numbers come from
  std::string limit_model;               // "closed-form": the facts' model
  // The grid of every kind (case, its parameters, samples, t_end); a run reference's run at the
  // settings' tolerances (the reference runs at tight_rtol/tight_atol of them).
  RunRequest run;
  double tight_factor = 100.0;
  // Estimate the run's own error: the same run at the settings' tolerances, its difference per
  // observable (LadderReference::uncertainty).
  bool estimate_error = false;
  // "closed-form" only: what the case's facts lack (the lift-off or the motion, each on its own)
  // comes from this run as a run reference (with estimate_error, its error estimate too);
  // none: nothing completes the facts.
  std::optional<RunRequest> completing_run;
  std::vector<std::string> observables;
};

// The reference a spec names, on `model` (the case the spec's run solves).
LadderReference make_reference(const ReferenceSpec& spec, const Model& model);

// One observable of a run against the reference (the observable's measure function).
std::optional<double> observe_one(const std::string& observable, const GridRun& run,
                                  const Model& model, const LadderReference& reference);

// The value the rows of an observable tend to: the lift-off, 0 for what tends to zero (a grid
// deviation from a reference without motion then has rows without values), or the reference's
// value.
std::optional<double> reference_value(const std::string& observable,
                                      const LadderReference& reference);

// The reference's error estimate a row of an h or rtol ladder carries (infinity when the
// reference has none: its run failed; the row is then flagged REFERENCE); none on other axes.
std::optional<double> row_reference_uncertainty(LadderAxis axis, const std::string& observable,
                                                const LadderReference& reference);

// A row as measured: its rung, its run's outcome and one observable's value at the settings'
// tolerances and in its tight twin (a study keeps these in its points' lines).
struct RowMeasurement {
  std::optional<double> rung;
  Status status = Status::ok;
  std::string reason;
  std::vector<std::string> warnings;
  std::optional<double> value;
  std::optional<Status> tight_status;  // none: the row has no tight twin
  std::optional<double> tight;
};

// One row's input to the analysis: the tight value only where the twin's run succeeded, and on
// an h or rtol ladder the reference's error estimate.
LadderInput ladder_input(const std::string& observable, LadderAxis axis, RowMeasurement row,
                         const LadderReference& reference);
// The same from the row's run and, where it has one, its tight twin's.
LadderInput ladder_input(const std::string& observable, LadderAxis axis, std::optional<double> rung,
                         const GridRun& row, const GridRun* tight, const Model& model,
                         const LadderReference& reference);

// The analysis of one observable's rows against the reference (analyse_ladder): extrapolated
// where the observable converges to a value that is not 0.
LadderAnalysis judge_rows(const std::string& observable, const std::vector<LadderInput>& inputs,
                          const LadderReference& reference, std::optional<double> expected_order,
                          const LadderRules& rules, LadderAxis axis, const std::string& parameter,
                          const std::string& no_reference_why,
                          std::optional<double> fixed_N = std::nullopt);

// A ladder run one row after another: each row's run and tight twin, and each observable's
// inputs.
struct LadderRun {
  std::vector<GridRun> rows;
  std::vector<std::optional<GridRun>> tight;
  std::map<std::string, std::vector<LadderInput>> inputs;
};
LadderRun run_ladder(const LadderPlan& plan, const std::vector<double>& rungs,
                     const LadderReference& reference, const std::vector<std::string>& observables);

}  // namespace crbench
