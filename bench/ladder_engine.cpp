#include "crbench/bench/ladder_engine.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "crbench/bench/observables.hpp"
#include "crbench/cases/registry.hpp"
#include "crbench/solvers/record.hpp"

namespace crbench {

namespace {

// The run reference: the spec's run at the tight tolerances and, with estimate_error, at the
// settings' too, whose difference is its error estimate per observable.
LadderReference run_reference(const ReferenceSpec& spec, const Model& model) {
  const RunRequest at_settings = spec.run;
  RunRequest r = spec.run;
  const double rtol = at_settings.rtol.value_or(kDefaultRtol);
  r.rtol = tight_rtol(rtol, spec.tight_factor);
  r.atol = tight_atol(at_settings.atol.value_or(kDefaultAtol), spec.tight_factor);
  const GridRun run = solve_on_grid(r);
  LadderReference ref;
  ref.kind = spec.kind;
  ref.what = r.solver_name + " at rtol " + format_number(*r.rtol);
  if (spec.estimate_error) {
    ref.what += " (error estimate: its difference from rtol " + format_number(rtol) + ")";
    const GridRun coarse = solve_on_grid(at_settings);
    for (const auto& o : spec.observables) {
      std::optional<double> d;
      if (coarse.record.status != Status::ok) {
        // No estimate: the rows are flagged REFERENCE.
      } else if (observable(o).grid) {
        // The coarse run's deviation from the fine one.
        d = observable(o).measure(
            Observation{coarse, model, run.q, run.v, first_contact_z(run), spec.constraint});
      } else {
        const auto fine = measure(o, run, model, spec.constraint);
        const auto rough = measure(o, coarse, model, spec.constraint);
        if (fine && rough) d = std::abs(*fine - *rough);
        if (!fine && !rough) d = 0.0;
      }
      if (d) ref.uncertainty[o] = *d;
    }
  }
  if (run.record.status != Status::ok) ref.what += ": ended with " + to_string(run.record.status);
  ref.status = run.record.status;
  ref.constraint = spec.constraint;
  ref.lift_off = lift_off_of(run.record, spec.constraint);
  ref.q = run.q;
  ref.v = run.v;
  ref.z = first_contact_z(run);
  for (const auto& o : spec.observables) {
    if (o == kLiftOffTime || observable(o).judged == ObservableClass::tends_to_zero) continue;
    if (const auto x = measure(o, run, model, spec.constraint);
        x && run.record.status == Status::ok) {
      ref.values[o] = *x;
    }
  }
  ref.tolerances = tolerance_text(run.record.tolerances);
  const TheoremOutcome theorem = run.record.theorem.value_or(TheoremOutcome{});
  ref.theorem_applies = theorem.applies;
  ref.prediction_rule = theorem.rule;
  ref.why = theorem.why;
  ref.record = run.record;
  return ref;
}

// What the closed form lacks (the lift-off, the motion: each on its own) from the completing
// run, with that run's error estimate; where the run fails, the part stays absent
// and its rows are flagged REFERENCE.
void complete_by_run(const ReferenceSpec& spec, const Model& model, LadderReference& ref) {
  ReferenceSpec by_run = spec;
  by_run.run = *spec.completing_run;
  by_run.kind = by_run.run.solver_name;
  const LadderReference run = run_reference(by_run, model);
  ref.what += (ref.what.empty() ? "" : "; otherwise ") + run.what;
  const bool lacks_lift_off = !ref.lift_off, lacks_motion = ref.q.empty();
  for (const auto& o : spec.observables) {
    const bool lacking =
        o == kLiftOffTime ? lacks_lift_off : observable(o).grid.has_value() && lacks_motion;
    if (!lacking) continue;
    const auto u = run.uncertainty.find(o);
    if (run.status == Status::ok && u != run.uncertainty.end()) {
      ref.uncertainty[o] = u->second;
    } else {
      ref.uncertainty.erase(o);
    }
  }
  if (run.status != Status::ok) return;
  if (lacks_lift_off) ref.lift_off = run.lift_off;
  if (lacks_motion) {
    ref.q = run.q;
    ref.v = run.v;
  }
}

// The case's facts for the spec's limit model: the lift-off and the motion on the grid, exact.
LadderReference closed_form_reference(const ReferenceSpec& spec, const Model& model) {
  const Facts facts = model.facts();
  LadderReference ref;
  ref.kind = spec.kind;
  ref.constraint = spec.constraint;
  ref.lift_off = facts.lift_off_time(
      spec.limit_model, spec.constraint ? model.constraint_name(*spec.constraint) : std::string());
  ref.tolerances = "closed form";
  for (const auto& o : spec.observables) ref.uncertainty[o] = 0.0;
  // The ideal model never goes below f = 0; its impact velocities and energy are not among the
  // case's facts.
  ref.values[std::string(kPenetrationDepth)] = 0.0;
  if (const auto* exact = facts.trajectory(spec.limit_model)) {
    const double t0 = model.initial_state().t, t1 = spec.run.t_end.value_or(model.horizon());
    ref.q = sample_motion(*exact, t0, t1, spec.run.samples);
  }
  std::string parts;
  if (ref.lift_off) parts = "lift-off";
  if (!ref.q.empty()) parts += parts.empty() ? "motion" : " and motion";
  if (!parts.empty()) {
    ref.what = "the closed form of the " + spec.limit_model + " model (" + parts + ")";
  }
  if (spec.completing_run && (!ref.lift_off || ref.q.empty())) {
    complete_by_run(spec, model, ref);
  }
  return ref;
}

}  // namespace

RunRequest rung_request(const LadderPlan& plan, std::optional<double> rung) {
  RunRequest r = plan.base;
  if (!rung) return r;
  switch (plan.axis) {
    case LadderAxis::N:
      r.solver_assignments.push_back({"N", format_number(*rung)});
      break;
    case LadderAxis::h:
      r.solver_assignments.push_back({"h", format_number(*rung)});
      break;
    case LadderAxis::parameter:
      (plan.parameter_on_case ? r.case_assignments : r.solver_assignments)
          .push_back({plan.parameter, format_number(*rung)});
      break;
    case LadderAxis::rtol:
      // atol keeps the settings' ratio to rtol.
      r.rtol = *rung;
      r.atol = atol_for_rtol(*rung, plan.rtol, plan.atol);
      break;
  }
  return r;
}

bool has_tight_twins(LadderAxis axis) {
  return axis == LadderAxis::N || axis == LadderAxis::parameter;
}

RunRequest tight_twin(const LadderPlan& plan, const RunRequest& row) {
  RunRequest tight = row;
  tight.rtol = tight_rtol(plan.rtol, plan.tight_factor);
  tight.atol = tight_atol(plan.atol, plan.tight_factor);
  if (plan.fixed_step) {
    std::erase_if(tight.solver_assignments, [](const Assignment& a) { return a.key == "h"; });
    tight.solver_assignments.push_back({"h", format_number(0.5 * *plan.fixed_step)});
  }
  return tight;
}

double grid_time(double t0, double t1, int i, int samples) {
  return i + 1 == samples ? t1 : t0 + (t1 - t0) * i / (samples - 1);
}

std::vector<Eigen::VectorXd> sample_motion(const ClosedFormTrajectory& motion, double t0, double t1,
                                           int samples) {
  std::vector<Eigen::VectorXd> q;
  for (int i = 0; i < samples; ++i) {
    const auto qi = motion.q(grid_time(t0, t1, i, samples), std::nan(""));
    if (!qi) return {};
    q.push_back(*qi);
  }
  return q;
}

std::string digest(const LadderReference& r, LadderAxis axis) {
  std::ostringstream s;
  s.precision(17);
  s << r.kind << "|" << r.status << "|" << (r.lift_off ? *r.lift_off : NAN) << "|"
    << r.theorem_applies << "|" << r.prediction_rule << "|" << r.why << "|" << r.tolerances;
  for (const auto* rows : {&r.q, &r.v}) {
    s << "|";
    for (const auto& x : *rows) {
      for (Eigen::Index i = 0; i < x.size(); ++i) s << x(i) << ",";
    }
  }
  s << "|";
  for (const double z : r.z) s << z << ",";
  s << "|";
  for (const auto& [name, value] : r.values) s << name << "=" << value << ",";
  s << "|";
  // Rows with a tight twin do not read the reference's error estimate (only their verdict does).
  if (!has_tight_twins(axis)) {
    for (const auto& [name, value] : r.uncertainty) s << name << "=" << value << ",";
  }
  // Only where one is named, so that a whole-system reference keeps its digest.
  if (r.constraint) s << "|constraint " << *r.constraint;
  return s.str();
}

LadderReference make_reference(const ReferenceSpec& spec, const Model& model) {
  if (spec.kind == "closed-form") return closed_form_reference(spec, model);
  if (spec.kind != "value") return run_reference(spec, model);
  // Numbers the theory gives (`source` says which): no run, no error of their own.
  LadderReference ref;
  ref.kind = spec.kind;
  ref.constraint = spec.constraint;
  ref.tolerances = "exact: " + spec.source;
  ref.what = spec.source;
  for (const auto& [o, value] : spec.values) {
    if (o == kLiftOffTime) {
      ref.lift_off = value;
    } else {
      ref.values[o] = value;
    }
    ref.uncertainty[o] = 0.0;
  }
  return ref;
}

std::optional<double> observe_one(const std::string& o, const GridRun& run, const Model& model,
                                  const LadderReference& reference) {
  return observable(o).measure(
      Observation{run, model, reference.q, reference.v, reference.z, reference.constraint});
}

std::optional<double> reference_value(const std::string& o, const LadderReference& reference) {
  if (o == kLiftOffTime) return reference.lift_off;
  const ObservableSpec& spec = observable(o);
  if (spec.judged == ObservableClass::tends_to_zero) return 0.0;
  if (const auto v = reference.values.find(o); v != reference.values.end()) return v->second;
  return std::nullopt;
}

std::optional<double> row_reference_uncertainty(LadderAxis axis, const std::string& o,
                                                const LadderReference& reference) {
  if (axis != LadderAxis::h && axis != LadderAxis::rtol) return std::nullopt;
  const auto u = reference.uncertainty.find(o);
  return u != reference.uncertainty.end() ? u->second : std::numeric_limits<double>::infinity();
}

LadderInput ladder_input(const std::string& o, LadderAxis axis, RowMeasurement row,
                         const LadderReference& reference) {
  LadderInput in;
  in.rung = row.rung;
  in.status = row.status;
  in.reason = std::move(row.reason);
  in.value = row.value;
  if (row.tight_status == Status::ok) in.tight = row.tight;
  in.warnings = std::move(row.warnings);
  in.reference_uncertainty = row_reference_uncertainty(axis, o, reference);
  return in;
}

LadderInput ladder_input(const std::string& o, LadderAxis axis, std::optional<double> rung,
                         const GridRun& row, const GridRun* tight, const Model& model,
                         const LadderReference& reference) {
  RowMeasurement m{.rung = rung,
                   .status = row.record.status,
                   .reason = row.record.reason,
                   .warnings = row.record.warnings,
                   .value = observe_one(o, row, model, reference)};
  if (tight) {
    m.tight_status = tight->record.status;
    if (*m.tight_status == Status::ok) m.tight = observe_one(o, *tight, model, reference);
  }
  return ladder_input(o, axis, std::move(m), reference);
}

LadderAnalysis judge_rows(const std::string& o, const std::vector<LadderInput>& inputs,
                          const LadderReference& reference, std::optional<double> expected_order,
                          const LadderRules& rules, LadderAxis axis, const std::string& parameter,
                          const std::string& no_reference_why, std::optional<double> fixed_N) {
  const std::optional<double> value = reference_value(o, reference);
  // A limit of 0 is approached, not extrapolated: the verdict rests on the order (and the
  // coefficients), as for a deviation.
  const bool extrapolate =
      observable(o).judged == ObservableClass::limit_value && !(value && *value == 0.0);
  // An h or rtol ladder's rows carry the reference's error already (its discretization estimate).
  std::optional<double> reference_error;
  if (const auto it = reference.uncertainty.find(o);
      it != reference.uncertainty.end() && has_tight_twins(axis)) {
    reference_error = it->second;
  }
  return analyse_ladder(inputs, value, expected_order, extrapolate, rules, no_reference_why, axis,
                        parameter, reference_error, fixed_N);
}

LadderRun run_ladder(const LadderPlan& plan, const std::vector<double>& rungs,
                     const LadderReference& reference,
                     const std::vector<std::string>& observables) {
  LadderRun out;
  std::vector<std::optional<double>> each(rungs.begin(), rungs.end());
  if (each.empty()) each.push_back(std::nullopt);
  // The case changes from row to row only on a ladder in one of its parameters.
  const bool rung_on_case = plan.axis == LadderAxis::parameter && plan.parameter_on_case;
  std::unique_ptr<Model> model =
      rung_on_case ? nullptr : make_model(plan.base.case_name, plan.base.case_assignments);
  for (const auto& rung : each) {
    const RunRequest r = rung_request(plan, rung);
    out.rows.push_back(solve_on_grid(r));
    out.tight.push_back(has_tight_twins(plan.axis)
                            ? std::optional<GridRun>(solve_on_grid(tight_twin(plan, r)))
                            : std::nullopt);
    if (rung_on_case) model = make_model(r.case_name, r.case_assignments);
    const GridRun* tight = out.tight.back() ? &*out.tight.back() : nullptr;
    for (const auto& o : observables) {
      out.inputs[o].push_back(
          ladder_input(o, plan.axis, rung, out.rows.back(), tight, *model, reference));
    }
  }
  return out;
}

}  // namespace crbench
