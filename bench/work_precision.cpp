#include "crbench/bench/work_precision.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

#include "crbench/bench/ladder.hpp"
#include "crbench/bench/ladder_engine.hpp"
#include "crbench/bench/number_text.hpp"
#include "crbench/bench/observables.hpp"
#include "crbench/bench/points.hpp"
#include "crbench/bench/run_support.hpp"
#include "crbench/cases/registry.hpp"
#include "crbench/solvers/solver.hpp"
#include "crbench/version.hpp"

namespace crbench {
namespace {

using ojson = nlohmann::ordered_json;

// The ladders: an adaptive solver from rtol 1e-3 to 1e-12 (atol = rtol / 100), a fixed-step one
// from h 1e-2 to 1e-5, a rung left out when it would take more than kMaxSteps steps.
constexpr double kRtolCoarse = 1e-3, kRtolFine = 1e-12, kAtolRatio = 100.0;
constexpr double kHCoarse = 1e-2;
constexpr double kMaxSteps = 2e6;
// The reference: event-driven at the tolerances kEstimateRtol, kEstimateAtol divided by
// kReferenceFactor (rtol 1e-14, atol 1e-16); its error estimate is its difference from the same
// run at 1e-12, 1e-14.
constexpr double kEstimateRtol = 1e-12, kEstimateAtol = 1e-14, kReferenceFactor = 100.0;
// The costs (right-hand-side evaluations) at which the digits table reads each curve.
constexpr double kBudgets[] = {1e3, 1e4, 1e5};
// Wall time: the minimum over the options' repeats, fewer for a solve that takes longer than
// kLongSolve seconds (its noise is a smaller part of it).
constexpr double kLongSolve = 0.2;

// A cell of the tables: blank for a solve without a number.
std::string sci(double x, int digits = 3) {
  return std::isfinite(x) ? scientific_text(x, digits) : std::string();
}

struct Ladder {
  std::string solver;
  LadderAxis axis = LadderAxis::rtol;
  std::vector<double> rungs;
};

struct CaseSetup {
  std::string name;
  int samples = 1001;
  std::string reference;            // what the errors are measured against
  std::vector<Eigen::VectorXd> q;   // the reference on the grid
  double reference_estimate = 0.0;  // its own error estimate (0 for a closed form)
  double scale = 1.0;               // max(1, max |q_ref|): the digits are relative to it
  std::vector<Ladder> ladders;
};

struct WorkPoint {
  std::size_t case_index = 0;
  std::size_t ladder_index = 0;
  double rung = 0.0;
  // Results.
  Status status = Status::ok;
  std::string reason;
  double error = std::nan("");
  long steps = 0;
  long rhs_evaluations = 0;
  double wall_time = std::nan("");
  std::string flag;
};

// The grid of a case: a whole multiple of the coarsest h, so that a fixed-step solver ends a step
// on every grid time (step_ladder_samples), at most 1001 points.
int grid_samples(const Model& model) {
  return step_ladder_samples(LadderAxis::h, kHCoarse, model.horizon() - model.initial_state().t,
                             1001);
}

// The reference of a case, or a reason why it has none.
std::optional<std::string> set_reference(const Model& model, CaseSetup& setup) {
  const double t0 = model.initial_state().t, t1 = model.horizon();
  const Facts facts = model.facts();
  if (const auto* exact = facts.trajectory("classical")) {
    std::vector<Eigen::VectorXd> q = sample_motion(*exact, t0, t1, setup.samples);
    if (!q.empty()) {
      setup.q = std::move(q);
      setup.reference = "the closed form of the classical motion (" + exact->source + ")";
      return std::nullopt;
    }
  }
  ReferenceSpec spec;
  spec.kind = "event-driven";
  spec.run.case_name = setup.name;
  spec.run.solver_name = "event-driven";
  spec.run.rtol = kEstimateRtol;
  spec.run.atol = kEstimateAtol;
  spec.run.samples = setup.samples;
  spec.tight_factor = kReferenceFactor;
  spec.estimate_error = true;
  spec.observables = {std::string(kMaxQDeviation)};
  const LadderReference fine = make_reference(spec, model);
  const auto estimate = fine.uncertainty.find(std::string(kMaxQDeviation));
  if (fine.status != Status::ok || estimate == fine.uncertainty.end()) {
    return "event-driven at rtol 1e-14 ended with " + to_string(fine.status) + " (" +
           fine.record.reason + ")";
  }
  setup.q = fine.q;
  setup.reference_estimate = estimate->second;
  setup.reference = "event-driven at rtol 1e-14, atol 1e-16 (error estimate " +
                    sci(setup.reference_estimate, 2) + ": its distance from rtol 1e-12)";
  return std::nullopt;
}

void solve_point(const std::vector<CaseSetup>& cases, int repeats, WorkPoint& p) {
  const CaseSetup& c = cases[p.case_index];
  const Ladder& ladder = c.ladders[p.ladder_index];
  RunRequest r;
  r.case_name = c.name;
  r.solver_name = ladder.solver;
  r.samples = c.samples;
  if (ladder.axis == LadderAxis::h) {
    r.solver_assignments.push_back({"h", format_number(p.rung)});
  } else {
    r.rtol = p.rung;
    r.atol = twelve_digits(p.rung / kAtolRatio);
  }
  GridRun run;
  double wall = INFINITY;
  for (int k = 0; k < std::max(1, repeats); ++k) {
    GridRun again = solve_on_grid(r);
    wall = std::min(wall, again.record.wall_time_s);
    if (k == 0) run = std::move(again);
    if (wall > kLongSolve) break;
  }
  p.status = run.record.status;
  p.reason = run.record.reason;
  p.steps = run.record.steps;
  p.rhs_evaluations = run.record.rhs_evaluations;
  p.wall_time = wall;
  if (p.status != Status::ok) {
    p.flag = to_string(p.status);
    return;
  }
  p.error = q_deviation(run.q, c.q, false).value_or(std::nan(""));
  if (!run.record.warnings.empty()) {
    p.flag = "SOLVER WARNING";
  } else if (!std::isfinite(p.error)) {
    p.flag = "no value";
  } else if (is_round_off(p.error, c.scale)) {
    p.flag = "ROUND-OFF";
  } else if (!(c.reference_estimate < 0.01 * p.error)) {
    p.flag = "REFERENCE";
  }
}

// log10 of the error at `budget` right-hand-side evaluations, interpolated linearly in
// log–log between the trusted points around it; nullopt outside their range.
std::optional<double> log_error_at(std::vector<const WorkPoint*> trusted, double budget) {
  std::sort(trusted.begin(), trusted.end(), [](const WorkPoint* a, const WorkPoint* b) {
    return a->rhs_evaluations < b->rhs_evaluations;
  });
  const double x = std::log10(budget);
  for (std::size_t i = 0; i + 1 < trusted.size(); ++i) {
    const double x0 = std::log10(static_cast<double>(trusted[i]->rhs_evaluations));
    const double x1 = std::log10(static_cast<double>(trusted[i + 1]->rhs_evaluations));
    if (x < x0 || x > x1 || x1 == x0) continue;
    const double y0 = std::log10(trusted[i]->error), y1 = std::log10(trusted[i + 1]->error);
    return y0 + (y1 - y0) * (x - x0) / (x1 - x0);
  }
  if (trusted.size() == 1 && static_cast<double>(trusted.front()->rhs_evaluations) == budget) {
    return std::log10(trusted.front()->error);
  }
  return std::nullopt;
}

// The ladder of one solver on one case, if the solver approximates the classical model, computes
// the case's kinds of constraint and accepts its data: an adaptive one down rtol, a fixed-step
// one down h. The media and their limit models (a solver with N or a model preset: the
// realization, the limit) are measured in N by the studies; here, the solvers of the classical
// model.
std::optional<Ladder> classical_ladder(const Solver& s, const CaseInfo& info, const Model& model,
                                       const WorkPrecisionOptions& options) {
  if (unsupported_part(s, info)) return std::nullopt;
  const auto parameters = s.parameters();
  const auto choices = s.choices();
  if (std::any_of(parameters.begin(), parameters.end(),
                  [](const ParamSpec& p) { return p.name == "N"; }) ||
      std::any_of(choices.begin(), choices.end(),
                  [](const ChoiceSpec& c) { return c.name == "preset"; })) {
    return std::nullopt;
  }
  RunSettings defaults;
  configure_solver(s, {}, defaults, &model.info());
  if (s.limit_model(defaults.solver_params, defaults.solver_choices) != "classical")
    return std::nullopt;
  if (s.refusal(model, defaults)) return std::nullopt;
  const bool has_h = std::any_of(parameters.begin(), parameters.end(),
                                 [](const ParamSpec& p) { return p.name == "h"; });
  Ladder ladder{.solver = s.name()};
  if (s.takes_tolerances()) {
    ladder.axis = LadderAxis::rtol;
    ladder.rungs = ladder_rungs(LadderAxis::rtol, kRtolCoarse, kRtolFine, 1);
  } else if (has_h) {
    ladder.axis = LadderAxis::h;
    const double duration = model.horizon() - model.initial_state().t;
    const double fine = s.name().starts_with("siconos-")
                            ? std::max(options.h_fine, options.h_fine_siconos)
                            : options.h_fine;
    for (const double h : ladder_rungs(LadderAxis::h, kHCoarse, fine, 1)) {
      if (duration / h <= kMaxSteps) ladder.rungs.push_back(h);
    }
  } else {
    return std::nullopt;
  }
  return ladder;
}

// Every case with a classical reference, with its solvers' ladders; the others, with why, into
// left_out.
std::vector<CaseSetup> work_precision_cases(
    const WorkPrecisionOptions& options,
    std::vector<std::pair<std::string, std::string>>& left_out) {
  std::vector<CaseSetup> cases;
  for (const auto& entry : case_registry()) {
    const auto model = make_model(entry.info.name, {});
    CaseSetup setup;
    setup.name = entry.info.name;
    setup.samples = grid_samples(*model);
    for (const auto& s : solver_registry()) {
      if (auto ladder = classical_ladder(*s, entry.info, *model, options)) {
        setup.ladders.push_back(std::move(*ladder));
      }
    }
    const bool has_ideal = std::any_of(setup.ladders.begin(), setup.ladders.end(),
                                       [](const Ladder& l) { return l.solver == "event-driven"; });
    if (!has_ideal) {
      left_out.emplace_back(setup.name,
                            "event-driven does not run its data (no classical reference)");
      continue;
    }
    if (const auto why = set_reference(*model, setup)) {
      left_out.emplace_back(setup.name, *why);
      continue;
    }
    for (const auto& q : setup.q) setup.scale = std::max(setup.scale, q.lpNorm<Eigen::Infinity>());
    cases.push_back(std::move(setup));
  }

  return cases;
}

// Every point of every ladder, solved on options.jobs threads.
std::vector<WorkPoint> solve_points(std::vector<CaseSetup>& cases,
                                    const WorkPrecisionOptions& options) {
  std::vector<WorkPoint> points;
  for (std::size_t c = 0; c < cases.size(); ++c) {
    for (std::size_t l = 0; l < cases[c].ladders.size(); ++l) {
      for (const double rung : cases[c].ladders[l].rungs) {
        points.push_back({.case_index = c, .ladder_index = l, .rung = rung});
      }
    }
  }
  // Each point into its own slot: the deterministic outputs do not depend on the thread count.
  std::atomic<std::size_t> next{0};
  const auto work = [&]() {
    for (std::size_t i = next++; i < points.size(); i = next++)
      solve_point(cases, options.timing_repeats, points[i]);
  };
  std::vector<std::thread> threads;
  for (int k = 1; k < std::max(1, options.jobs); ++k) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
  return points;
}

// What the overview's numbers mean.
ojson work_precision_rules(const WorkPrecisionOptions& options) {
  return {
      {"rtol_ladder", "rtol 1e-3 ... 1e-12, atol = rtol / 100"},
      {"h_ladder", "h 1e-2 ... " + N_label(options.h_fine) + " (the Siconos solvers to " +
                       N_label(std::max(options.h_fine, options.h_fine_siconos)) +
                       "; a rung of more than 2e6 steps left out)"},
      {"flags",
       "REFERENCE: the reference's error estimate is not below 1% of the error; ROUND-OFF: the "
       "error is within 100 ulps of the case's scale max(1, max |q|); a failed solve or one with "
       "a warning; flagged points are left out of the digits table"},
      {"digits",
       "-log10(error / scale) read off each solver's trusted points at a fixed number of "
       "right-hand-side evaluations, interpolated linearly in log-log between the two around it; "
       "blank outside their range"},
      {"wall_time", "in work_precision.csv and work_precision.md only (not deterministic)"}};
}

// One case's entry of the overview, its rows of the CSV, the timed table and the digits table;
// its points start at `index` (advanced past them).
ojson case_rows(const CaseSetup& setup, const std::vector<WorkPoint>& points, std::size_t& index,
                std::ostringstream& csv, Table& timed, Table& digits) {
  ojson jc;
  jc["case"] = setup.name;
  jc["reference"] = setup.reference;
  jc["reference_error_estimate"] = setup.reference_estimate;
  jc["scale"] = setup.scale;
  jc["grid_samples"] = setup.samples;
  jc["solvers"] = ojson::array();
  for (std::size_t l = 0; l < setup.ladders.size(); ++l) {
    const Ladder& ladder = setup.ladders[l];
    ojson js;
    js["solver"] = ladder.solver;
    js["axis"] = axis_name(ladder.axis);
    js["points"] = ojson::array();
    std::vector<const WorkPoint*> trusted;
    for (std::size_t k = 0; k < ladder.rungs.size(); ++k, ++index) {
      const WorkPoint& p = points[index];
      js["points"].push_back({{axis_name(ladder.axis), p.rung},
                              {"status", p.status},
                              {"error", number_or_null(p.error)},
                              {"flag", p.flag},
                              {"steps", p.steps},
                              {"rhs_evaluations", p.rhs_evaluations}});
      if (p.flag.empty() && p.error > 0.0) trusted.push_back(&p);
      csv << setup.name << "," << ladder.solver << "," << axis_name(ladder.axis) << ","
          << format_number(p.rung) << "," << p.status << "," << sci(p.error, 17) << "," << p.flag
          << "," << p.steps << "," << p.rhs_evaluations << "," << sci(p.wall_time, 6) << "\n";
      timed.rows.push_back({setup.name, ladder.solver, rung_label(ladder.axis, p.rung),
                            sci(p.error), p.flag, std::to_string(p.steps),
                            std::to_string(p.rhs_evaluations), sci(p.wall_time)});
    }
    std::vector<std::string> row{setup.name, ladder.solver,
                                 axis_name(ladder.axis) + " " + N_label(ladder.rungs.front()) +
                                     " ... " + N_label(ladder.rungs.back())};
    ojson at = ojson::object();
    for (const double b : kBudgets) {
      const auto e = log_error_at(trusted, b);
      const std::optional<double> d =
          e ? std::optional<double>(-(*e - std::log10(setup.scale))) : std::nullopt;
      row.push_back(d ? fixed_text(*d, 1) : "");
      at[N_label(b)] = d ? ojson(*d) : ojson();
    }
    // The most accurate trusted point: what a solver reaches before the reference's error or
    // round-off hides its error (event-driven against its own tight run often does so below
    // 1e3 evaluations, which leaves the fixed-cost columns blank).
    const WorkPoint* best = nullptr;
    for (const WorkPoint* p : trusted) {
      if (!best || p->error < best->error) best = p;
    }
    row.push_back(best ? fixed_text(-std::log10(best->error / setup.scale), 1) + " (" +
                             std::to_string(best->rhs_evaluations) + ")"
                       : "");
    js["most_digits"] = best ? ojson(-std::log10(best->error / setup.scale)) : ojson();
    js["digits_at_rhs_evaluations"] = at;
    digits.rows.push_back(row);
    jc["solvers"].push_back(js);
  }
  return jc;
}

// The folder's README: the method, the figure and the digits table.
std::string work_precision_readme(
    const WorkPrecisionOptions& options, const std::string& figures, const Table& digits,
    const std::vector<std::pair<std::string, std::string>>& left_out) {
  std::ostringstream readme;
  readme << "# Work–precision\n\n"
         << "Every case with a classical limit (event-driven runs its data) through every solver "
            "that approximates the classical model: an adaptive one down rtol 1e-3 … 1e-12 (atol "
            "= rtol/100), a fixed-step one down h 1e-2 … "
         << N_label(options.h_fine) << " (the Siconos kernel's down to "
         << N_label(std::max(options.h_fine, options.h_fine_siconos))
         << ": its solves run one at a time)"
         << ". Every error is on one axis: the "
            "largest sup-norm distance of q from the case's reference over its output grid (a "
            "whole multiple of h = 1e-2, at most 1001 points), the reference being the closed "
            "form of the classical motion where the case has it over the whole horizon, else "
            "event-driven at rtol 1e-14, whose own error estimate (its distance from rtol 1e-12) "
            "flags the points it cannot resolve (REFERENCE). Cost: steps and right-hand-side "
            "evaluations (deterministic, `work_precision_overview.json`) and wall time (the "
            "minimum over up to 3 solves; `work_precision.csv`, `work_precision.md`).\n\n";
  if (figures.empty()) {
    readme << "![Error against wall time, one panel per case](overview.png)\n\n"
           << "*Error against wall time, one panel per case (hollow: flagged points).*\n\n";
  } else {
    readme << "**" << figures << ".**\n\n";
  }
  readme << "### " << digits.title << "\n\n"
         << digits.caption << "\n\n"
         << markdown(digits) << "\n";
  if (!left_out.empty()) {
    readme << "Left out:\n\n";
    for (const auto& [name, why] : left_out) readme << "- " << name << ": " << why << "\n";
  }
  return readme.str();
}

}  // namespace

WorkPrecisionOverview write_work_precision(const std::filesystem::path& dir,
                                           const WorkPrecisionOptions& options,
                                           std::ostream& progress) {
  std::filesystem::create_directories(dir);
  std::vector<std::pair<std::string, std::string>> left_out;  // case, why
  std::vector<CaseSetup> cases = work_precision_cases(options, left_out);
  const std::vector<WorkPoint> points = solve_points(cases, options);
  progress << "work-precision: " << points.size() << " solves over " << cases.size() << " cases in "
           << dir.string() << "\n";

  // The deterministic record, the timed table and the digits at fixed cost.
  ojson j;
  j["crbench_version"] = version;
  j["build"] = build_json();
  j["observable"] =
      "max_q_deviation: the largest sup-norm distance of q from the reference over the case's "
      "output grid";
  j["rules"] = work_precision_rules(options);
  j["cases"] = ojson::array();
  std::ostringstream csv;
  csv << "case,solver,axis,rung,status,error,flag,steps,rhs_evaluations,wall_time_s\n";
  Table timed;
  timed.title = "work-precision: every point";
  timed.caption =
      "Error: the largest sup-norm distance of q from the reference over the grid. Wall time: "
      "the minimum over up to 3 solves on this machine (not deterministic).";
  timed.header = {"case",  "solver",          "rung",         "error", "flag",
                  "steps", "rhs evaluations", "wall time [s]"};
  Table digits;
  digits.title = "work-precision: significant correct digits at fixed cost";
  digits.caption =
      "-log10(max |q - q_ref| / max(1, max |q_ref|)) at a fixed number of right-hand-side "
      "evaluations, interpolated in log-log between the trusted points of each solver's ladder; "
      "blank where its trusted points do not reach that cost on both sides (event-driven is "
      "exact on piecewise-polynomial motions, ROUND-OFF, and elsewhere reaches the accuracy of "
      "its own tight run, REFERENCE, within a few hundred evaluations). Last column: the most "
      "accurate trusted point and its right-hand-side evaluations.";
  digits.header = {"case", "solver", "ladder"};
  for (const double b : kBudgets) digits.header.push_back("digits at " + N_label(b) + " rhs");
  digits.header.push_back("most digits of a trusted point (its rhs)");
  std::size_t index = 0;
  for (const CaseSetup& setup : cases) {
    j["cases"].push_back(case_rows(setup, points, index, csv, timed, digits));
  }
  j["left_out"] = ojson::array();
  for (const auto& [name, why] : left_out) j["left_out"].push_back({{"case", name}, {"why", why}});
  {
    std::ostringstream text;
    text << j.dump(2) << "\n";
    write_file(dir / "work_precision_overview.json", text.str());
  }
  write_file(dir / "work_precision.csv", csv.str());
  write_table(dir / "digits", digits);
  {
    std::ostringstream text;
    text << "### " << timed.title << "\n\n" << timed.caption << "\n\n" << markdown(timed);
    write_file(dir / "work_precision.md", text.str());
  }
  const auto readme = [dir, options, digits, left_out](const std::string& figures) {
    write_file(dir / "README.md", work_precision_readme(options, figures, digits, left_out));
  };
  if (options.figures && options.figure_queue) {
    options.figure_queue->submit(dir, readme);
  } else {
    readme(options.figures ? run_figures(dir) : "figures not drawn");
  }
  WorkPrecisionOverview out;
  out.cases = static_cast<int>(cases.size());
  out.points = static_cast<int>(points.size());
  out.markdown = markdown(digits);
  return out;
}

}  // namespace crbench
