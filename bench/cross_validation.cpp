#include "crbench/bench/cross_validation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>

#include "crbench/bench/number_text.hpp"
#include "crbench/bench/run_support.hpp"
#include "crbench/cases/params.hpp"
#include "crbench/cases/registry.hpp"
#include "crbench/solvers/solver.hpp"

namespace crbench {

namespace {

using ojson = nlohmann::ordered_json;
constexpr double kInfinity = std::numeric_limits<double>::infinity();

// A crbench solver and the Siconos kernel's solver of the same model, and how close they must come
// where nothing separates them: the event-driven pair within its tolerances (rtol 1e-12, events
// located to 1e-14: 1e-9 relative), the Moreau–Jean pair to round-off (the same θ-scheme, LCP and
// Newton law; docs/internals.md has the measured distance).
struct Pair {
  const char* crbench;
  const char* siconos;
  double bound;  // relative to max(1, |lift-off|) and max(1, |q|, |v|)
};
constexpr Pair kPairs[] = {{"event-driven", "siconos-event-driven", 1e-9},
                           {"moreau-jean", "siconos-moreau-jean", 1e-12}};

// Where the two codes differ by construction: the case, the Siconos solver of the pair, the bounds
// the measured differences must stay under (absolute; infinity: not compared) and why.
struct Explanation {
  const char* case_name;
  const char* siconos;
  double lift_off_bound;
  double state_bound;
  bool events_may_differ;
  const char* why;
};
constexpr Explanation kExplanations[] = {
    {"bouncing-ball-siconos", "siconos-event-driven", kInfinity, 1e-9, true,
     "the impacts accumulate at t = 8.5789491 (e = 0.9) and the two codes end the accumulation by "
     "different rules: event-driven ends it plastically at an arrival below contact_velocity_tol "
     "1e-8, the Siconos kernel stops watching the gap once |f| and |f'| are within its "
     "contact_tol 1e-10; the first 100 impacts agree to 1.9e-11 (tests/test_siconos.cpp), then 190 "
     "and 180 events, both at rest at the end"},
    {"particle-on-circle", "siconos-moreau-jean", 2e-3, 1e-2, false,
     "a metric that depends on q (A = diag(1, r^2)): moreau-jean solves each step with "
     "W = A - h theta dF/dq' - h^2 theta^2 dF/dq linearized once at the step's start, the Siconos "
     "kernel iterates Newton on the step with the mass and forces of the iterate; two first-order "
     "schemes that part by O(h): 1.5e-3 at h = 1e-3, 3.4e-4 at h = 1e-4, both lifting off within a "
     "step of the classical 1.16774"},
    {"pendulum-string", "siconos-moreau-jean", 2e-3, 1e-2, false,
     "a metric that depends on q (A = diag(1, r^2)), as particle-on-circle: the linearized step "
     "against the kernel's Newton loop, O(h) apart; both lift off within a step of 1.60775"},
    {"oscillator-at-wall", "siconos-moreau-jean", 2e-3, 1e-6, false,
     "a metric that depends on q (a(q) = m (1 + c q)): the linearized step against the kernel's "
     "Newton loop; the impact times agree, the states part by 2e-8"},
    {"body-with-channel", "siconos-moreau-jean", 2e-3, 1e-3, false,
     "a metric that depends on q (A(s) through (xi0 - s)^2): the linearized step against the "
     "kernel's Newton loop, O(h) apart: the states part by 1.7e-4 at h = 1e-3 and 1.7e-5 at "
     "h = 1e-4, the impact times agree"},
    {"plane-reparametrized", "siconos-moreau-jean", 2e-3, 1e-6, false,
     "a constraint gradient that depends on q (f = y (1 + kappa (x - x_c)^2)): moreau-jean takes "
     "grad f and its activation f + h f'/2 <= 0 at the step's start, the kernel its relation's "
     "Jacobian at the Newton iterate: the lift-off one step apart (0.999 and 1.000), the states "
     "8e-9"},
    {"falling-ladder", "siconos-moreau-jean", 2e-3, 1e-2, true,
     "a metric that depends on q (through the angle): the linearized step against the kernel's "
     "Newton loop, O(h) apart: the states part by 2.2e-3 at h = 1e-3 and 1.3e-4 at h = 1e-4; both "
     "start touching both walls at f = f' = 0 and open and close the contacts in the first steps "
     "by round-off differently (9 and 11 events), and both release the wall at 0.459"},
    {"painleve-rod", "siconos-moreau-jean", 2e-3, 1e-3, true,
     "Newton's e = 1 (the default) on the rod's sliding end, whose gap is curved in q: each step "
     "drifts it open by O(h^2) and both codes chatter, with impacts at other steps (the "
     "linearized step against the kernel's Newton loop; 35 events each at h = 1e-3, 262 and 335 "
     "at h = 1e-4): the states part by 2.3e-4 at h = 1e-3 and 7.0e-4 at h = 1e-4, the last "
     "lift-off 0.099 for both at h = 1e-3"},
    {"ball-chain", "siconos-moreau-jean", kInfinity, 1e-12, true,
     "balls 1-4 leave the impact at t = 0.001 together and touching (f = 0, f' = 0 to round-off): "
     "at t = 2.502 a round-off penetration of f3 gets an impulse of round-off size from the "
     "kernel's LCP (Lemke) and none from moreau-jean's, so Siconos records one more impact and "
     "its last episode (the lift-off) ends at 2.502 instead of 0.001; the states agree to 9e-16"},
};

const Solver* solver_named(const std::string& name) {
  for (const auto& s : solver_registry()) {
    if (s->name() == name) return s.get();
  }
  return nullptr;
}

ojson lift_off_json(const std::optional<double>& t) { return t ? ojson(*t) : ojson(nullptr); }

struct Run {
  std::optional<RunRecord> record;
  std::string not_run;  // why, when the solver does not take the model
};

Run run_solver(const Solver& solver, const Model& model) {
  Run run;
  if (const auto why = unsupported_part(solver, model.info())) {
    run.not_run = *why;
    return run;
  }
  RunSettings settings;
  configure_solver(solver, {}, settings, &model.info());
  settings.t_end = model.horizon();
  if (const auto why = solver.refusal(model, settings)) {
    run.not_run = *why;
    return run;
  }
  try {
    run.record = solver.run(model, settings);
  } catch (const InputError& e) {
    run.not_run = e.what();
  }
  return run;
}

ojson run_json(const RunRecord& r) {
  ojson j;
  j["status"] = r.status;
  if (r.status != Status::ok) j["reason"] = r.reason;
  j["lift_off_time"] = lift_off_json(r.lift_off_time);
  j["events"] = r.events.size();
  j["steps"] = r.steps;
  j["rhs_evaluations"] = r.rhs_evaluations;
  j["tolerances"] = tolerance_text(r.tolerances);
  j["final_q"] =
      std::vector<double>(r.final_state.q.data(), r.final_state.q.data() + r.final_state.q.size());
  j["final_v"] =
      std::vector<double>(r.final_state.v.data(), r.final_state.v.data() + r.final_state.v.size());
  return j;
}

}  // namespace

std::vector<CrossValidationSubject> registered_subjects() {
  std::vector<CrossValidationSubject> subjects;
  for (const auto& entry : case_registry()) {
    const std::string name = entry.info.name;
    subjects.push_back({name, [name] { return make_model(name, {}); }});
  }
  return subjects;
}

ojson cross_validate(const std::vector<CrossValidationSubject>& subjects, std::ostream& progress) {
  ojson out;
  out["rules"] = {
      {"pairs",
       "event-driven / siconos-event-driven at rtol 1e-12, atol 1e-14; moreau-jean / "
       "siconos-moreau-jean at the same h, theta and restitution (the settings a user gets without "
       "flags, the case's own included)"},
      {"differences",
       "lift_off: |t_crbench - t_siconos| (kLiftOffDefinition; null when neither lifts off, "
       "infinite when one does and the other does not); state: max over i of |q_i| and |v_i| "
       "differences at the horizon"},
      {"agree",
       "both ok, the same number of events, lift_off <= bound max(1, |t|) and state <= bound "
       "max(1, |q|, |v|), bound 1e-9 for the event-driven pair (its tolerances) and 1e-12 for "
       "the Moreau-Jean pair (round-off: the same scheme)"},
      {"differ, explained",
       "not agree, for a reason of construction stated in `why`, with the differences under the "
       "explanation's own bounds"},
      {"DISAGREE", "neither: a difference no reason accounts for"}};
  out["cases"] = ojson::array();
  for (const auto& subject : subjects) {
    const std::unique_ptr<Model> model = subject.make();
    for (const Pair& pair : kPairs) {
      ojson row;
      row["case"] = subject.name;
      row["crbench_solver"] = pair.crbench;
      row["siconos_solver"] = pair.siconos;
      const Solver* ours = solver_named(pair.crbench);
      const Solver* theirs = solver_named(pair.siconos);
      if (theirs == nullptr) {
        row["verdict"] = "not run";
        row["why"] = std::string(pair.siconos) +
                     " is not built (the Siconos kernel was not found: CRBENCH_SICONOS off)";
        out["cases"].push_back(row);
        continue;
      }
      const Run a = run_solver(*ours, *model);
      const Run b = run_solver(*theirs, *model);
      if (!a.record || !b.record) {
        row["verdict"] = "not run";
        row["why"] = !a.record ? std::string(pair.crbench) + " does not take it: " + a.not_run
                               : std::string(pair.siconos) + " does not take it: " + b.not_run;
        out["cases"].push_back(row);
        continue;
      }
      const RunRecord& ra = *a.record;
      const RunRecord& rb = *b.record;
      row["crbench"] = run_json(ra);
      row["siconos"] = run_json(rb);
      progress << "cross-validation: " << subject.name << " / " << pair.crbench << " and "
               << pair.siconos << ": " << ra.status << ", " << rb.status << "\n";
      if (ra.status != Status::ok || rb.status != Status::ok) {
        row["verdict"] = "failed";
        row["why"] = ra.status != Status::ok ? std::string(pair.crbench) + ": " + ra.reason
                                             : std::string(pair.siconos) + ": " + rb.reason;
        out["cases"].push_back(row);
        continue;
      }
      std::optional<double> lift_off_difference;
      double lift_scale = 1.0;
      if (ra.lift_off_time && rb.lift_off_time) {
        lift_off_difference = std::abs(*ra.lift_off_time - *rb.lift_off_time);
        lift_scale = std::max(1.0, std::abs(*ra.lift_off_time));
      } else if (ra.lift_off_time.has_value() != rb.lift_off_time.has_value()) {
        lift_off_difference = kInfinity;
      }
      const State& xa = ra.final_state;
      const State& xb = rb.final_state;
      const double state_difference = std::max((xa.q - xb.q).lpNorm<Eigen::Infinity>(),
                                               (xa.v - xb.v).lpNorm<Eigen::Infinity>());
      const double state_scale =
          std::max({1.0, xa.q.lpNorm<Eigen::Infinity>(), xa.v.lpNorm<Eigen::Infinity>()});
      const bool same_events = ra.events.size() == rb.events.size();
      row["lift_off_difference"] = !lift_off_difference ? ojson(nullptr)
                                   : std::isinf(*lift_off_difference)
                                       ? ojson("one lifts off, the other does not")
                                       : ojson(*lift_off_difference);
      row["state_difference"] = state_difference;
      row["bound"] = {{"lift_off", pair.bound * lift_scale}, {"state", pair.bound * state_scale}};
      const bool agree =
          same_events &&
          (!lift_off_difference || *lift_off_difference <= pair.bound * lift_scale) &&
          state_difference <= pair.bound * state_scale;
      if (agree) {
        row["verdict"] = "agree";
      } else {
        const Explanation* explanation = nullptr;
        for (const Explanation& e : kExplanations) {
          if (subject.name == e.case_name && std::string(pair.siconos) == e.siconos) {
            explanation = &e;
          }
        }
        const bool explained =
            explanation != nullptr && (same_events || explanation->events_may_differ) &&
            (!lift_off_difference || *lift_off_difference <= explanation->lift_off_bound) &&
            state_difference <= explanation->state_bound;
        row["verdict"] = explained ? "differ, explained" : "DISAGREE";
        if (explanation != nullptr) {
          row["explanation_bound"] = {
              {"lift_off", std::isinf(explanation->lift_off_bound)
                               ? ojson("not compared")
                               : ojson(explanation->lift_off_bound)},
              {"state", explanation->state_bound},
              {"events", explanation->events_may_differ ? "may differ" : "the same"}};
          row["why"] = explanation->why;
        } else {
          row["why"] = "no reason of construction is known for this difference";
        }
      }
      out["cases"].push_back(row);
    }
  }
  return out;
}

CrossValidationSummary write_cross_validation(const std::filesystem::path& dir,
                                              const std::vector<CrossValidationSubject>& subjects,
                                              std::ostream& progress) {
  std::filesystem::create_directories(dir);
  const ojson j = cross_validate(subjects, progress);
  write_file(dir / "cross_validation.json", j.dump(2) + "\n");
  CrossValidationSummary summary;
  std::ostringstream table, reasons, not_run;
  table << "| case | crbench | Siconos | verdict | lift-off (crbench, Siconos) | lift-off "
           "difference | final-state difference | events | tolerances |\n"
        << "|---|---|---|---|---|---|---|---|---|\n";
  const auto time_text = [](const ojson& t) {
    return t.is_number() ? full_text(t.get<double>()) : std::string("none");
  };
  for (const auto& row : j["cases"]) {
    const std::string verdict = row["verdict"].get<std::string>();
    const std::string name = row["case"].get<std::string>();
    if (verdict == "not run") {
      not_run << "- " << name << ", " << row["crbench_solver"].get<std::string>() << " / "
              << row["siconos_solver"].get<std::string>() << ": " << row["why"].get<std::string>()
              << "\n";
      continue;
    }
    ++summary.pairs;
    if (verdict == "agree") ++summary.agree;
    if (verdict == "differ, explained") ++summary.explained;
    if (verdict == "DISAGREE" || verdict == "failed") ++summary.disagree;
    const auto& a = row["crbench"];
    const auto& b = row["siconos"];
    const auto& d = row.contains("lift_off_difference") ? row["lift_off_difference"] : ojson();
    table << "| " << name << " | " << row["crbench_solver"].get<std::string>() << " | "
          << row["siconos_solver"].get<std::string>() << " | " << verdict << " | "
          << time_text(a["lift_off_time"]) << ", " << time_text(b["lift_off_time"]) << " | "
          << (d.is_number() ? scientific_text(d.get<double>(), 2)
                            : (d.is_string() ? d.get<std::string>() : std::string("-")))
          << " | "
          << (row.contains("state_difference")
                  ? scientific_text(row["state_difference"].get<double>(), 2)
                  : std::string("-"))
          << " | " << a["events"].get<long>() << ", " << b["events"].get<long>() << " | "
          << a["tolerances"].get<std::string>() << "; " << b["tolerances"].get<std::string>()
          << " |\n";
    if (row.contains("why")) {
      reasons << "- **" << name << "**, " << row["crbench_solver"].get<std::string>() << " / "
              << row["siconos_solver"].get<std::string>() << " (" << verdict
              << "): " << row["why"].get<std::string>() << "\n";
    }
  }
  summary.markdown = table.str();
  std::ostringstream readme;
  readme << "# Cross-validation: crbench beside the Siconos kernel\n\n"
         << "Every case through two pairs of codes for the same model: crbench's `event-driven` "
            "and `siconos-event-driven` (the kernel's EventDriven with DLSODAR), both at rtol "
            "1e-12, atol 1e-14; crbench's `moreau-jean` and `siconos-moreau-jean` (the kernel's "
            "MoreauJeanOSI in TimeStepping) at the same h, theta and restitution. Each with the "
            "settings a user gets without flags (the case's own included). The differences are "
            "those of the lift-off time (the end of the last contact episode) and of the state "
            "at the horizon (max over q and v). A pair agrees when both runs are ok, have the "
            "same number of events and differ by at most 1e-9 (event-driven: their tolerances) "
            "or 1e-12 (Moreau-Jean: the same scheme, round-off) relative to max(1, |t|) and "
            "max(1, |q|, |v|); where the two codes differ by construction the reason is below, "
            "with the bound its difference must stay under; anything else is DISAGREE. "
            "`cross_validation.json` holds every number.\n\n"
         << summary.pairs << " case × pair runs: " << summary.agree << " agree, "
         << summary.explained << " differ for a stated reason, " << summary.disagree
         << " disagree or failed.\n\n"
         << table.str() << "\n";
  if (!reasons.str().empty()) readme << "## Where and why they differ\n\n" << reasons.str() << "\n";
  if (!not_run.str().empty()) {
    readme << "## Not run\n\nThe Siconos solvers take holonomic constraints (the event-driven "
              "one only unilateral ones that do not depend on time), moreau-jean no bilateral "
              "ones; a pair runs where both of its solvers take the case:\n\n"
           << not_run.str();
  }
  write_file(dir / "README.md", readme.str());
  return summary;
}

}  // namespace crbench
