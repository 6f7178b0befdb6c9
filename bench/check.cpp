#include "crbench/bench/check.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "crbench/bench/finite_difference.hpp"
#include "crbench/bench/number_text.hpp"
#include "crbench/bench/points.hpp"
#include "crbench/cases/registry.hpp"
#include "crbench/solvers/dynamics.hpp"
#include "crbench/solvers/model_parameters.hpp"
#include "crbench/solvers/solver.hpp"

namespace crbench {
namespace {

using ojson = nlohmann::ordered_json;

// The states the derivatives are compared at: the initial state moved by up to ±0.3 in each
// coordinate, velocity and time (deterministic offsets, the same at every run).
constexpr int kDerivativeStates = 5;
State state_near(const State& x0, int trial) {
  State x = x0;
  const auto offset = [trial](int i, int which) {
    return 0.3 * std::sin(1.0 + 2.3 * trial + 0.7 * i + 1.9 * which);
  };
  for (Eigen::Index i = 0; i < x.q.size(); ++i) {
    x.q(i) += offset(static_cast<int>(i), 0);
    x.v(i) += offset(static_cast<int>(i), 1) + 0.5;
  }
  x.t += 0.5 + offset(0, 2);
  return x;
}

double relative_difference(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return (a - b).lpNorm<Eigen::Infinity>() / std::max(1.0, b.lpNorm<Eigen::Infinity>());
}

}  // namespace

std::vector<std::pair<std::string, double>> derivative_differences(const Model& model,
                                                                   const State& x, Modes modes) {
  const int n = model.dof();
  Point p;
  model.evaluate(x, modes, p);
  const auto shifted = [&](int i, double h) {
    Eigen::VectorXd q = x.q;
    q(i) += h;
    return q;
  };
  Eigen::VectorXd grad_V(n), half_grad_kinetic(n);
  Eigen::MatrixXd J(model.constraint_count(), n);
  for (int i = 0; i < n; ++i) {
    grad_V(i) = derivative([&](double h) {
      return Eigen::VectorXd::Constant(1, model.potential(x.t, shifted(i, h)));
    })(0);
    J.col(i) = derivative([&](double h) { return model.constraint_values(x.t, shifted(i, h)); });
    half_grad_kinetic(i) =
        0.5 * derivative([&](double h) {
          return Eigen::VectorXd::Constant(1, x.v.dot(model.metric(shifted(i, h)) * x.v));
        })(0);
  }
  const Eigen::VectorXd f_t =
      derivative([&](double h) { return model.constraint_values(x.t + h, x.q); });
  // c = Ȧ q̇ − ½ ∂(q̇ᵀA q̇)/∂q, Ȧ q̇ = d/ds A(q + s q̇) q̇; d = d²/ds² f(q + s q̇, t + s).
  const Eigen::VectorXd A_dot_v =
      derivative([&](double h) { return Eigen::VectorXd(model.metric(x.q + h * x.v) * x.v); });
  const Eigen::VectorXd d =
      second_derivative([&](double h) { return model.constraint_values(x.t + h, x.q + h * x.v); });
  Eigen::MatrixXd dF_dq, dF_dv;
  model.force_jacobians(x, modes, dF_dq, dF_dv);
  Eigen::MatrixXd fd_dq(n, n), fd_dv(n, n);
  for (int j = 0; j < n; ++j) {
    const auto free_force_at = [&](double h, bool in_q) {
      State y = x;
      (in_q ? y.q : y.v)(j) += h;
      Point py;
      model.evaluate(y, modes, py);
      return py.free_force();
    };
    fd_dq.col(j) = derivative([&](double h) { return free_force_at(h, true); });
    fd_dv.col(j) = derivative([&](double h) { return free_force_at(h, false); });
  }
  return {{"dV/dq", relative_difference(p.grad_V, grad_V)},
          {"df/dq", relative_difference(p.J, J)},
          {"df/dt", relative_difference(p.f_t, f_t)},
          {"c (Coriolis)", relative_difference(p.c, A_dot_v - half_grad_kinetic)},
          {"d (f'' - J q'')", relative_difference(p.d, d)},
          {"dF/dq", relative_difference(dF_dq, fd_dq)},
          {"dF/dq'", relative_difference(dF_dv, fd_dv)}};
}

double dual_difference(const Model& model, const State& x, Modes modes) {
  PointT<Dual> dual;
  model.evaluate_dual(x, modes, dual);
  const auto values = point_entries(dual);
  const int n = model.dof();
  double worst = 0.0;
  for (int j = 0; j <= 2 * n; ++j) {
    const Eigen::VectorXd fd = derivative([&](double h) {
      State y = x;
      if (j < n)
        y.q(j) += h;
      else if (j < 2 * n)
        y.v(j - n) += h;
      else
        y.t += h;
      Point p;
      model.evaluate(y, modes, p);
      return Eigen::VectorXd(point_entries(p));
    });
    Eigen::VectorXd ad(values.size());
    for (Eigen::Index i = 0; i < values.size(); ++i) ad(i) = values(i).derivatives()(j);
    worst = std::max(worst, relative_difference(ad, fd));
  }
  return worst;
}

namespace {

void check_derivatives(const Model& model, CheckReport& report) {
  std::vector<std::pair<std::string, double>> worst;
  double dual = 0.0;
  bool dual_available = true;
  for (int trial = 0; trial < kDerivativeStates; ++trial) {
    const State x = state_near(model.initial_state(), trial);
    const std::vector<int> modes(static_cast<std::size_t>(model.switch_count()),
                                 trial % 2 ? 1 : -1);
    const auto differences = derivative_differences(model, x, modes);
    if (worst.empty()) worst = differences;
    for (std::size_t i = 0; i < worst.size(); ++i) {
      // NaN (a non-finite derivative) must fail, hence not std::max.
      if (!(differences[i].second <= worst[i].second)) worst[i].second = differences[i].second;
    }
    if (!dual_available) continue;
    try {
      const double d = dual_difference(model, x, modes);
      if (!(d <= dual)) dual = d;
    } catch (const std::runtime_error& e) {
      dual_available = false;
      report.derivatives_note = std::string("dual evaluation: ") + e.what();
    }
  }
  if (dual_available) worst.emplace_back("dual (q, q', t)", dual);
  for (const auto& [name, error] : worst) {
    report.derivatives.push_back({name, error, error <= kCheckDerivativeBound});
  }
  if (model.kinematic_count() > 0) {
    report.derivatives_note += std::string(report.derivatives_note.empty() ? "" : "; ") +
                               "the kinematic rows' rate terms and curl are not checked here";
  }
}

// What an ideal model at rtol 1e-12 with events located to 1e-14 must reproduce (as the fact
// tests of the registered cases).
constexpr double kLiftOffBound = 1e-9;
constexpr double kTrajectoryBound = 1e-8;
constexpr int kReferenceSamples = 501;

void add_lift_off_fact(const LiftOffFact& fact, const RunRecord& record, const Model& model,
                       CheckReport& report) {
  FactCheck c;
  c.what = fact.constraint.empty() ? "lift-off" : "lift-off of " + fact.constraint;
  c.source = fact.source;
  c.fact = fact.time;
  c.bound = kLiftOffBound;
  c.run = fact.constraint.empty()
              ? record.lift_off_time
              : lift_off_of(record, model.constraint_index(fact.constraint, "fact"));
  c.difference = c.run ? std::abs(*c.run - fact.time) : std::numeric_limits<double>::infinity();
  c.ok = record.status == Status::ok && c.difference <= c.bound;
  report.facts.push_back(c);
}

// The metric's extreme eigenvalues over the states of a path, one sample at a time.
void add_metric_sample(const Model& model, const State& x, MetricCheck& metric) {
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(model.metric(x.q),
                                                             Eigen::EigenvaluesOnly);
  const double low = eigen.eigenvalues().minCoeff(), high = eigen.eigenvalues().maxCoeff();
  ++metric.states;
  if (!(low >= metric.smallest_eigenvalue)) {
    metric.smallest_eigenvalue = low;
    metric.smallest_at = x.t;
  }
  if (!(high / low <= metric.largest_condition)) {
    metric.largest_condition = high / low;
    metric.condition_at = x.t;
  }
}

// The solver's run at its defaults (and the case's settings), reporting on kReferenceSamples
// times over the horizon; nullopt with `why` where the solver refuses the case.
std::optional<RunRecord> reference_run(const Model& model, const std::string& name,
                                       const std::function<void(const TrajectorySample&)>& sample,
                                       std::string& why) {
  const Solver& solver = find_solver(name);
  RunSettings settings;
  settings.t_end = model.horizon();
  configure_solver(solver, {}, settings, &model.info());
  if (const auto refused = solver.refusal(model, settings)) {
    why = *refused;
    return std::nullopt;
  }
  const double t0 = model.initial_state().t;
  for (int i = 0; i < kReferenceSamples; ++i) {
    settings.output_times.push_back(t0 + (settings.t_end - t0) * i / (kReferenceSamples - 1));
  }
  settings.on_sample = sample;
  return solver.run(model, settings);
}

void list_unchecked_facts(const Facts& facts, bool classical_checked, CheckReport& report) {
  for (const LiftOffFact& fact : facts.lift_off) {
    if (fact.model == "classical" && classical_checked) continue;
    report.facts_not_checked.push_back(
        "lift-off" + (fact.constraint.empty() ? std::string() : " of " + fact.constraint) +
        " in the " + fact.model + " model" +
        (fact.model == "classical" ? "" : " (crbench verify sets it against the realization)"));
  }
  for (const auto& t : facts.trajectories) {
    if (t.model == "classical" && classical_checked) continue;
    report.facts_not_checked.push_back("trajectory of the " + t.model + " model");
  }
  for (const auto& v : facts.values) report.facts_not_checked.push_back("value: " + v.name);
}

// The event-driven run at its defaults: the classical facts, and the metric along its path (along
// the realization's where event-driven refuses the case, e.g. initial data off a bilateral
// constraint).
void check_reference(const Model& model, CheckReport& report) {
  const Facts facts = model.facts();
  const ClosedFormTrajectory* exact = facts.trajectory("classical");
  FactCheck trajectory{
      .what = "trajectory", .source = exact ? exact->source : "", .bound = kTrajectoryBound};
  long compared = 0;
  MetricCheck& metric = report.metric;
  metric.smallest_eigenvalue = std::numeric_limits<double>::infinity();
  const auto sample = [&](const TrajectorySample& s) {
    add_metric_sample(model, s.x, metric);
    if (!exact || !s.label.empty()) return;
    if (const auto q = exact->q(s.x.t, std::numeric_limits<double>::quiet_NaN())) {
      const double d = (s.x.q - *q).lpNorm<Eigen::Infinity>();
      if (!(d <= trajectory.difference)) trajectory.difference = d;
      ++compared;
    }
  };
  std::string why;
  metric.path = "event-driven";
  auto record = reference_run(model, "event-driven", sample, why);
  if (!record) {
    report.reference_status = "refused: " + why;
    report.reference_ok = true;  // nothing of the classical model to hold the case to
    list_unchecked_facts(facts, false, report);
    metric.path = "realization";
    exact = nullptr;
    std::string realization_why;
    record = reference_run(model, "realization", sample, realization_why);
  } else {
    // Painleve's paradox and the dynamic jam end the classical model where its contact problem
    // has no solution: a property of the motion at these parameters, not a defect of the case.
    const bool unsolvable =
        record->status == Status::painleve_paradox || record->status == Status::dynamic_jam;
    report.reference_ok = record->status == Status::ok || unsolvable;
    report.reference_status = to_string(record->status);
    if (record->status != Status::ok) report.reference_status += ": " + record->reason;
    if (unsolvable) {
      report.reference_status += " (at t = " + format_number(record->final_state.t) +
                                 "; the classical model has no solution there, which is not a "
                                 "defect of the case)";
    }
    for (const LiftOffFact& fact : facts.lift_off) {
      if (fact.model == "classical") add_lift_off_fact(fact, *record, model, report);
    }
    if (exact && compared > 0) {
      trajectory.ok = report.reference_ok && trajectory.difference <= trajectory.bound;
      report.facts.push_back(trajectory);
    } else if (exact) {
      report.facts_not_checked.push_back("classical trajectory (it holds nowhere on the run)");
    }
    list_unchecked_facts(facts, true, report);
  }
  // A classical path that ended at its start shows nothing of the metric: the realization's.
  if (metric.states == 0 && metric.path == "event-driven") {
    metric.path = "realization";
    exact = nullptr;
    std::string realization_why;
    reference_run(model, "realization", sample, realization_why);
  }
  metric.ok = metric.states > 0 && metric.smallest_eigenvalue > 0.0 &&
              std::isfinite(metric.largest_condition);
}

// The noise of f's evaluation at (t, q), per constraint (Moré & Wild, SIAM J. Sci. Comput. 33
// (2011) 1292, "Estimating computational noise"): along each coordinate, 17 values at steps of
// 2^-26 times the coordinate's binary order (a power of 2, so that the shifted coordinates are
// exact), whose fourth differences, free of the smooth part to O(step⁴), have the variance
// C(8, 4) σ² = 70 σ² of a noise σ; the largest σ over the coordinates.
Eigen::VectorXd evaluation_noise(const Model& model, double t, const Eigen::VectorXd& q) {
  constexpr int kValues = 17;
  const int m = model.constraint_count();
  Eigen::VectorXd noise = Eigen::VectorXd::Zero(m);
  for (Eigen::Index i = 0; i < q.size(); ++i) {
    const double step = std::ldexp(1.0, std::ilogb(std::max(std::abs(q(i)), 1.0)) - 26);
    Eigen::MatrixXd values(m, kValues);
    for (int j = 0; j < kValues; ++j) {
      Eigen::VectorXd y = q;
      y(i) += j * step;
      values.col(j) = model.constraint_values(t, y);
    }
    for (int k = 0; k < m; ++k) {
      double sum = 0.0;
      for (int j = 0; j + 4 < kValues; ++j) {
        const double d4 = values(k, j) - 4.0 * values(k, j + 1) + 6.0 * values(k, j + 2) -
                          4.0 * values(k, j + 3) + values(k, j + 4);
        sum += d4 * d4;
      }
      noise(k) = std::max(noise(k), std::sqrt(sum / (kValues - 4) / 70.0));
    }
  }
  return noise;
}

void check_floors(const Model& model, const std::vector<Assignment>& assignments,
                  CheckReport& report) {
  const Solver& realization = find_solver("realization");
  RunSettings settings;
  settings.t_end = model.horizon();
  configure_solver(realization, assignments, settings, &model.info());
  const ParamValues& p = settings.solver_params;
  const double alpha = p.at("alpha"), beta = p.at("beta"), gamma = p.at("gamma");
  report.N = p.at("N");
  report.medium = "alpha = " + full_text(alpha) + ", beta = " + full_text(beta) +
                  ", gamma = " + full_text(gamma);
  const std::vector<ContactLaw> laws = contact_laws(model, settings, "realization");
  const State x = model.initial_state();
  Point point;
  model.evaluate(x, model.modes_at(x), point);
  const Eigen::VectorXd noise = evaluation_noise(model, x.t, x.q);
  std::vector<int> unilateral;
  for (int k = 0; k < model.constraint_count(); ++k) {
    if (!model.is_bilateral(k)) unilateral.push_back(k);
  }
  // A realization that refuses the case has no depth to estimate; the floors of f stand.
  if (const auto part = unsupported_part(realization, model.info())) {
    report.realization_refusal = "it does not compute " + *part;
  } else if (const auto refused = realization.refusal(model, settings)) {
    report.realization_refusal = *refused;
  }
  const auto terms =
      report.realization_refusal.empty()
          ? depth_terms(point, x, unilateral, alpha, beta, gamma, laws, settings.t_end - x.t)
          : std::vector<std::vector<DepthTerm>>(static_cast<std::size_t>(model.constraint_count()));
  for (const int k : unilateral) {
    FloorCheck c;
    c.constraint = model.constraint_name(k);
    c.f = point.f(k);
    c.round_off = constraint_round_off(point, x, k);
    c.noise = noise(k);
    c.floor = std::max(c.round_off, c.noise);
    c.touching = touches(point, x, k);
    c.terms = terms[static_cast<std::size_t>(k)];
    if (!c.terms.empty()) {
      c.depth = depth_at(c.terms, report.N);
      c.largest_N = largest_N_above(c.terms, kDepthResolution * c.floor);
    }
    report.floors.push_back(c);
  }
}

std::string short_text(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", x);
  return buffer;
}

std::string text(double x) {
  if (std::isinf(x)) return x > 0 ? "unbounded" : "-inf";
  return std::isnan(x) ? "-" : scientific_text(x, 3);
}

}  // namespace

bool CheckReport::passed() const {
  const auto ok = [](const auto& c) { return c.ok; };
  return std::all_of(derivatives.begin(), derivatives.end(), ok) &&
         std::all_of(facts.begin(), facts.end(), ok) && metric.ok && reference_ok;
}

CheckReport check_model(const Model& model,
                        const std::vector<Assignment>& realization_assignments) {
  CheckReport report;
  report.case_name = model.info().name;
  check_derivatives(model, report);
  check_reference(model, report);
  check_floors(model, realization_assignments, report);
  return report;
}

ojson to_json(const CheckReport& r) {
  ojson j;
  j["case"] = r.case_name;
  j["passed"] = r.passed();
  ojson derivatives = ojson::array();
  for (const auto& d : r.derivatives) {
    derivatives.push_back(
        {{"quantity", d.quantity}, {"relative_difference", number_or_null(d.error)}, {"ok", d.ok}});
  }
  j["derivatives"] = {
      {"states", kDerivativeStates}, {"bound", kCheckDerivativeBound}, {"quantities", derivatives}};
  if (!r.derivatives_note.empty()) j["derivatives"]["not_checked"] = r.derivatives_note;
  ojson facts = ojson::array();
  for (const auto& f : r.facts) {
    facts.push_back({{"what", f.what},
                     {"fact", number_or_null(f.fact)},
                     {"event_driven", number_or_null(f.run)},
                     {"difference", number_or_null(f.difference)},
                     {"bound", f.bound},
                     {"ok", f.ok},
                     {"source", f.source}});
  }
  j["facts"] = {{"reference", "event-driven, rtol 1e-12, atol 1e-14"},
                {"status", r.reference_status},
                {"checked", facts},
                {"not_checked", r.facts_not_checked}};
  j["metric"] = {{"path", r.metric.path},
                 {"states", r.metric.states},
                 {"smallest_eigenvalue", number_or_null(r.metric.smallest_eigenvalue)},
                 {"at_t", r.metric.smallest_at},
                 {"largest_condition", number_or_null(r.metric.largest_condition)},
                 {"condition_at_t", r.metric.condition_at},
                 {"ok", r.metric.ok}};
  ojson floors = ojson::array();
  for (const auto& c : r.floors) {
    ojson terms = ojson::array();
    for (const auto& t : c.terms) {
      terms.push_back({{"cause", t.cause}, {"coefficient", t.coefficient}, {"power", t.power}});
    }
    floors.push_back({{"constraint", c.constraint},
                      {"f", c.f},
                      {"round_off", c.round_off},
                      {"evaluation_noise", c.noise},
                      {"floor", c.floor},
                      {"touching", c.touching},
                      {"depth_terms", terms},
                      {"depth_at_N", c.terms.empty() ? ojson() : ojson(c.depth)},
                      {"largest_N", c.terms.empty() ? ojson() : number_or_null(c.largest_N)}});
  }
  j["round_off_floors"] = {{"N", r.N},
                           {"medium", r.medium},
                           {"resolution", kDepthResolution},
                           {"realization_refusal", r.realization_refusal},
                           {"constraints", floors}};
  return j;
}

void print_check(const CheckReport& r, std::ostream& out) {
  const auto verdict = [](bool ok) { return ok ? "ok" : "FAILED"; };
  out << "crbench check --case " << r.case_name << "\n\nDerivatives: AD against central "
      << "differences (Richardson), " << kDerivativeStates
      << " states near the initial one, relative to max(1, |value|), bound "
      << text(kCheckDerivativeBound) << "\n";
  for (const auto& d : r.derivatives) {
    out << "  " << d.quantity << ": " << text(d.error) << "  " << verdict(d.ok) << "\n";
  }
  if (!r.derivatives_note.empty()) out << "  not checked: " << r.derivatives_note << "\n";
  out << "\nFacts of the classical model against event-driven (rtol 1e-12, atol 1e-14): run "
      << r.reference_status << "\n";
  for (const auto& f : r.facts) {
    out << "  " << f.what << ": ";
    if (f.fact) {
      out << "fact " << full_text(*f.fact) << ", run "
          << (f.run ? full_text(*f.run) : std::string("none")) << ", ";
    }
    out << "difference " << text(f.difference) << ", bound " << text(f.bound) << "  "
        << verdict(f.ok) << "\n";
  }
  if (r.facts.empty()) out << "  none stated\n";
  for (const auto& s : r.facts_not_checked) out << "  not checked: " << s << "\n";
  out << "\nMetric along " << r.metric.path << "'s path (" << r.metric.states
      << " states): smallest eigenvalue " << text(r.metric.smallest_eigenvalue)
      << " at t = " << short_text(r.metric.smallest_at) << ", largest condition "
      << text(r.metric.largest_condition) << " at t = " << short_text(r.metric.condition_at) << "  "
      << (r.metric.ok ? "positive definite" : "FAILED: not positive definite") << "\n";
  out << "\nRound-off floors at the initial state, the larger of eps(|df/dq||q| + |df/dt||t| + "
         "|f|) and the measured noise of f; the depth in the medium "
      << r.medium << " at N = " << short_text(r.N)
      << ", estimated from each constraint's approach or load; the largest N whose depth stays "
      << short_text(kDepthResolution) << " times above the floor:\n";
  if (r.floors.empty()) out << "  no unilateral constraint\n";
  if (!r.realization_refusal.empty()) {
    out << "  the realization refuses this case, so no depth is estimated: "
        << r.realization_refusal << "\n";
  }
  for (const auto& c : r.floors) {
    out << "  " << c.constraint << ": f = " << text(c.f) << ", floor " << text(c.floor)
        << " (estimate " << text(c.round_off) << ", noise " << text(c.noise) << "); ";
    if (!r.realization_refusal.empty()) {
      out << "no depth estimate\n";
    } else if (!c.touching) {
      out << "does not touch at the start: no depth estimate\n";
    } else if (c.terms.empty()) {
      out << "touches without approach or load at the start: no depth estimate\n";
    } else if (!(c.floor > 0.0)) {
      out << "depth " << text(c.depth) << ", no floor (f is exact here): any N\n";
    } else {
      out << "depth " << text(c.depth) << ", largest N " << text(c.largest_N)
          << (c.largest_N < r.N ? "  (below this N: its depth is not resolved)" : "") << "\n";
    }
  }
  out << "\n" << (r.passed() ? "PASSED" : "FAILED") << "\n";
}

int run_check(const CheckRequest& request, std::ostream& out) {
  const auto model = make_model(request.case_name, request.case_assignments);
  const CheckReport report = check_model(*model, request.realization_assignments);
  if (request.json) {
    out << to_json(report).dump(2) << "\n";
  } else {
    print_check(report, out);
  }
  return report.passed() ? 0 : 1;
}

}  // namespace crbench
