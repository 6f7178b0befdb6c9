// The one analysis of a convergence ladder in N, used by `crbench verify`, `crbench converge` and
// `crbench report` (docs/convergence.md): per-row errors, discretization flags and local orders,
// the least-squares order, the extrapolated limit with an error bar that is an upper bound, the
// digits it supports, and a verdict that says why when it is not a confirmation.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace crbench {

// The rules every ladder is judged by: the same for verify, converge and report; a study or a
// verify call sets only `digits`.
struct LadderRules {
  // A row is trusted when its discretization estimate is below this fraction of its error.
  double trust_fraction = 0.01;
  // A fitted order agrees with the theory's within this distance.
  double order_tolerance = 0.05;
  // The two finest orders from successive differences must agree to this fraction of the order
  // for the ladder to count as asymptotic (otherwise no error bar is published).
  double order_stability = 0.1;
  // An ideal (N-free) model is confirmed when its error is at most this, relative to max(1, |x|).
  double ideal_tolerance = 1e-10;
  // Digits of agreement a ladder model needs: the error bar must be at most 10^-digits relative.
  double digits = 8.0;
};

// The tolerances of the discretization check: rtol / factor, never below the smallest rtol the
// solvers accept (kRtolSpec.min), and atol / factor.
double tight_rtol(double rtol, double factor);
double tight_atol(double atol, double factor);

struct LadderInput {
  std::optional<double> N;      // nullopt: an ideal model (one row)
  std::string status = "ok";    // the solve's status ("ok" or a failure kind)
  std::string reason;           // why, when status is not "ok"
  std::optional<double> value;  // the observable at the study's tolerances
  std::optional<double> tight;  // the same at the tight tolerances
  // The solve's own warnings (RunRecord::warnings: e.g. an exit time below the round-off of f);
  // a row with any is flagged, whatever its discretization estimate says.
  std::vector<std::string> warnings = {};
};

struct LadderRow {
  std::optional<double> N;
  std::optional<double> value;
  std::optional<double> error;           // value − reference
  std::optional<double> discretization;  // |value − tight|
  std::optional<double> local_order;     // against the previous row with an error
  bool flagged = false;
  // "" (trusted), "DISCRETIZATION", "no value", "no reference" or "<status>: <reason>".
  std::string flag;
};

struct Extrapolated {
  // Aitken's Δ² on the three finest trusted rows a, b, c of a geometric ladder: the order p from
  // the successive differences, p = log((a − b)/(b − c)) / log r, and the limit
  // c − (b − c)²/(a − 2b + c), exact for τ_N = τ_∞ + C N^−p.
  std::optional<double> limit;
  std::optional<double> order;          // p of the finest triple
  std::optional<double> order_shifted;  // p of the triple one row coarser
  // The error bar: |limit − limit of the triple one row coarser| (the coarser extrapolant is the
  // worse one, so its distance bounds the finer one's error while the extrapolants converge
  // geometrically), plus twice the discretization and round-off of the three rows propagated
  // through the formula. Published only when the ladder is asymptotic (both triples converge
  // with the same sign and orders that agree within order_stability).
  std::optional<double> uncertainty;
  std::optional<double> finest_N;
  std::string no_uncertainty_reason;  // why there is no error bar, when there is none
};

struct LadderAnalysis {
  std::vector<LadderRow> rows;
  int flagged_rows = 0;
  std::optional<double> fitted_order;  // least squares over the trusted rows with N
  int points_in_fit = 0;
  std::optional<double> expected_order;
  std::optional<bool> order_agrees;
  Extrapolated extrapolation;
  std::optional<double> digits_of_agreement;  // −log10 |limit − reference| / |reference|
  std::optional<double> digits_supported;     // −log10 uncertainty / |reference|
  bool confirmed = false;
  std::string verdict;  // CONFIRMED / NOT CONFIRMED / NO RATE STATED: why, and what would help
};

// The three-point extrapolation with its error bar (see Extrapolated), on the values of a
// geometric ladder whose every entry is trusted. Exposed for the tests.
Extrapolated extrapolate(const std::vector<double>& N, const std::vector<double>& values,
                         const std::vector<double>& discretization,
                         const LadderRules& rules = LadderRules{});

// `reference` is what the errors are measured against (the limit model's value or a closed
// form); nullopt when there is none (the verdict says so, with `no_reference_why`).
// `extrapolate_limit`: the observable converges to `reference` as N → ∞ (lift-off times; a
// deviation's limit is 0 and is not extrapolated: its verdict rests on the fitted order alone).
LadderAnalysis analyse_ladder(const std::vector<LadderInput>& inputs,
                              std::optional<double> reference, std::optional<double> expected_order,
                              bool extrapolate_limit, const LadderRules& rules,
                              const std::string& no_reference_why = "");

// "1e2", "10^2.5", or the number when N is not a power of ten to a tenth of a decade.
std::string N_label(double N);

}  // namespace crbench
