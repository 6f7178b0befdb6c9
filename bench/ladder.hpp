// The one analysis of a convergence ladder, used by `crbench verify`, `crbench converge` and
// `crbench report` (docs/theory.md §4): per-row errors, discretization flags and local orders,
// the least-squares order, the extrapolated limit with an error bar that is an upper bound, the
// digits it supports, and a verdict that says why when it is not a confirmation. A ladder runs
// along one axis: the model parameter N, a fixed time step h or a relative tolerance rtol.
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "crbench/bench/verdict.hpp"
#include "crbench/cases/params.hpp"
#include "crbench/solvers/outcome.hpp"

namespace crbench {

// What a ladder refines. Errors fall as N grows and as h, rtol or a model parameter x shrink
// (x → 0: the added mass α of Deryabin & Kozlov 1995 §5, for example); the analysis works in the
// resolution N, 1/h, 1/rtol or 1/x, so that an order p means error ∝ N^−p, h^p, rtol^p or x^p.
enum class LadderAxis { N, h, rtol, parameter };

// "N", "h", "rtol", "parameter"; with a parameter's name, that name.
std::string axis_name(LadderAxis axis, const std::string& parameter = "");
// The axis named `name`, or InputError naming `where` and the accepted names.
LadderAxis parse_axis(const std::string& name, const std::string& where);
// N, 1/h, 1/rtol or 1/x.
double resolution(LadderAxis axis, double rung);
// The rungs from `coarse` to `fine` (N: increasing, h and rtol: decreasing), per_decade a decade,
// with a 1e-9 decade slack at the fine end: coarse · 10^(i/per_decade) for N (the study's N
// ladder), coarse / 10^(i/per_decade) rounded to 12 significant digits for h and rtol (so that
// 3e-2 → 3e-5 gives 3e-3, 3e-4 and 3e-5 as written).
std::vector<double> ladder_rungs(LadderAxis axis, double coarse, double fine, int per_decade);

// The rules every ladder is judged by: the same for verify, converge and report; a study or a
// verify call sets only `digits`, and a study's model `log_power`.
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
  // The power k of a logarithm the theory's error law carries, error ≈ C x^p (ln 1/x)^k with x
  // the rung's inverse resolution (an impact without collision's episode, (ln N)/√N): the orders
  // are then those of error / (ln 1/x)^k, and no limit is extrapolated (Aitken's three-point rule
  // assumes a power law). 0: a power law.
  int log_power = 0;
  // The coarsest rung the fits use (a study model's `fit_from`): the coarser rows are tabled with
  // their local orders and left out of the fitted order, the coefficients and the extrapolation.
  // For a law whose lower term is large at the coarse rungs (error ≈ N^-p (a1 ln N + a2) with
  // a2/a1 of the size of ln N, whose error/ln N has local orders p + a2/(ln N (a1 ln N + a2))).
  std::optional<double> fit_from;
};

// The tolerances of the discretization check: rtol / factor, never below the smallest rtol the
// solvers accept (kRtolSpec.min), and atol / factor.
double tight_rtol(double rtol, double factor);
double tight_atol(double atol, double factor);

// The factor a ladder's tight twin divides the tolerances by.
inline const ParamSpec kTightFactorSpec{.name = "tight_factor", .min = 2.0, .max = 1e4};

// The tight twin must be tighter by the stated factor: rtol / factor not below the smallest rtol
// the solvers accept (tight_rtol would clamp it silently). An InputError blaming `factor_field`,
// with the ratio written as `ratio_text` (e.g. "rtol / tight_factor"), otherwise.
void require_tight_rtol(double rtol, double factor, const std::string& factor_field,
                        const std::string& ratio_text);

inline constexpr double kEpsilon = std::numeric_limits<double>::epsilon();
// A row of an h or rtol ladder whose error is within this many ulps of its scale is at round-off:
// it shows neither the order nor the limit (an N ladder's tight twin catches the same thing).
inline constexpr double kRoundOffUlps = 100.0;
inline bool is_round_off(double error, double scale) {
  return error <= kRoundOffUlps * kEpsilon * scale;
}

struct LadderInput {
  std::optional<double> rung;   // N, h or rtol of the row; nullopt: an ideal model (one row)
  Status status = Status::ok;   // the solve's status
  std::string reason;           // why, when status is not ok
  std::optional<double> value;  // the observable at the study's tolerances
  std::optional<double> tight;  // the same at the tight tolerances
  // The solve's own warnings (RunRecord::warnings: e.g. an exit time below the round-off of f);
  // a row with any is flagged, whatever its discretization estimate says.
  std::vector<std::string> warnings = {};
  // A row of an h or rtol ladder has no tight twin (the ladder itself is the discretization):
  // its estimate is the reference's own error estimate, and the row is flagged REFERENCE when
  // that is not below trust_fraction of its error. Set for those rows, unset for N ladders.
  std::optional<double> reference_uncertainty = {};
};

struct LadderRow {
  std::optional<double> rung;
  std::optional<double> value;
  std::optional<double> error;  // value − reference
  // |value − tight| (an N ladder), or the reference's error estimate (an h or rtol ladder).
  std::optional<double> discretization;
  std::optional<double> local_order;  // against the previous row with an error
  bool flagged = false;
  bool before_fit = false;  // coarser than LadderRules::fit_from: shown, not fitted
  // "" (trusted), "DISCRETIZATION", "REFERENCE", "ROUND-OFF", "SOLVER WARNING", "no value",
  // "no reference", "no tight value" or "<status>: <reason>".
  std::string flag;
};

struct Extrapolated {
  // Aitken's Δ² on the three finest trusted rows a, b, c of a geometric ladder: the order p from
  // the successive differences, p = log((a − b)/(b − c)) / log r (r the ratio of resolutions),
  // and the limit c − (b − c)²/(a − 2b + c), exact for τ_N = τ_∞ + C N^−p (or C h^p).
  std::optional<double> limit;
  std::optional<double> order;          // p of the finest triple
  std::optional<double> order_shifted;  // p of the triple one row coarser
  // The error bar: |limit − limit of the triple one row coarser| (the coarser extrapolant is the
  // worse one, so its distance bounds the finer one's error while the extrapolants converge
  // geometrically), plus twice the discretization and round-off of the three rows propagated
  // through the formula. Published only when the ladder is asymptotic (both triples converge
  // with the same sign and orders that agree within order_stability).
  std::optional<double> uncertainty;
  std::optional<double> finest_rung;  // on the ladder's axis (N, h or rtol)
  std::string no_uncertainty_reason;  // why there is no error bar, when there is none
};

struct LadderAnalysis {
  std::vector<LadderRow> rows;
  int flagged_rows = 0;
  LadderAxis axis = LadderAxis::N;
  std::optional<double> fitted_order;  // least squares over the trusted rows with a rung
  int points_in_fit = 0;
  std::optional<double> expected_order;
  std::optional<bool> order_agrees;
  Extrapolated extrapolation;
  std::optional<double> digits_of_agreement;  // −log10 |limit − reference| / |reference|
  std::optional<double> digits_supported;     // −log10 uncertainty / |reference|
  // The reference's own error estimate (a run's difference from the same run at the settings'
  // tolerances; 0 for a closed form): the reference lies within the error bar when it is within
  // the bar widened by this, so that a ladder is not blamed for its reference's error.
  std::optional<double> reference_error;
  // A step ladder without a stated order whose every error is the step itself or nothing (an
  // event taken at the first step that sees it, the step ending just before or on the event time
  // in floating point): a bound by h, not a power law, so no order or limit is fitted to it.
  bool bounded_by_step = false;
  // A step ladder without a stated order whose fitted order is below 0.05 in magnitude, or whose
  // model is a realization at a fixed N measured against the limit N → ∞ (fixed_N): its errors
  // settle on a floor (the model's own error at its setting, or a contact's resting depth), which
  // its limit gives; the fitted order is no rate and is not shown as one.
  bool floor = false;
  std::optional<double> fixed_N;
  int log_power = 0;  // LadderRules::log_power: the orders are those of error / (ln 1/x)^k
  std::optional<double> fit_from;  // LadderRules::fit_from
  Verdict verdict;  // CONFIRMED / NOT CONFIRMED / NO RATE STATED: why, and what would help
};

// The three-point extrapolation with its error bar (see Extrapolated), on the values of a
// geometric ladder whose every entry is trusted; `rungs` on `axis` (`parameter`: the name of a
// parameter axis, for the texts). Exposed for the tests.
Extrapolated extrapolate(const std::vector<double>& rungs, const std::vector<double>& values,
                         const std::vector<double>& discretization,
                         const LadderRules& rules = LadderRules{}, LadderAxis axis = LadderAxis::N,
                         const std::string& parameter = "");

// The leading coefficients of a ladder's error as a series in its rung x (N^-1, h, rtol or the
// parameter): error ≈ a1 x^p + a2 x^(2p) + … with p the stated order (with a logarithm of power
// k in the law, a1 x^p L^k + a2 x^p L^(k−1) + … + a_(k+1) x^p + a_(k+2) x^(2p) + …, L = ln 1/x),
// from the finest trusted
// rows (as many as coefficients), and the same one row coarser: the error bar of each is their
// distance (an upper bound while the truncation falls by at least 2 from one row to the next,
// which rungs a factor √10 apart give) plus twice the discretization propagated through the
// solve. Compared with the theory's coefficients: they agree when each lies within its bar.
struct CoefficientFit {
  std::vector<double> expected;     // NaN: a coefficient the theory does not state (fitted only)
  std::vector<double> fitted;       // empty when there are too few trusted rows
  std::vector<double> uncertainty;  // the bars, same size as fitted
  bool agrees = false;
  std::string text;  // "a1 = 1.00003 +/- 4.1e-05 (theory 1); a2 = ..." or why there is none
};
// `powers`: the exponents of the series when they are not p, 2p, 3p (an expansion in √x with a
// missing term, for example); empty: p, 2p, ….
// With analysis.log_power k > 0 the first k + 1 terms carry L^k … L^0 (powers not given).
CoefficientFit fit_coefficients(const LadderAnalysis& analysis, double order,
                                const std::vector<double>& expected,
                                const std::vector<double>& powers = {});

// `reference` is what the errors are measured against (the limit model's value or a closed
// form); nullopt when there is none (the verdict says so, with `no_reference_why`).
// `extrapolate_limit`: the observable converges to `reference` along the ladder (lift-off times;
// a deviation's limit is 0 and is not extrapolated: its verdict rests on the fitted order alone).
// `reference_error`: the reference's own error estimate (LadderAnalysis::reference_error); none
// where the rows carry it already (an h or rtol ladder's) or it is unknown. `fixed_N`: the N of a
// realization whose step ladder is measured against the limit N → ∞ (LadderAnalysis::fixed_N).
LadderAnalysis analyse_ladder(const std::vector<LadderInput>& inputs,
                              std::optional<double> reference, std::optional<double> expected_order,
                              bool extrapolate_limit, const LadderRules& rules,
                              const std::string& no_reference_why = "",
                              LadderAxis axis = LadderAxis::N, const std::string& parameter = "",
                              std::optional<double> reference_error = std::nullopt,
                              std::optional<double> fixed_N = std::nullopt);

// "1e2", "10^2.5", or the number when N is not a power of ten to a tenth of a decade (also for h
// and rtol: "1e-3", "10^-2.5").
std::string N_label(double N);
// The output grid for the q observables of a ladder over a horizon of `duration`: `samples`,
// except on an h ladder, where the grid's spacing is duration / floor(duration / (k h)) for the
// fewest whole k that keep it within `samples` points: at least k coarsest steps apart, and on
// step ends where h divides the duration. A fixed-step solver's sample between step ends is its
// step's linear interpolation (solvers/step_output.hpp).
int step_ladder_samples(LadderAxis axis, double coarsest_rung, double duration, int samples);

// x rounded to 12 significant digits: a tolerance computed as a quotient (1e-5 / 100 is
// 1.0000000000000001e-07 in floating point) is then the double nearest the number it stands for.
double twelve_digits(double x);
// atol of an rtol rung: rtol / ratio, ratio = rtol / atol of the settings, both rounded to 12
// digits (so that 1e-12 / 1e-14 gives 100 and 1e-5 / 100 is the double nearest 1e-7).
double atol_for_rtol(double rung, double rtol, double atol);

// N_label for an N rung; "h 1e-3", "rtol 1e-8", "alpha 1e-3" on the other axes.
std::string rung_label(LadderAxis axis, double rung, const std::string& parameter = "");

}  // namespace crbench
