#include "bench/verify.hpp"

#include <cmath>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

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

// Least-squares slope of log|y| against log x over the entries where y ≠ 0.
std::optional<double> log_log_slope(const std::vector<double>& x, const std::vector<double>& y) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  int k = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!(std::abs(y[i]) > 0.0) || !std::isfinite(y[i])) continue;
    const double lx = std::log(x[i]), ly = std::log(std::abs(y[i]));
    sx += lx;
    sy += ly;
    sxx += lx * lx;
    sxy += lx * ly;
    ++k;
  }
  if (k < 2) return std::nullopt;
  return (k * sxy - sx * sy) / (k * sxx - sx * sx);
}

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
  const double decades = std::log10(request.N_to / request.N_from);
  const int count = static_cast<int>(std::floor(decades * request.per_decade + 1e-9)) + 1;
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
    p.N = request.N_from * std::pow(10.0, static_cast<double>(i) / request.per_decade);
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
  std::vector<double> Ns, errors, differences, difference_N;
  for (const auto& p : points) {
    if (p.tau && tau_pred) {
      Ns.push_back(p.N);
      errors.push_back(*p.tau - *tau_pred);
    }
  }
  for (std::size_t i = 0; i + 1 < points.size(); ++i) {
    if (points[i].tau && points[i + 1].tau) {
      difference_N.push_back(points[i].N);
      differences.push_back(*points[i].tau - *points[i + 1].tau);
    }
  }
  const auto negated = [](std::optional<double> x) {
    return x ? std::optional<double>(-*x) : std::nullopt;
  };
  const std::optional<double> lsq_order = negated(log_log_slope(Ns, errors));
  // The order of τ_N − τ_∞ ∝ N^−p from the successive differences (they decay like N^−p too):
  // fitted over the whole ladder (reported), and locally from the three finest points (used,
  // as in Aitken's Δ²: the coarse points carry the higher-order terms that would bias it).
  const std::optional<double> fitted_difference_order =
      negated(log_log_slope(difference_N, differences));
  std::optional<double> difference_order;
  if (differences.size() >= 2) {
    const std::size_t last = differences.size() - 1;
    const std::vector<double> tail_N{difference_N[last - 1], difference_N[last]};
    const std::vector<double> tail{differences[last - 1], differences[last]};
    difference_order = negated(log_log_slope(tail_N, tail));
  }
  // Two Richardson levels on the three finest points a, b, c (ratio r each), for
  // τ_N = τ_∞ + c₁N^−p + c₂N^−2p + …, the form of the realization expansions here (viscous:
  // 1/N, 1/N²; obstacle: N^−1/2, 1/N): R₁ = (r^p τ_next − τ)/(r^p − 1) on (a, b) and (b, c), then
  // R₂ = (r^2p R₁(b, c) − R₁(a, b))/(r^2p − 1). The error estimate is the last level's step.
  std::optional<double> tau_inf, tau_inf_error;
  const std::size_t np = points.size();
  if (difference_order && np >= 3 && points[np - 1].tau && points[np - 2].tau &&
      points[np - 3].tau) {
    const double p = *difference_order;
    const auto level = [](double coarse, double fine, double ratio_p) {
      return (ratio_p * fine - coarse) / (ratio_p - 1.0);
    };
    const double r = points[np - 1].N / points[np - 2].N;
    const double r1 = std::pow(r, p), r2 = std::pow(r, 2.0 * p);
    const double ab = level(*points[np - 3].tau, *points[np - 2].tau, r1);
    const double bc = level(*points[np - 2].tau, *points[np - 1].tau, r1);
    tau_inf = level(ab, bc, r2);
    tau_inf_error = std::abs(*tau_inf - bc);
  }
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
    std::optional<double> local_order;
    if (i > 0 && error && points[i - 1].tau && tau_pred) {
      const double previous = *points[i - 1].tau - *tau_pred;
      if (previous != 0.0 && *error != 0.0) {
        local_order = std::log(std::abs(previous / *error)) / std::log(p.N / points[i - 1].N);
      }
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
                    {"local_order", optional_number(local_order)},
                    {"tau_N_tight", optional_number(p.tau_tight)},
                    {"discretization_error", optional_number(discretization)},
                    {"flag_discretization_not_below_1pct_of_model_error", flagged},
                    {"steps", p.steps}});
    std::ostringstream N_text;
    N_text << std::setprecision(3) << p.N;
    table << std::setw(10) << N_text.str() << std::setw(24) << text(p.tau) << std::setw(14)
          << text(error, 4) << std::setw(10) << text(local_order, 4) << std::setw(12)
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
                       {"order_fitted_over_the_ladder", optional_number(fitted_difference_order)},
                       {"tau_inf", optional_number(tau_inf)},
                       {"error_estimate", optional_number(tau_inf_error)}};
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
