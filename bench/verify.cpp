#include "crbench/bench/verify.hpp"

#include <cmath>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

#include "crbench/bench/convergence.hpp"
#include "crbench/bench/ladder.hpp"
#include "crbench/bench/run_support.hpp"
#include "crbench/cases/registry.hpp"
#include "crbench/solvers/model_parameters.hpp"
#include "crbench/solvers/solver.hpp"
#include "crbench/version.hpp"

namespace crbench {
namespace {

struct LadderPoint {
  double N = 0.0;
  std::string status;
  std::string reason;
  std::optional<double> tau;
  std::optional<double> tau_tight;  // the same point at tolerances / tight_factor
  std::vector<std::string> warnings;
  long steps = 0;
};

nlohmann::ordered_json optional_number(const std::optional<double>& x) {
  return x && std::isfinite(*x) ? nlohmann::ordered_json(*x) : nlohmann::ordered_json();
}

std::string text(const std::optional<double>& x, int precision = 16) {
  if (!x || !std::isfinite(*x)) return "-";
  std::ostringstream s;
  s.precision(precision);
  s << *x;
  return s.str();
}

// A run of the verified model: `solver` (limit or realization) with the request's case and model,
// at N when given, at the request's tolerances or, with `tight`, at tolerances / tight_factor.
RunRequest model_request(const VerifyRequest& request, const std::string& solver,
                         std::optional<double> N, bool tight) {
  RunRequest r;
  r.case_name = request.case_name;
  r.solver_name = solver;
  r.case_assignments = request.case_assignments;
  r.solver_assignments = request.model_assignments;
  if (N) r.solver_assignments.push_back({"N", format_number(*N)});
  r.rtol = tight ? tight_rtol(request.rtol, request.tight_factor) : request.rtol;
  r.atol = tight ? tight_atol(request.atol, request.tight_factor) : request.atol;
  return r;
}

// Kinematic constraints have no lift-off: the prediction is the limit member's motion, and the
// ladder's max_q_deviation from it must fall at the theory's order 1 (Kozlov 1992 (6)–(7)).
int verify_kinematic(const VerifyRequest& request, const std::vector<double>& ladder,
                     std::ostream& out) {
  constexpr int kSamples = 601;
  const auto on_grid = [&](RunRequest r) {
    r.samples = kSamples;
    return solve_on_grid(std::move(r));
  };
  // The prediction at the tight tolerances, far more accurate than the ladder points.
  const GridRun prediction = on_grid(model_request(request, "limit", std::nullopt, true));
  std::vector<LadderInput> inputs;
  std::vector<long> steps;
  for (const double N : ladder) {
    const GridRun normal = on_grid(model_request(request, "realization", N, false));
    const GridRun tight = on_grid(model_request(request, "realization", N, true));
    inputs.push_back(
        {N, normal.record.status, normal.record.reason, q_deviation(normal.q, prediction.q, false),
         tight.record.status == "ok" ? q_deviation(tight.q, prediction.q, false) : std::nullopt});
    steps.push_back(normal.record.steps);
  }
  LadderRules rules;
  rules.digits = request.digits;
  const LadderAnalysis analysis = analyse_ladder(inputs, 0.0, 1.0, false, rules);
  const bool predicted = prediction.record.status == "ok";
  const std::string verdict =
      predicted ? analysis.verdict
                : "no prediction: the limit run ended with " + prediction.record.status;
  const bool confirmed = predicted && analysis.confirmed;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  std::ostringstream table;
  table << std::left << std::setw(10) << "N" << std::setw(16) << "max_q_dev" << std::setw(10)
        << "order" << std::setw(12) << "disc.err"
        << "flag\n";
  for (std::size_t i = 0; i < analysis.rows.size(); ++i) {
    const LadderRow& row = analysis.rows[i];
    rows.push_back({{"N", ladder[i]},
                    {"status", inputs[i].status},
                    {"max_q_deviation", optional_number(row.value)},
                    {"local_order", optional_number(row.local_order)},
                    {"discretization_error", optional_number(row.discretization)},
                    {"flagged", row.flagged},
                    {"flag", row.flag},
                    {"steps", steps[i]}});
    table << std::setw(10) << N_label(ladder[i]) << std::setw(16) << text(row.value, 4)
          << std::setw(10) << text(row.local_order, 4) << std::setw(12)
          << text(row.discretization, 3) << row.flag << "\n";
  }
  if (request.json) {
    nlohmann::ordered_json j;
    j["crbench_version"] = version;
    j["case"] = request.case_name;
    j["params"] = prediction.record.params;
    j["model"] = prediction.record.solver_params;
    j["observable"] = "max_q_deviation from the limit member on a 601-point grid";
    j["tolerances"] = {
        {"rtol", request.rtol}, {"atol", request.atol}, {"tight_factor", request.tight_factor}};
    j["prediction"] = {{"status", prediction.record.status},
                       {"member", prediction.record.diagnostics.value("member", std::string())}};
    j["points"] = rows;
    j["least_squares_order"] = optional_number(analysis.fitted_order);
    j["expected_order"] = 1.0;
    j["confirmed"] = confirmed;
    j["verdict"] = verdict;
    out << j.dump(2) << "\n";
  } else {
    out << request.case_name << ": prediction = the limit member ("
        << prediction.record.diagnostics.value("member", std::string())
        << "), observable max_q_deviation\n"
        << table.str() << "least-squares order " << text(analysis.fitted_order, 4) << "\n"
        << verdict << "\n";
  }
  return confirmed ? 0 : 1;
}

}  // namespace

int run_verify(const VerifyRequest& request, std::ostream& out) {
  if (!(request.N_from > 0.0)) {
    throw InputError("--N-from: " + format_number(request.N_from) + " must be > 0");
  }
  if (!(request.N_to > request.N_from) || request.N_to > 1e15) {
    throw InputError("--N-to: " + format_number(request.N_to) + " must be in (--N-from, 1e15]");
  }
  if (request.per_decade < 1 || request.per_decade > 10) {
    throw InputError("--per-decade: " + std::to_string(request.per_decade) +
                     " must be a whole number in [1, 10]");
  }
  if (!(request.tight_factor >= 2.0 && request.tight_factor <= 1e4)) {
    throw InputError("--tight-factor: " + format_number(request.tight_factor) +
                     " must be in [2, 1e4] (as a study's tolerances.tight_factor)");
  }
  if (request.digits < 1 || request.digits > 15) {
    throw InputError("--digits: " + std::to_string(request.digits) +
                     " must be a whole number in [1, 15]");
  }
  const std::vector<double> ladder =
      geometric_ladder(request.N_from, request.N_to, request.per_decade);
  const auto count = static_cast<int>(ladder.size());
  if (count < 3 || count > 100) {
    throw InputError("--N-from/--N-to/--per-decade: the ladder has " + std::to_string(count) +
                     " points; it needs between 3 and 100");
  }

  const auto model = make_model(request.case_name, request.case_assignments);
  if (model->kinematic_count() > 0) {
    return verify_kinematic(request, ladder, out);
  }

  // The prediction.
  const RunRecord prediction = execute(model_request(request, "limit", std::nullopt, false));
  const bool theorem_applies =
      prediction.diagnostics.value("theorem_applies", nlohmann::ordered_json(true)).get<bool>();
  // Theorem 1, or its continuation past zeros of z with lambda > 0 (docs/theory.md section 3);
  // "none" where neither decides, and then the prediction has no lift-off time.
  const std::string rule = prediction.diagnostics.value(
      "prediction_rule", std::string(theorem_applies ? "theorem-1" : "none"));
  const std::optional<double> tau_pred = prediction.lift_off_time;
  // The realization's configuration as `run` makes it: defaults, the case's settings, the user's.
  RunSettings model_settings;
  configure_solver(find_solver("realization"), request.model_assignments, model_settings,
                   &model->info());
  const std::optional<StatedOrder> stated =
      stated_lift_off_order(model_settings.solver_params, model_settings.solver_choices);
  const std::optional<double> expected_order =
      stated ? std::optional<double>(stated->order) : std::nullopt;

  // The realization ladder, each point also at tolerances / tight_factor.
  std::vector<LadderPoint> points;
  for (int i = 0; i < count; ++i) {
    LadderPoint p;
    p.N = ladder[static_cast<std::size_t>(i)];
    const RunRecord record = execute(model_request(request, "realization", p.N, false));
    p.status = record.status;
    p.reason = record.reason;
    p.tau = record.lift_off_time;
    p.warnings = record.warnings;
    p.steps = record.steps;
    const RunRecord tight = execute(model_request(request, "realization", p.N, true));
    if (tight.status == "ok") p.tau_tight = tight.lift_off_time;
    points.push_back(p);
  }

  // The one ladder analysis (bench/ladder.hpp), against the prediction.
  std::vector<LadderInput> inputs;
  for (const auto& p : points) {
    inputs.push_back({p.N, p.status, p.reason, p.tau, p.tau_tight, p.warnings});
  }
  LadderRules rules;
  rules.digits = request.digits;
  const std::string why = prediction.diagnostics.value("why", std::string(""));
  const LadderAnalysis analysis =
      analyse_ladder(inputs, tau_pred, expected_order, true, rules, why);
  const Extrapolated& x = analysis.extrapolation;

  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  std::ostringstream table;
  table << std::left << std::setw(10) << "N" << std::setw(24) << "tau_N" << std::setw(14)
        << "tau_N-pred" << std::setw(10) << "order" << std::setw(12) << "disc.err"
        << "flag\n";
  for (std::size_t i = 0; i < points.size(); ++i) {
    const LadderPoint& p = points[i];
    const LadderRow& row = analysis.rows[i];
    rows.push_back({{"N", p.N},
                    {"status", p.status},
                    {"tau_N", optional_number(p.tau)},
                    {"error_vs_prediction", optional_number(row.error)},
                    {"local_order", optional_number(row.local_order)},
                    {"tau_N_tight", optional_number(p.tau_tight)},
                    {"discretization_error", optional_number(row.discretization)},
                    {"flagged", row.flagged},
                    {"flag", row.flag},
                    {"warnings", p.warnings},
                    {"steps", p.steps}});
    table << std::setw(10) << N_label(p.N) << std::setw(24) << text(row.value) << std::setw(14)
          << text(row.error, 4) << std::setw(10) << text(row.local_order, 4) << std::setw(12)
          << text(row.discretization, 3) << row.flag << "\n";
  }

  std::string verdict = analysis.verdict;
  bool confirmed = analysis.confirmed;
  if (rule == "none" || (!theorem_applies && rule != "continuation")) {
    verdict = "no prediction: " + why;
    confirmed = false;
  }
  const std::string rule_text = rule == "theorem-1"      ? "Theorem 1 applies"
                                : rule == "continuation" ? "continuation past Theorem 1: " + why
                                                         : "no prediction: " + why;
  if (request.json) {
    nlohmann::ordered_json j;
    j["crbench_version"] = version;
    j["case"] = request.case_name;
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
        {"status", prediction.status},
        {"theorem_applies", theorem_applies},
        {"prediction_rule", rule},
        {"why", prediction.diagnostics.value("why", std::string(""))},
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
                          {"finest_N_used", optional_number(x.finest_N)}};
    j["digits_of_agreement"] = optional_number(analysis.digits_of_agreement);
    j["digits_supported"] = optional_number(analysis.digits_supported);
    j["requested_digits"] = request.digits;
    j["confirmed"] = confirmed;
    j["verdict"] = verdict;
    out << j.dump(2) << "\n";
  } else {
    out << request.case_name << ": predicted lift-off " << text(tau_pred) << " (" << rule_text
        << ")\n"
        << "expected order " << (expected_order ? format_number(*expected_order) : "none stated")
        << (stated ? " (" + stated->source + ")" : std::string()) << "\n"
        << table.str() << "least-squares order " << text(analysis.fitted_order, 4)
        << "; extrapolated tau_inf = " << text(x.limit) << " +/- " << text(x.uncertainty, 2)
        << " (order " << text(x.order, 4) << " from the differences, without the prediction)\n"
        << verdict << "\n";
  }
  return confirmed ? 0 : 1;
}

}  // namespace crbench
