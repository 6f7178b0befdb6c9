#include "bench/verify.hpp"

#include <cmath>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

#include "bench/convergence.hpp"
#include "bench/run_support.hpp"
#include "cases/registry.hpp"
#include "crbench/version.hpp"
#include "solvers/solver.hpp"

namespace crbench {
namespace {

struct LadderPoint {
  double N = 0.0;
  std::string status;
  std::optional<double> tau;
  std::optional<double> tau_tight;  // the same point at 100× tighter tolerances
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

  // The prediction.
  RunRequest limit_request;
  limit_request.case_name = request.case_name;
  limit_request.solver_name = "limit";
  limit_request.case_assignments = request.case_assignments;
  limit_request.solver_assignments = request.model_assignments;
  limit_request.rtol = request.rtol;
  limit_request.atol = request.atol;
  const RunRecord prediction = execute(limit_request);
  const bool theorem_applies =
      prediction.diagnostics.value("theorem_applies", nlohmann::ordered_json(true)).get<bool>();
  const std::optional<double> tau_pred = prediction.lift_off_time;

  // The realization ladder, each point also at 100× tighter tolerances.
  std::vector<LadderPoint> points;
  for (int i = 0; i < count; ++i) {
    LadderPoint p;
    p.N = ladder[static_cast<std::size_t>(i)];
    RunRequest r;
    r.case_name = request.case_name;
    r.solver_name = "realization";
    r.case_assignments = request.case_assignments;
    r.solver_assignments = request.model_assignments;
    r.solver_assignments.push_back({"N", format_number(p.N)});
    r.rtol = request.rtol;
    r.atol = request.atol;
    const RunRecord record = execute(r);
    p.status = record.status;
    p.tau = record.lift_off_time;
    p.steps = record.steps;
    r.rtol = std::max(request.rtol / 100.0, 1e-15);
    r.atol = request.atol / 100.0;
    const RunRecord tight = execute(r);
    if (tight.status == "ok") p.tau_tight = tight.lift_off_time;
    points.push_back(p);
  }

  // Orders against the prediction, Richardson's extrapolation without it.
  std::vector<double> Ns, errors;
  std::vector<std::optional<double>> taus;
  for (const auto& p : points) {
    if (p.tau && tau_pred) {
      Ns.push_back(p.N);
      errors.push_back(*p.tau - *tau_pred);
    }
    taus.push_back(p.tau);
  }
  const std::optional<double> lsq_slope = log_log_slope(Ns, errors);
  const std::optional<double> lsq_order =
      lsq_slope ? std::optional<double>(-*lsq_slope) : std::nullopt;
  const Extrapolation extrapolation = richardson(ladder, taus);
  const std::optional<double> tau_inf = extrapolation.limit;
  const std::optional<double> difference_order = extrapolation.order_from_differences;
  std::optional<double> digits;
  if (tau_inf && tau_pred) {
    const double rel = std::abs(*tau_inf - *tau_pred) / std::max(std::abs(*tau_pred), 1e-300);
    digits = rel > 0.0 ? -std::log10(rel) : 16.0;
  }

  bool all_ok = true, discretization_ok = true;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  std::ostringstream table;
  table << std::left << std::setw(10) << "N" << std::setw(24) << "tau_N" << std::setw(14)
        << "tau_N-pred" << std::setw(10) << "order" << std::setw(12) << "disc.err"
        << "flag\n";
  for (std::size_t i = 0; i < points.size(); ++i) {
    const LadderPoint& p = points[i];
    all_ok = all_ok && p.status == "ok" && p.tau;
    const std::optional<double> error =
        p.tau && tau_pred ? std::optional<double>(*p.tau - *tau_pred) : std::nullopt;
    std::optional<double> order;
    if (i > 0 && error && points[i - 1].tau && tau_pred) {
      order = local_order(points[i - 1].N, *points[i - 1].tau - *tau_pred, p.N, *error);
    }
    const std::optional<double> discretization =
        p.tau && p.tau_tight ? std::optional<double>(std::abs(*p.tau - *p.tau_tight))
                             : std::nullopt;
    // A point is trusted when its discretization error is below 1% of its model error.
    const bool flagged = !discretization || !error || !(*discretization < 0.01 * std::abs(*error));
    discretization_ok = discretization_ok && !flagged;
    rows.push_back({{"N", p.N},
                    {"status", p.status},
                    {"tau_N", optional_number(p.tau)},
                    {"error_vs_prediction", optional_number(error)},
                    {"local_order", optional_number(order)},
                    {"tau_N_tight", optional_number(p.tau_tight)},
                    {"discretization_error", optional_number(discretization)},
                    {"flag_discretization_not_below_1pct_of_model_error", flagged},
                    {"steps", p.steps}});
    std::ostringstream N_text;
    N_text << std::setprecision(3) << p.N;
    table << std::setw(10) << N_text.str() << std::setw(24) << text(p.tau) << std::setw(14)
          << text(error, 4) << std::setw(10) << text(order, 4) << std::setw(12)
          << text(discretization, 3) << (flagged ? "DISCRETIZATION" : "") << "\n";
  }

  const bool confirmed = theorem_applies && tau_pred && all_ok && discretization_ok && digits &&
                         *digits >= request.digits;
  std::string verdict;
  if (!tau_pred) {
    verdict = "no prediction: the limit model has no lift-off (" +
              prediction.diagnostics.value("why", std::string("")) + ")";
  } else if (!theorem_applies) {
    verdict = "Theorem 1 does not apply: " + prediction.diagnostics.value("why", std::string(""));
  } else if (!all_ok) {
    verdict = "a realization run failed or did not lift off";
  } else if (!discretization_ok) {
    verdict = "a point's discretization error is not below 1% of its model error";
  } else if (!digits || *digits < request.digits) {
    verdict = "tau_inf agrees with the prediction to " + text(digits, 3) + " digits, fewer than " +
              std::to_string(request.digits);
  } else {
    verdict = "confirmed: tau_inf agrees with the prediction to " + text(digits, 3) + " digits";
  }

  if (request.json) {
    nlohmann::ordered_json j;
    j["crbench_version"] = version;
    j["case"] = request.case_name;
    j["params"] = prediction.params;
    j["model"] = prediction.solver_params;
    j["tolerances"] = {{"rtol", request.rtol},
                       {"atol", request.atol},
                       {"tight_rtol", std::max(request.rtol / 100.0, 1e-15)},
                       {"tight_atol", request.atol / 100.0}};
    j["prediction"] = {
        {"lift_off_time", optional_number(tau_pred)},
        {"status", prediction.status},
        {"theorem_applies", theorem_applies},
        {"why", prediction.diagnostics.value("why", std::string(""))},
        {"proposition", prediction.diagnostics.value("proposition", std::string(""))}};
    j["points"] = rows;
    j["least_squares_order"] = optional_number(lsq_order);
    j["richardson"] = {{"order_from_differences", optional_number(difference_order)},
                       {"order_fitted_over_the_ladder",
                        optional_number(extrapolation.order_fitted_over_the_ladder)},
                       {"tau_inf", optional_number(tau_inf)},
                       {"error_estimate", optional_number(extrapolation.error_estimate)}};
    j["digits_of_agreement"] = optional_number(digits);
    j["requested_digits"] = request.digits;
    j["confirmed"] = confirmed;
    j["verdict"] = verdict;
    out << j.dump(2) << "\n";
  } else {
    out << request.case_name << ": predicted lift-off " << text(tau_pred) << " ("
        << (theorem_applies ? "Theorem 1 applies" : "Theorem 1 does not apply") << ")\n"
        << table.str() << "least-squares order " << text(lsq_order, 4)
        << "; Richardson tau_inf = " << text(tau_inf) << " (order " << text(difference_order, 4)
        << " from the differences, without the prediction)\n"
        << verdict << "\n";
  }
  return confirmed ? 0 : 1;
}

}  // namespace crbench
