#include "crbench/bench/verify.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "crbench/bench/convergence.hpp"
#include "crbench/bench/ladder.hpp"
#include "crbench/bench/ladder_engine.hpp"
#include "crbench/bench/observables.hpp"
#include "crbench/bench/run_support.hpp"
#include "crbench/cases/registry.hpp"
#include "crbench/solvers/model_parameters.hpp"
#include "crbench/solvers/solver.hpp"
#include "crbench/version.hpp"

namespace crbench {
namespace {

nlohmann::ordered_json optional_number(const std::optional<double>& x) {
  return x && std::isfinite(*x) ? nlohmann::ordered_json(*x) : nlohmann::ordered_json();
}

std::string text_of(const std::optional<double>& x, int precision = 16) {
  if (!x || !std::isfinite(*x)) return "-";
  std::ostringstream s;
  s.precision(precision);
  s << *x;
  return s.str();
}

// Every run of an N ladder reports on this grid (the q deviations of a kinematic case).
constexpr int kSamples = 601;

// The N ladder of the verified model: the realization with the request's case and model at the
// request's tolerances, each row with its tight twin.
LadderPlan N_plan(const VerifyRequest& request) {
  LadderPlan plan;
  plan.base.case_name = request.case_name;
  plan.base.solver_name = "realization";
  plan.base.case_assignments = request.case_assignments;
  plan.base.solver_assignments = request.model_assignments;
  plan.base.rtol = request.rtol;
  plan.base.atol = request.atol;
  plan.base.t_end = request.t_end;
  plan.base.samples = kSamples;
  plan.axis = LadderAxis::N;
  plan.rtol = request.rtol;
  plan.atol = request.atol;
  plan.tight_factor = request.tight_factor;
  return plan;
}

// The constraint --constraint names (its index), none without one.
std::optional<int> selected_constraint(const VerifyRequest& request, const Model& model) {
  if (!request.constraint) return std::nullopt;
  return model.constraint_index(*request.constraint, "--constraint");
}

// "" for the whole system, " of constraint wall" for one.
std::string constraint_words(std::optional<int> k, const Model& model) {
  return k ? " of constraint " + model.constraint_name(*k) : std::string();
}

// The limit model's prediction: the limit solver with the same model at the tight tolerances, far
// more accurate than the ladder's rows (a study's "limit" reference), with its own error estimate
// where asked (its difference from the run at the request's tolerances); the lift-off of the
// constraint --constraint names, if any.
LadderReference prediction_of(const LadderPlan& plan, const Model& model,
                              const std::string& observable, std::optional<int> constraint,
                              bool estimate_error) {
  ReferenceSpec spec;
  spec.kind = "limit";
  spec.constraint = constraint;
  spec.run = plan.base;
  spec.run.solver_name = "limit";
  spec.tight_factor = plan.tight_factor;
  spec.estimate_error = estimate_error;
  spec.observables = {observable};
  return make_reference(spec, model);
}

// Kinematic constraints have no lift-off: the prediction is the limit member's motion, and the
// ladder's max_q_deviation from it must fall at the theory's order 1 (Kozlov 1992 (6)–(7)).
int verify_kinematic(const VerifyRequest& request, const std::vector<double>& ladder,
                     const Model& model, std::ostream& out) {
  const std::string o(kMaxQDeviation);
  if (request.constraint) {
    throw InputError("--constraint: " + request.case_name +
                     " has kinematic constraints; its ladder measures the whole motion "
                     "(max_q_deviation), not one constraint's lift-off");
  }
  const LadderPlan plan = N_plan(request);
  // A deviation tends to zero: its judgement reads no error estimate of the prediction.
  const LadderReference prediction = prediction_of(plan, model, o, std::nullopt, false);
  const LadderRun run = run_ladder(plan, ladder, prediction, {o});
  const std::vector<LadderInput>& inputs = run.inputs.at(o);
  LadderRules rules;
  rules.digits = request.digits;
  const LadderAnalysis analysis =
      judge_rows(o, inputs, prediction, 1.0, rules, LadderAxis::N, "", prediction.why);
  const bool predicted = prediction.status == Status::ok;
  const Verdict verdict =
      predicted ? analysis.verdict
                : Verdict::of(VerdictKind::no_prediction,
                              "the limit run ended with " + to_string(prediction.status));
  const bool confirmed = verdict.confirmed();
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  std::ostringstream table;
  table << std::left << std::setw(10) << "N" << std::setw(16) << "max_q_dev" << std::setw(10)
        << "order" << std::setw(12) << "disc.err"
        << "flag\n";
  for (std::size_t i = 0; i < analysis.rows.size(); ++i) {
    const LadderRow& row = analysis.rows[i];
    rows.push_back({{"N", ladder[i]},
                    {"status", inputs[i].status},
                    {o, optional_number(row.value)},
                    {"local_order", optional_number(row.local_order)},
                    {"discretization_error", optional_number(row.discretization)},
                    {"flagged", row.flagged},
                    {"flag", row.flag},
                    {"steps", run.rows[i].record.steps}});
    table << std::setw(10) << N_label(ladder[i]) << std::setw(16) << text_of(row.value, 4)
          << std::setw(10) << text_of(row.local_order, 4) << std::setw(12)
          << text_of(row.discretization, 3) << row.flag << "\n";
  }
  if (request.json) {
    nlohmann::ordered_json j;
    j["crbench_version"] = version;
    j["build"] = build_json();
    j["case"] = request.case_name;
    j["params"] = prediction.record.params;
    j["model"] = prediction.record.solver_params;
    j["observable"] =
        "max_q_deviation from the limit member on a " + std::to_string(kSamples) + "-point grid";
    j["tolerances"] = {
        {"rtol", request.rtol}, {"atol", request.atol}, {"tight_factor", request.tight_factor}};
    j["prediction"] = {{"status", prediction.status},
                       {"member", prediction.record.diagnostics.value("member", std::string())}};
    j["points"] = rows;
    j["least_squares_order"] = optional_number(analysis.fitted_order);
    j["expected_order"] = 1.0;
    j["confirmed"] = confirmed;
    j["verdict"] = verdict.text;
    out << j.dump(2) << "\n";
  } else {
    out << request.case_name << ": prediction = the limit member ("
        << prediction.record.diagnostics.value("member", std::string())
        << "), observable max_q_deviation\n"
        << table.str() << "least-squares order " << text_of(analysis.fitted_order, 4) << "\n"
        << verdict.text << "\n";
  }
  return confirmed ? 0 : 1;
}

// The orders the theory states for a scheme's error along an h or rtol ladder, with their source;
// nullopt where none is stated (the record then says NO RATE STATED and gives the fitted order).
std::optional<StatedOrder> stated_step_order(LadderAxis axis, const std::string& observable) {
  if (axis == LadderAxis::h) {
    // Moreau-Jean's positions: order 1 in h over a motion with contact transitions or impacts
    // (Acary & Brogliato 2008, Numerical Methods for Nonsmooth Dynamical Systems, section 10.1;
    // the trapezoidal flight is of order 2, the contact episodes' ends are resolved to O(h)), so
    // the largest deviation over the run. Its lift-off is the end of a step: |error| <= h, not a
    // power law (where the true time is a step end, the error is 0). The deviation at the horizon
    // has no stated order: a run that ends at rest on the constraint (bouncing-ball-siconos)
    // converges there faster than its flight.
    if (observable != kMaxQDeviation) return std::nullopt;
    return StatedOrder{1.0,
                       "Moreau-Jean time stepping: positions of order 1 in h across contact "
                       "transitions and impacts (Acary & Brogliato 2008, section 10.1)"};
  }
  // No order in rtol is stated: tolerance proportionality (Hairer, Norsett & Wanner I, section
  // II.4) is a design aim of error-per-step control, not a theorem, and it does not hold for the
  // located times here, where the step can be bounded by the event sampling rather than by rtol
  // (docs/internals.md: particle-on-circle's lift-off). The ladder is measured and its fitted
  // order printed (NO RATE STATED).
  (void)observable;
  return std::nullopt;
}

// What a step ladder measures: the lift-off, and the final and the largest q deviation.
std::vector<std::string> step_observables() {
  return {std::string(kLiftOffTime), std::string(kFinalQDeviation), std::string(kMaxQDeviation)};
}

// An h or rtol ladder of one solver, and what its runs share: the case, the solver's
// configuration, the output grid, the model the solver approximates.
struct StepLadder {
  const VerifyRequest& request;
  const Solver& solver;
  std::unique_ptr<Model> model;
  double t0 = 0.0, t1 = 0.0;
  int samples = 0;
  std::vector<Assignment> solver_assignments;
  RunSettings settings;
  std::string limit_model, axis;
  bool in_h = false;

  StepLadder(const VerifyRequest& r, const std::vector<double>& ladder)
      : request(r),
        solver(find_solver(r.solver)),
        model(make_model(r.case_name, r.case_assignments)),
        t0(model->initial_state().t),
        t1(r.t_end.value_or(model->horizon())),
        samples(step_ladder_samples(r.axis, ladder.front(), t1 - t0, 601)),
        solver_assignments(r.model_assignments),
        axis(axis_name(r.axis)),
        in_h(r.axis == LadderAxis::h) {
    if (r.N_fixed) solver_assignments.push_back({"N", format_number(*r.N_fixed)});
    configure_solver(solver, solver_assignments, settings, &model->info());
    limit_model = solver.limit_model(settings.solver_params, settings.solver_choices);
  }

  // The ladder's rows: the solver at the request's tolerances on the grid, the rung its h or its
  // rtol (atol in the request's ratio to it).
  LadderPlan plan() const {
    LadderPlan p;
    p.base.case_name = request.case_name;
    p.base.case_assignments = request.case_assignments;
    p.base.solver_name = request.solver;
    p.base.solver_assignments = solver_assignments;
    p.base.rtol = request.rtol;
    p.base.atol = request.atol;
    p.base.samples = samples;
    p.base.t_end = request.t_end;
    p.axis = request.axis;
    p.rtol = request.rtol;
    p.atol = request.atol;
    p.tight_factor = request.tight_factor;
    return p;
  }

  // The closed form where the case has it (lift-off, motion: each on its own), else a tight run
  // of a reference solver (event-driven for an h ladder, the same solver at the tight rtol for an
  // rtol ladder) for what the closed form lacks, its error estimated by its difference from the
  // request's rtol. A closed form describes the model a solver converges to; a solver with N (the
  // realization) at a fixed N is not that model, so its rtol ladder is measured against its own
  // tight run.
  LadderReference reference() const {
    const std::vector<ParamSpec> parameters = solver.parameters();
    const bool solver_is_its_model = std::none_of(parameters.begin(), parameters.end(),
                                                  [](const ParamSpec& p) { return p.name == "N"; });
    ReferenceSpec spec;
    spec.constraint = selected_constraint(request, *model);
    spec.run = plan().base;
    spec.tight_factor = request.tight_factor;
    spec.estimate_error = true;
    spec.observables = step_observables();
    if (in_h) {
      spec.run.solver_name = "event-driven";
      spec.run.solver_assignments.clear();
    }
    if (solver_is_its_model) {
      spec.kind = "closed-form";
      spec.limit_model = limit_model;
      spec.completing_run = spec.run;
    } else {
      spec.kind = spec.run.solver_name;
    }
    return make_reference(spec, *model);
  }
};

// One observable of a step ladder: its analysis against the reference, its rows as JSON and
// as the text table (appended to `text`).
struct StepObservable {
  LadderAnalysis analysis;
  std::optional<StatedOrder> stated;
  nlohmann::ordered_json json;
};

StepObservable step_observable(const StepLadder& step, const std::string& o,
                               const std::vector<double>& ladder, const LadderRun& run,
                               const LadderReference& ref, std::ostringstream& text) {
  const VerifyRequest& request = step.request;
  const std::string& axis = step.axis;
  const bool in_h = step.in_h;
  const std::vector<GridRun>& runs = run.rows;
  const std::vector<LadderInput>& inputs = run.inputs.at(o);
  LadderRules rules;
  rules.digits = request.digits;
  const bool is_lift_off = o == kLiftOffTime;
  const std::optional<StatedOrder> stated = stated_step_order(request.axis, o);
  const LadderAnalysis analysis =
      judge_rows(o, inputs, ref, stated ? std::optional<double>(stated->order) : std::nullopt,
                 rules, request.axis, "",
                 is_lift_off ? "the case has no lift-off for the " + step.limit_model + " model"
                             : "no reference motion");
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  text << "\n"
       << o << (is_lift_off ? constraint_words(ref.constraint, *step.model) : " [case units of q]")
       << "\n";
  text << std::left << std::setw(10) << axis << std::setw(24)
       << (is_lift_off ? "value" : "deviation") << std::setw(12) << "error" << std::setw(10)
       << "order" << std::setw(12) << "ref.err" << std::setw(8) << "steps"
       << "flag\n";
  for (std::size_t i = 0; i < analysis.rows.size(); ++i) {
    const LadderRow& row = analysis.rows[i];
    rows.push_back({{axis, ladder[i]},
                    {"status", inputs[i].status},
                    {"value", optional_number(row.value)},
                    {"error", optional_number(row.error)},
                    {"local_order", optional_number(row.local_order)},
                    {"reference_error_estimate", optional_number(row.discretization)},
                    {"flagged", row.flagged},
                    {"flag", row.flag},
                    {"warnings", inputs[i].warnings},
                    {"steps", runs[i].record.steps},
                    {"rhs_evaluations", runs[i].record.rhs_evaluations}});
    text << std::setw(10) << N_label(ladder[i]) << std::setw(24)
         << text_of(row.value, is_lift_off ? 16 : 4) << std::setw(12) << text_of(row.error, 4)
         << std::setw(10) << text_of(row.local_order, 4) << std::setw(12)
         << text_of(row.discretization, 3) << std::setw(8) << runs[i].record.steps << row.flag
         << "\n";
  }
  text << "least-squares order " << text_of(analysis.fitted_order, 4) << "; expected "
       << (stated        ? format_number(stated->order) + " (" + stated->source + ")"
           : !in_h       ? std::string("none stated: tolerance proportionality is an aim of "
                                             "error-per-step control, not a theorem")
           : is_lift_off ? std::string("none stated: the lift-off of a time-stepping scheme is "
                                       "the end of a step, within h of the true one but not a "
                                       "power law in h")
                         : std::string("none stated: the motion at the horizon may be at rest "
                                       "on a constraint"))
       << "\n"
       << analysis.verdict.text << "\n";
  const Extrapolated& x = analysis.extrapolation;
  const nlohmann::ordered_json observed_json = {
      {"points", rows},
      {"least_squares_order", optional_number(analysis.fitted_order)},
      {"expected_order", stated ? nlohmann::ordered_json(stated->order) : nlohmann::ordered_json()},
      {"order_source", stated ? stated->source : ""},
      {"extrapolated_limit", optional_number(x.limit)},
      {"uncertainty", optional_number(x.uncertainty)},
      {"confirmed", analysis.verdict.confirmed()},
      {"verdict", analysis.verdict.text}};
  return {analysis, stated, observed_json};
}

// An h or rtol ladder of one solver: lift-off time, final and largest q deviation against the
// case's closed form for the model the solver approximates, else against a tight run of a
// reference solver (step_reference), whose own error estimate flags the rows it cannot resolve.
int verify_step_ladder(const VerifyRequest& request, const std::vector<double>& ladder,
                       std::ostream& out) {
  const StepLadder step(request, ladder);
  const LadderReference ref = step.reference();
  const LadderRun run = run_ladder(step.plan(), ladder, ref, step_observables());
  nlohmann::ordered_json observed = nlohmann::ordered_json::object();
  std::ostringstream text;
  bool all_confirmed = true;
  int stated_count = 0;
  for (const std::string& o : step_observables()) {
    const StepObservable one = step_observable(step, o, ladder, run, ref, text);
    if (one.stated) {
      ++stated_count;
      all_confirmed = all_confirmed && one.analysis.verdict.confirmed();
    }
    observed[o] = one.json;
  }
  const auto& model = step.model;
  const RunSettings& settings = step.settings;
  const std::string& axis = step.axis;
  const std::string& limit_model = step.limit_model;
  const std::string& reference_text = ref.what;
  const std::optional<double>& reference_lift_off = ref.lift_off;
  const std::map<std::string, double>& reference_uncertainty = ref.uncertainty;
  const bool confirmed = stated_count > 0 && all_confirmed;
  if (request.json) {
    nlohmann::ordered_json j;
    j["crbench_version"] = version;
    j["build"] = build_json();
    j["case"] = request.case_name;
    if (ref.constraint) j["constraint"] = model->constraint_name(*ref.constraint);
    j["params"] = model->params();
    j["solver"] = request.solver;
    j["axis"] = axis;
    j["model"] = settings.solver_params;
    for (const auto& [name, value] : settings.solver_choices) j["model"][name] = value;
    j["limit_model"] = limit_model;
    // An h ladder's solver takes no tolerances; an rtol ladder's rung is its rtol, with atol in
    // the request's ratio to it. A solver reference runs at reference_rtol.
    j["tolerances"] = {{"atol_to_rtol", request.atol / request.rtol},
                       {"reference_rtol", tight_rtol(request.rtol, request.tight_factor)}};
    j["reference"] = {{"what", reference_text},
                      {"lift_off_time", optional_number(reference_lift_off)},
                      {"error_estimate", reference_uncertainty}};
    j["observables"] = observed;
    j["confirmed"] = confirmed;
    j["verdict"] =
        confirmed ? Verdict::of(VerdictKind::confirmed, "every observable with a stated order").text
                  : Verdict::of(VerdictKind::not_confirmed, "see the observables' verdicts").text;
    out << j.dump(2) << "\n";
  } else {
    out << request.case_name << " / " << request.solver << ": ladder in " << axis << " ("
        << limit_model << " model); reference: " << reference_text << "\n"
        << text.str() << "\n"
        << (confirmed ? Verdict::of(VerdictKind::confirmed, "every observable with a stated order")
                      : Verdict::of(VerdictKind::not_confirmed,
                                    "not every observable with a stated order is confirmed"))
               .text
        << "\n";
  }
  return confirmed ? 0 : 1;
}

// The request's ladder, its solver and axis checked against each other and its ends, density,
// tight factor and digits against their ranges (InputError naming the flag).
std::vector<double> checked_ladder(const VerifyRequest& request) {
  const LadderAxis axis = request.axis;
  const bool in_N = axis == LadderAxis::N;
  const std::string axis_text = axis_name(axis);
  if (!in_N && request.solver == "realization" && !request.N_fixed) {
    throw InputError("--axis " + axis_text +
                     ": the realization's rtol ladder runs at one N: give --N (an N ladder is "
                     "--axis N)");
  }
  if (in_N && request.solver != "realization") {
    throw InputError("--solver: an N ladder runs the realization against the limit model; " +
                     request.solver + " is verified along --axis h or rtol");
  }
  if (in_N && request.N_fixed) {
    throw InputError("--N: an N ladder sets N itself (--from, --to)");
  }
  // The solver and the axis agree: h is a fixed-step solver's, rtol an adaptive one's.
  const Solver& solver = find_solver(request.solver);
  const std::vector<ParamSpec> parameters = solver.parameters();
  const auto h_spec = std::find_if(parameters.begin(), parameters.end(),
                                   [](const ParamSpec& p) { return p.name == "h"; });
  if (axis == LadderAxis::h && h_spec == parameters.end()) {
    throw InputError("--axis h: solver " + request.solver +
                     " has no step h; an h ladder needs a fixed-step solver (moreau-jean)");
  }
  if (axis == LadderAxis::rtol && !solver.takes_tolerances()) {
    throw InputError("--axis rtol: solver " + request.solver +
                     " takes no rtol; an rtol ladder needs an adaptive solver");
  }
  const double from = request.from.value_or(in_N ? 1e2 : axis == LadderAxis::h ? 1e-2 : 1e-4);
  const double to = request.to.value_or(in_N ? 1e10 : axis == LadderAxis::h ? 1e-5 : 1e-12);
  if (in_N) {
    if (!(from > 0.0)) throw InputError("--from: " + format_number(from) + " must be > 0");
    if (!(to > from) || to > 1e15) {
      throw InputError("--to: " + format_number(to) + " must be in (--from, 1e15]");
    }
  } else {
    const ParamSpec bounds = axis == LadderAxis::h ? *h_spec : kRtolSpec;
    if (!bounds.admits(from)) {
      throw InputError("--from: " + format_number(from) + " must be in " + bounds.range_text() +
                       " (the " + axis_text + " of " + request.solver + ")");
    }
    if (!(to < from) || !bounds.admits(to)) {
      throw InputError("--to: " + format_number(to) + " must be below --from (" +
                       format_number(from) + ") and in " + bounds.range_text());
    }
  }
  if (request.per_decade < 1 || request.per_decade > 10) {
    throw InputError("--per-decade: " + std::to_string(request.per_decade) +
                     " must be a whole number in [1, 10]");
  }
  // The tolerances as a study's tolerances accept them (bench/study.cpp).
  if (!kRtolSpec.admits(request.rtol)) {
    throw InputError("--rtol: " + format_number(request.rtol) + " must be in " +
                     kRtolSpec.range_text());
  }
  if (!kAtolSpec.admits(request.atol)) {
    throw InputError("--atol: " + format_number(request.atol) + " must be in " +
                     kAtolSpec.range_text());
  }
  if (!kTightFactorSpec.admits(request.tight_factor)) {
    throw InputError("--tight-factor: " + format_number(request.tight_factor) + " must be in " +
                     kTightFactorSpec.range_text() + " (as a study's tolerances.tight_factor)");
  }
  require_tight_rtol(request.rtol, request.tight_factor, "--tight-factor",
                     "--rtol / --tight-factor");
  if (request.digits < 1 || request.digits > 15) {
    throw InputError("--digits: " + std::to_string(request.digits) +
                     " must be a whole number in [1, 15]");
  }
  const std::vector<double> ladder = ladder_rungs(axis, from, to, request.per_decade);
  const auto count = static_cast<int>(ladder.size());
  if (count < 3 || count > 100) {
    throw InputError("--from/--to/--per-decade: the ladder has " + std::to_string(count) +
                     " points; it needs between 3 and 100");
  }
  return ladder;
}

// An N ladder: the realization against the limit model's prediction (the lift-off, or the limit
// member's motion where the case has kinematic constraints).
int verify_N_ladder(const VerifyRequest& request, const std::vector<double>& ladder,
                    std::ostream& out) {
  const auto model = make_model(request.case_name, request.case_assignments);
  if (model->kinematic_count() > 0) {
    return verify_kinematic(request, ladder, *model, out);
  }

  // The prediction.
  const std::string o(kLiftOffTime);
  const std::optional<int> constraint = selected_constraint(request, *model);
  const LadderPlan plan = N_plan(request);
  const LadderReference reference = prediction_of(plan, *model, o, constraint, true);
  const RunRecord& prediction = reference.record;
  const TheoremOutcome theorem = prediction.theorem.value_or(TheoremOutcome{});
  const bool theorem_applies = theorem.applies;
  // Theorem 1, or its continuation past zeros of z with lambda > 0 (docs/theory.md section 3);
  // "none" where neither decides, and then the prediction has no lift-off time.
  const PredictionRule rule = theorem.rule;
  const std::optional<double> tau_pred = reference.lift_off;
  // The realization's configuration as `run` makes it: defaults, the case's settings, the user's.
  RunSettings model_settings;
  configure_solver(find_solver("realization"), request.model_assignments, model_settings,
                   &model->info());
  const std::optional<StatedOrder> stated = stated_lift_off_order(
      model_settings.solver_params, model_settings.solver_choices, &prediction, constraint);
  const std::optional<double> expected_order =
      stated ? std::optional<double>(stated->order) : std::nullopt;

  // The realization ladder, each row also at the tight tolerances, judged against the prediction.
  const LadderRun run = run_ladder(plan, ladder, reference, {o});
  const std::vector<LadderInput>& inputs = run.inputs.at(o);
  LadderRules rules;
  rules.digits = request.digits;
  const std::string why = theorem.why;
  const LadderAnalysis analysis =
      judge_rows(o, inputs, reference, expected_order, rules, LadderAxis::N, "", why);
  const Extrapolated& x = analysis.extrapolation;

  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  std::ostringstream table;
  table << std::left << std::setw(10) << "N" << std::setw(24) << "tau_N" << std::setw(14)
        << "tau_N-pred" << std::setw(10) << "order" << std::setw(12) << "disc.err"
        << "flag\n";
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const LadderInput& p = inputs[i];
    const LadderRow& row = analysis.rows[i];
    rows.push_back({{"N", ladder[i]},
                    {"status", p.status},
                    {"tau_N", optional_number(p.value)},
                    {"error_vs_prediction", optional_number(row.error)},
                    {"local_order", optional_number(row.local_order)},
                    {"tau_N_tight", optional_number(p.tight)},
                    {"discretization_error", optional_number(row.discretization)},
                    {"flagged", row.flagged},
                    {"flag", row.flag},
                    {"warnings", p.warnings},
                    {"steps", run.rows[i].record.steps}});
    table << std::setw(10) << N_label(ladder[i]) << std::setw(24) << text_of(row.value)
          << std::setw(14) << text_of(row.error, 4) << std::setw(10) << text_of(row.local_order, 4)
          << std::setw(12) << text_of(row.discretization, 3) << row.flag << "\n";
  }

  Verdict verdict = analysis.verdict;
  if (rule == PredictionRule::none || (!theorem_applies && rule != PredictionRule::continuation)) {
    verdict = Verdict::of(VerdictKind::no_prediction, why);
  }
  const bool confirmed = verdict.confirmed();
  const std::string rule_text = rule == PredictionRule::theorem_1 ? "Theorem 1 applies"
                                : rule == PredictionRule::continuation
                                    ? "continuation past Theorem 1: " + why
                                    : "no prediction: " + why;
  if (request.json) {
    nlohmann::ordered_json j;
    j["crbench_version"] = version;
    j["build"] = build_json();
    j["case"] = request.case_name;
    if (constraint) j["constraint"] = model->constraint_name(*constraint);
    j["params"] = prediction.params;
    j["model"] = prediction.solver_params;
    for (const auto& [name, value] : prediction.solver_choices) j["model"][name] = value;
    j["tolerances"] = {{"rtol", request.rtol},
                       {"atol", request.atol},
                       {"tight_factor", request.tight_factor},
                       {"tight_rtol", tight_rtol(request.rtol, request.tight_factor)},
                       {"tight_atol", tight_atol(request.atol, request.tight_factor)}};
    j["prediction"] = {
        {"lift_off_time", optional_number(tau_pred)},
        {"error_estimate", optional_number(analysis.reference_error)},
        {"status", prediction.status},
        {"theorem_applies", theorem_applies},
        {"prediction_rule", rule},
        {"why", why},
        {"proposition", prediction.diagnostics.value("proposition", std::string(""))}};
    j["points"] = rows;
    j["least_squares_order"] = optional_number(analysis.fitted_order);
    j["expected_order"] = optional_number(expected_order);
    j["order_source"] = stated ? stated->source : "";
    j["extrapolation"] = {{"order_from_differences", optional_number(x.order)},
                          {"order_one_row_coarser", optional_number(x.order_shifted)},
                          {"tau_inf", optional_number(x.limit)},
                          {"uncertainty", optional_number(x.uncertainty)},
                          {"no_uncertainty_reason", x.no_uncertainty_reason},
                          {"finest_N_used", optional_number(x.finest_rung)}};
    j["digits_of_agreement"] = optional_number(analysis.digits_of_agreement);
    j["digits_supported"] = optional_number(analysis.digits_supported);
    j["requested_digits"] = request.digits;
    j["confirmed"] = confirmed;
    j["verdict"] = verdict.text;
    out << j.dump(2) << "\n";
  } else {
    out << request.case_name << ": predicted lift-off" << constraint_words(constraint, *model)
        << " " << text_of(tau_pred) << " (" << rule_text << "; its own error estimate "
        << text_of(analysis.reference_error, 2) << ")\n"
        << "expected order " << (expected_order ? format_number(*expected_order) : "none stated")
        << (stated ? " (" + stated->source + ")" : std::string()) << "\n"
        << table.str() << "least-squares order " << text_of(analysis.fitted_order, 4)
        << "; extrapolated tau_inf = " << text_of(x.limit) << " +/- " << text_of(x.uncertainty, 2)
        << " (order " << text_of(x.order, 4) << " from the differences, without the prediction)\n"
        << verdict.text << "\n";
  }
  return confirmed ? 0 : 1;
}

}  // namespace

int run_verify(const VerifyRequest& request, std::ostream& out) {
  const std::vector<double> ladder = checked_ladder(request);
  if (request.axis != LadderAxis::N) return verify_step_ladder(request, ladder, out);
  return verify_N_ladder(request, ladder, out);
}

}  // namespace crbench
