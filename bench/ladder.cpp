#include "crbench/bench/ladder.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "crbench/bench/convergence.hpp"
#include "crbench/bench/number_text.hpp"
#include "crbench/bench/run_support.hpp"
#include "crbench/cases/params.hpp"
#include "crbench/solvers/model_parameters.hpp"

namespace crbench {
namespace {

double digits_of(double difference, double scale) {
  const double relative = std::abs(difference) / std::max(std::abs(scale), 1e-300);
  return relative > 0.0 ? std::min(-std::log10(relative), 16.0) : 16.0;
}

struct Triple {
  std::optional<double> limit;
  std::optional<double> order;
  std::string why_not;  // when there is no limit
  double propagated_noise = 0.0;
};

// Aitken's Δ² on a, b, c at N_b / N_a = N_c / N_b = r (see Extrapolated).
Triple aitken(double N_b, double N_c, double a, double b, double c, double noise_a, double noise_b,
              double noise_c) {
  Triple t;
  const double d_ab = a - b, d_bc = b - c, D = d_ab - d_bc;
  if (d_ab == 0.0 || d_bc == 0.0) {
    t.why_not = "two successive values are equal (the differences are at round-off)";
    return t;
  }
  if ((d_ab > 0.0) != (d_bc > 0.0)) {
    t.why_not = "the successive differences change sign (not a power law along the ladder)";
    return t;
  }
  if (std::abs(d_bc) >= std::abs(d_ab)) {
    t.why_not = "the successive differences do not decrease";
    return t;
  }
  t.order = std::log(d_ab / d_bc) / std::log(N_c / N_b);
  t.limit = c - d_bc * d_bc / D;
  // |∂E/∂a|, |∂E/∂b|, |∂E/∂c| of E = c − (b − c)²/(a − 2b + c).
  const double u = d_bc * d_bc;
  const double dE_da = u / (D * D);
  const double dE_db = -2.0 * d_bc / D - 2.0 * u / (D * D);
  const double dE_dc = 1.0 + 2.0 * d_bc / D + u / (D * D);
  t.propagated_noise =
      std::abs(dE_da) * noise_a + std::abs(dE_db) * noise_b + std::abs(dE_dc) * noise_c;
  return t;
}

}  // namespace

std::string axis_name(LadderAxis axis, const std::string& parameter) {
  switch (axis) {
    case LadderAxis::N:
      return "N";
    case LadderAxis::h:
      return "h";
    case LadderAxis::rtol:
      return "rtol";
    case LadderAxis::parameter:
      return parameter.empty() ? std::string("parameter") : parameter;
  }
  return "N";
}

LadderAxis parse_axis(const std::string& name, const std::string& where) {
  for (const LadderAxis axis : {LadderAxis::N, LadderAxis::h, LadderAxis::rtol}) {
    if (name == axis_name(axis)) return axis;
  }
  throw InputError(where + ": '" + name + "' is not one of N, h, rtol");
}

double resolution(LadderAxis axis, double rung) {
  return axis == LadderAxis::N ? rung : 1.0 / rung;
}

std::vector<double> ladder_rungs(LadderAxis axis, double coarse, double fine, int per_decade) {
  if (axis == LadderAxis::N) return geometric_ladder(coarse, fine, per_decade);
  std::vector<double> rungs;
  const double decades = std::log10(coarse / fine);
  const int count = static_cast<int>(std::floor(decades * per_decade + 1e-9)) + 1;
  for (int i = 0; i < count; ++i) {
    // Rounded to 12 significant digits, so that 3e-2 / 1000 is the double nearest 3e-5.
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.12g",
                  coarse / std::pow(10.0, static_cast<double>(i) / per_decade));
    rungs.push_back(std::strtod(buffer, nullptr));
  }
  return rungs;
}

int step_ladder_samples(LadderAxis axis, double coarsest_rung, double duration, int samples) {
  if (axis != LadderAxis::h || !(duration > 0.0)) return samples;
  const double steps = std::floor(duration / coarsest_rung * (1.0 + 1e-12));
  if (steps < 1.0) return 2;
  // The fewest steps per grid interval that keep the grid within `samples` points.
  const double per_interval = std::ceil(steps / (samples - 1));
  return static_cast<int>(std::floor(steps / per_interval)) + 1;
}

double twelve_digits(double x) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.12g", x);
  return std::strtod(buffer, nullptr);
}

double atol_for_rtol(double rung, double rtol, double atol) {
  return twelve_digits(rung / twelve_digits(rtol / atol));
}

std::string rung_label(LadderAxis axis, double rung, const std::string& parameter) {
  return axis == LadderAxis::N ? N_label(rung) : axis_name(axis, parameter) + " " + N_label(rung);
}

double tight_rtol(double rtol, double factor) { return std::max(rtol / factor, kRtolSpec.min); }
double tight_atol(double atol, double factor) { return atol / factor; }

void require_tight_rtol(double rtol, double factor, const std::string& factor_field,
                        const std::string& ratio_text) {
  if (rtol / factor >= kRtolSpec.min) return;
  throw InputError(factor_field + ": " + ratio_text + " = " + format_number(rtol / factor) +
                   " is below " + format_number(kRtolSpec.min) +
                   ", the smallest rtol the solvers accept");
}

std::string N_label(double N) {
  if (!(N > 0.0) || !std::isfinite(N)) return format_number(N);
  const double tenths = std::round(std::log10(N) * 10.0);
  if (std::abs(N - std::pow(10.0, tenths / 10.0)) > 1e-9 * N) return format_number(N);
  const long t = std::lround(tenths);
  if (t % 10 == 0) return "1e" + std::to_string(t / 10);
  return "10^" + fixed_text(static_cast<double>(t) / 10.0, 1);
}

Extrapolated extrapolate(const std::vector<double>& rungs, const std::vector<double>& values,
                         const std::vector<double>& discretization, const LadderRules& rules,
                         LadderAxis axis, const std::string& parameter) {
  Extrapolated out;
  const std::size_t n = std::min({rungs.size(), values.size(), discretization.size()});
  std::vector<double> N;  // the resolutions
  for (std::size_t i = 0; i < n; ++i) N.push_back(resolution(axis, rungs[i]));
  const std::string finer =
      axis == LadderAxis::N ? "one N coarser" : "one " + axis_name(axis, parameter) + " larger";
  if (n < 3) {
    out.no_uncertainty_reason = "too short a ladder: " + std::to_string(n) +
                                " trusted rows at the fine end, an extrapolation needs 3";
    return out;
  }
  // Each value's noise: its discretization estimate plus a few ulps of round-off.
  const auto noise = [&](std::size_t i) {
    return discretization[i] + 4.0 * kEpsilon * std::abs(values[i]);
  };
  const std::size_t a = n - 3, b = n - 2, c = n - 1;
  const Triple finest =
      aitken(N[b], N[c], values[a], values[b], values[c], noise(a), noise(b), noise(c));
  out.finest_rung = rungs[c];
  if (!finest.limit) {
    out.no_uncertainty_reason = "no extrapolation from the three finest rows: " + finest.why_not;
    return out;
  }
  out.limit = finest.limit;
  out.order = finest.order;
  if (n < 4) {
    out.no_uncertainty_reason =
        "three trusted rows give a limit but no error bar; a fourth (" + finer + ") is needed";
    return out;
  }
  const Triple shifted =
      aitken(N[a], N[b], values[a - 1], values[a], values[b], noise(a - 1), noise(a), noise(b));
  if (!shifted.limit) {
    out.no_uncertainty_reason = "no extrapolation from the rows " + finer + ": " + shifted.why_not;
    return out;
  }
  out.order_shifted = shifted.order;
  if (std::abs(*finest.order - *shifted.order) > rules.order_stability * *finest.order) {
    out.no_uncertainty_reason =
        "the ladder is not yet asymptotic: the orders from the "
        "differences of the two finest triples are " +
        fixed_text(*shifted.order, 3) + " and " + fixed_text(*finest.order, 3);
    return out;
  }
  out.uncertainty = std::abs(*finest.limit - *shifted.limit) + 2.0 * finest.propagated_noise;
  return out;
}

namespace {

// One rung's row: its value, error against the reference, discretization estimate (the
// reference's own error for an h or rtol row, else the distance to its tight twin) and the flag
// that keeps it out of the fit.
LadderRow ladder_row(const LadderInput& in, std::optional<double> reference,
                     const LadderRules& rules) {
  LadderRow row;
  row.rung = in.rung;
  if (in.status == Status::ok) row.value = in.value;
  if (row.value && reference) row.error = *row.value - *reference;
  if (in.reference_uncertainty) {
    if (row.value) row.discretization = *in.reference_uncertainty;
  } else if (row.value && in.tight && in.status == Status::ok) {
    row.discretization = std::abs(*row.value - *in.tight);
  }
  if (in.status != Status::ok) {
    row.flag = to_string(in.status) + (in.reason.empty() ? "" : ": " + in.reason);
  } else if (!in.warnings.empty()) {
    row.flag = "SOLVER WARNING";
  } else if (!row.value) {
    row.flag = "no value";
  } else if (!reference) {
    row.flag = "no reference";
  } else if (!row.discretization) {
    row.flag = "no tight value";
  } else if (row.rung && in.reference_uncertainty) {
    // An h or rtol row: its error is the discretization being measured. It shows it only if the
    // reference is far more accurate, and if the error is above round-off.
    if (is_round_off(std::abs(*row.error), std::max(1.0, std::abs(*reference)))) {
      row.flag = "ROUND-OFF";
    } else if (!(*row.discretization < rules.trust_fraction * std::abs(*row.error))) {
      row.flag = "REFERENCE";
    }
  } else if (row.rung) {
    // The row shows the model error only if the discretization error is far below it.
    if (!(*row.discretization < rules.trust_fraction * std::abs(*row.error))) {
      row.flag = "DISCRETIZATION";
    }
  } else if (!(*row.discretization < rules.trust_fraction * rules.ideal_tolerance *
                                         std::max(1.0, std::abs(*row.value)))) {
    // An ideal model's error is checked against ideal_tolerance; its discretization must be far
    // below that.
    row.flag = "DISCRETIZATION";
  }
  row.flagged = !row.flag.empty();
  return row;
}

// The verdict on one ideal-model row (no rung): its error against the reference within
// ideal_tolerance, its discretization far below that.
Verdict ideal_verdict(const LadderRow& row, std::optional<double> reference,
                      const LadderRules& rules, const std::string& no_reference_why) {
  const double tolerance = rules.ideal_tolerance * std::max(1.0, std::abs(reference.value_or(1.0)));
  if (!reference) {
    return Verdict::of(VerdictKind::no_reference, no_reference_why);
  } else if (!row.value) {
    return Verdict::of(VerdictKind::not_confirmed,
                       (row.flag.empty() ? std::string("no value") : row.flag));
  } else if (row.flagged) {
    return Verdict::of(VerdictKind::not_confirmed,
                       "the discretization estimate " + scientific_text(*row.discretization, 2) +
                           " is not below 1% of the tolerance " + scientific_text(tolerance, 2) +
                           "; tighten rtol/atol");
  } else if (std::abs(*row.error) <= tolerance) {
    return Verdict::of(VerdictKind::confirmed, "error " + scientific_text(std::abs(*row.error), 2) +
                                                   " against the reference (" + "tolerance " +
                                                   scientific_text(tolerance, 2) +
                                                   ", discretization estimate " +
                                                   scientific_text(*row.discretization, 2) + ")");
  } else {
    return Verdict::of(VerdictKind::not_confirmed,
                       "error " + scientific_text(std::abs(*row.error), 2) +
                           " exceeds the tolerance " + scientific_text(tolerance, 2));
  }
}

// Where the local orders of the two finest trusted rows agree with the theory's while the
// least-squares fit does not, the coarse rows are not yet asymptotic: the advice says so ("" where
// they do not agree).
std::string finest_orders_advice(const LadderAnalysis& out, const LadderRules& rules,
                                 const std::string& name) {
  const std::optional<double>& expected_order = out.expected_order;
  const bool N_axis = out.axis == LadderAxis::N;
  if (!expected_order) return "";
  std::vector<double> finest;
  for (auto row = out.rows.rbegin(); row != out.rows.rend() && finest.size() < 2; ++row) {
    if (!row->flagged && row->local_order) finest.push_back(*row->local_order);
  }
  if (finest.size() < 2) return "";
  const bool settled_elsewhere = std::abs(finest[0] - finest[1]) <= 0.5 * rules.order_tolerance &&
                                 std::all_of(finest.begin(), finest.end(), [&](double p) {
                                   return std::abs(p - *expected_order) > rules.order_tolerance;
                                 });
  if (settled_elsewhere) {
    return "; the local orders of the two finest trusted rows (" + fixed_text(finest[1], 3) + ", " +
           fixed_text(finest[0], 3) +
           ") agree with each other, not with it: a longer ladder would not change the verdict, "
           "and the stated order may not be this ladder's (docs/theory.md section 3)";
  }
  if (!std::all_of(finest.begin(), finest.end(), [&](double p) {
        return std::abs(p - *expected_order) <= rules.order_tolerance;
      })) {
    return "";
  }
  return "; the local orders of the two finest trusted rows (" + fixed_text(finest[1], 3) + ", " +
         fixed_text(finest[0], 3) +
         ") agree with it: the coarse rows are not yet asymptotic, and a ladder that starts at "
         "a " +
         (N_axis ? std::string("larger N (verify --from, a study model's N_min)")
                 : "smaller " + name + " (verify --from, the model's ladder.from)") +
         " would decide it";
}

// " of the error over ln N" (or (ln N)^k, ln(1/h)) where the law carries a logarithm; "" otherwise.
std::string log_factor_text(LadderAxis axis, int log_power, const std::string& name) {
  if (log_power == 0) return "";
  const std::string log = axis == LadderAxis::N ? "ln " + name : "ln(1/" + name + ")";
  return " of the error over " +
         (log_power == 1 ? log : "(" + log + ")^" + std::to_string(log_power));
}

// " from N = 1e8 (fit_from: the coarser rows are tabled, not fitted)" where the rules start the
// fits at a rung; "" otherwise.
std::string fit_from_text(const LadderAnalysis& out, const std::string& name) {
  if (!out.fit_from) return "";
  return " from " + name + " = " + N_label(*out.fit_from) +
         " (fit_from: the coarser rows are tabled, not fitted)";
}

// The verdict on a ladder of deviations from the reference motion, which tend to 0: nothing to
// extrapolate; the ladder confirms the theory's order.
Verdict deviation_verdict(const LadderAnalysis& out, const LadderRules& rules,
                          const std::string& name) {
  const std::optional<double>& expected_order = out.expected_order;
  const std::string order =
      "fitted order " + (out.fitted_order ? fixed_text(*out.fitted_order, 3) : std::string("-")) +
      log_factor_text(out.axis, out.log_power, name) + fit_from_text(out, name);
  if (!expected_order) {
    return Verdict::of(VerdictKind::no_rate_stated, order + " (the theory states none)");
  } else if (out.points_in_fit < 3) {
    return Verdict::of(
        VerdictKind::not_confirmed,
        std::to_string(out.points_in_fit) + " trusted rows (" + std::to_string(out.flagged_rows) +
            " flagged); the fit needs 3: a longer ladder or tighter tolerances would "
            "decide it");
  } else if (!out.order_agrees || !*out.order_agrees) {
    return Verdict::of(VerdictKind::not_confirmed,
                       order + " differs from the theory's " + format_number(*expected_order) +
                           " by more than " + format_number(rules.order_tolerance) +
                           finest_orders_advice(out, rules, name));
  } else {
    return Verdict::of(VerdictKind::confirmed,
                       order + " agrees with the theory's " + format_number(*expected_order) +
                           " over " + std::to_string(out.points_in_fit) + " trusted rows (" +
                           std::to_string(out.flagged_rows) + " flagged, left out)");
  }
}

// The extrapolation of the trusted tail of the ladder: rows up to the finest trusted one, all of
// them trusted (a flagged row in the middle ends the tail there); the digits it agrees with the
// reference to and the digits its error bar supports.
void extrapolate_tail(LadderAnalysis& out, std::optional<double> reference,
                      const LadderRules& rules, const std::string& parameter) {
  std::size_t end = out.rows.size();
  while (end > 0 && out.rows[end - 1].flagged) --end;
  std::size_t begin = end;
  while (begin > 0 && out.rows[begin - 1].rung && !out.rows[begin - 1].flagged &&
         !out.rows[begin - 1].before_fit) {
    --begin;
  }
  std::vector<double> rungs, values, discretization;
  for (std::size_t i = begin; i < end; ++i) {
    rungs.push_back(*out.rows[i].rung);
    values.push_back(*out.rows[i].value);
    discretization.push_back(*out.rows[i].discretization);
  }
  out.extrapolation = extrapolate(rungs, values, discretization, rules, out.axis, parameter);
  const Extrapolated& x = out.extrapolation;
  if (reference && x.limit) out.digits_of_agreement = digits_of(*x.limit - *reference, *reference);
  if (reference && x.uncertainty) out.digits_supported = digits_of(*x.uncertainty, *reference);
}

// Where the bar falls like N^-p, the finest N at which it would support the required digits:
// beyond the realization's range a longer N ladder cannot decide (a slow order such as the
// obstacle's 1/3 needs N^3 for every further digit); then the advice says so instead.
std::optional<std::string> reach_advice(const LadderAnalysis& out, const LadderRules& rules) {
  const Extrapolated& x = out.extrapolation;
  if (!x.finest_rung || !out.expected_order || !out.digits_supported) return std::nullopt;
  const double decades = (rules.digits - *out.digits_supported) / *out.expected_order;
  const double needed = *x.finest_rung * std::pow(10.0, decades);
  if (needed <= kMaxRealizationN) return std::nullopt;
  return "; at order " + fixed_text(*out.expected_order, 3) + " the bar would support " +
         format_number(rules.digits) + " digits only near N = " + scientific_text(needed, 1) +
         ", past the realization's range (N <= " + format_number(kMaxRealizationN) +
         "): a longer ladder cannot decide it; fewer digits (verify --digits, a study's digits) "
         "can";
}

// The verdict on an extrapolated ladder: the order, then the reference within the error bar,
// then the digits that bar supports; advice only where it can help.
Verdict extrapolated_verdict(const LadderAnalysis& out, std::optional<double> reference,
                             const LadderRules& rules, const std::string& no_reference_why,
                             const std::string& name) {
  const std::optional<double>& expected_order = out.expected_order;
  const Extrapolated& x = out.extrapolation;
  const bool N_axis = out.axis == LadderAxis::N;
  const std::string fitted =
      "fitted order " + (out.fitted_order ? fixed_text(*out.fitted_order, 3) : std::string("-")) +
      fit_from_text(out, name);
  const std::string order_text =
      out.fixed_N ? "the errors tend to the model's own error at N = " + N_label(*out.fixed_N) +
                        " as " + name +
                        " falls, not to 0 (the reference is the limit N -> "
                        "infinity): no rate in " +
                        name
      : out.floor ? "the errors settle on a floor as " + name + " falls (" + fitted + ", no rate)"
                  : fitted;
  const std::string finest_text =
      x.finest_rung ? " (finest " + name + " used " + N_label(*x.finest_rung) + ")" : std::string();
  // "limit L +/- U (finest N used X)", or "limit L (finest N used X)" without a bar.
  const std::string limit_text =
      x.limit ? "limit " + full_text(*x.limit) +
                    (x.uncertainty ? " +/- " + scientific_text(*x.uncertainty, 2) : std::string()) +
                    finest_text
              : std::string();
  const std::string no_bar = " has no error bar: " + x.no_uncertainty_reason;
  // Advice only where it can help: finer N cannot help when the finest rows are flagged (their
  // discretization or round-off is not far below the model error, and it grows relative to it
  // as N grows); a finer h or rtol cannot help when the reference or round-off is reached.
  const bool finest_flagged = !out.rows.empty() && out.rows.back().flagged;
  const std::string finer = N_axis ? "finer N" : "smaller " + name;
  const std::string more =
      !finest_flagged
          ? "; a longer ladder (" + finer + ") or more points per decade would decide it"
      : N_axis
          ? "; the finest rows are flagged (their discretization or round-off is not below 1% of "
            "the model error, and finer N makes that worse): tighter tolerances, not a longer "
            "ladder, would decide it"
          : "; the finest rows are flagged (the reference's error or round-off is not below 1% of "
            "their error): a more accurate reference, not a longer ladder, would decide it";
  if (!reference) {
    return Verdict::of(VerdictKind::no_reference, no_reference_why);
  } else if (!expected_order) {
    return Verdict::of(VerdictKind::no_rate_stated,
                       order_text + " (the theory states none); " +
                           (x.limit ? "the " + limit_text + (x.uncertainty ? "" : no_bar)
                                    : "no extrapolated limit: " + x.no_uncertainty_reason));
  } else if (!x.limit) {
    return Verdict::of(VerdictKind::not_confirmed, x.no_uncertainty_reason + more);
  } else if (!out.order_agrees || !*out.order_agrees) {
    const std::string advice = finest_orders_advice(out, rules, name);
    return Verdict::of(VerdictKind::not_confirmed,
                       order_text + " differs from the theory's " + format_number(*expected_order) +
                           " by more than " + format_number(rules.order_tolerance) +
                           (advice.empty() ? more : advice));
  } else if (!x.uncertainty) {
    return Verdict::of(VerdictKind::not_confirmed, order_text + " agrees with the theory's " +
                                                       format_number(*expected_order) +
                                                       ", but the " + limit_text + no_bar + more);
  }
  // The bar widened by the reference's own error, said only where the widening decides.
  const double distance = std::abs(*x.limit - *reference);
  const double reference_error = out.reference_error.value_or(0.0);
  const std::string widened =
      distance > *x.uncertainty
          ? " widened by the reference's own error estimate " + scientific_text(reference_error, 2)
          : std::string();
  if (distance > *x.uncertainty + reference_error) {
    return Verdict::of(VerdictKind::not_confirmed,
                       "the reference " + full_text(*reference) + " lies outside the " +
                           limit_text + " (distance " + scientific_text(distance, 2) +
                           (reference_error > 0.0 ? "; the reference's own error estimate " +
                                                        scientific_text(reference_error, 2)
                                                  : std::string()) +
                           "): the ladder contradicts the reference");
  } else if (*out.digits_supported < rules.digits) {
    return Verdict::of(VerdictKind::not_confirmed,
                       order_text + " agrees with the theory's " + format_number(*expected_order) +
                           " and the reference lies within the " + limit_text + widened +
                           ", but that error bar supports only " +
                           fixed_text(*out.digits_supported, 1) + " digits of the " +
                           format_number(rules.digits) + " required" +
                           (N_axis ? reach_advice(out, rules).value_or(more) : more));
  } else {
    return Verdict::of(VerdictKind::confirmed,
                       order_text + " agrees with the theory's " + format_number(*expected_order) +
                           "; the reference lies within the " + limit_text + widened +
                           ", which supports " + fixed_text(*out.digits_supported, 1) +
                           " digits (agreement " + fixed_text(*out.digits_of_agreement, 1) +
                           " digits)");
  }
}

}  // namespace

// Whether every row of a step ladder has an error within 1e-3 h of its step h or below 1e-3 h, and
// at least two within 1e-3 h of h: the signature of an event found at the first step that
// sees it, whose error is h or 0 by where the step ends in floating point.
bool step_granular(const std::vector<LadderRow>& rows) {
  int at_step = 0;
  for (const LadderRow& row : rows) {
    if (!row.rung || !row.error) return false;
    const double h = *row.rung, e = std::abs(*row.error);
    if (std::abs(e - h) <= 1e-3 * h) {
      ++at_step;
    } else if (e > 1e-3 * h) {
      return false;
    }
  }
  return at_step >= 2;
}

LadderAnalysis analyse_ladder(const std::vector<LadderInput>& inputs,
                              std::optional<double> reference, std::optional<double> expected_order,
                              bool extrapolate_limit, const LadderRules& rules,
                              const std::string& no_reference_why, LadderAxis axis,
                              const std::string& parameter, std::optional<double> reference_error,
                              std::optional<double> fixed_N) {
  LadderAnalysis out;
  out.axis = axis;
  out.expected_order = expected_order;
  out.reference_error = reference_error;
  out.log_power = rules.log_power;
  out.fit_from = rules.fit_from;
  // The orders of error / (ln resolution)^k where the law carries a logarithm (LadderRules).
  const auto scaled = [&](double res, double error) {
    return rules.log_power == 0 ? error : error / std::pow(std::log(res), rules.log_power);
  };
  extrapolate_limit = extrapolate_limit && rules.log_power == 0;
  std::vector<double> fit_resolution, fit_error;
  std::optional<double> previous_resolution, previous_error;
  bool has_rung = false;
  for (const LadderInput& in : inputs) {
    LadderRow row = ladder_row(in, reference, rules);
    row.before_fit = row.rung && rules.fit_from &&
                     resolution(axis, *row.rung) < resolution(axis, *rules.fit_from) * (1.0 - 1e-9);
    has_rung = has_rung || in.rung.has_value();
    out.flagged_rows += row.flagged ? 1 : 0;
    if (row.rung && previous_resolution && row.error && previous_error) {
      row.local_order =
          local_order(*previous_resolution, scaled(*previous_resolution, *previous_error),
                      resolution(axis, *row.rung), scaled(resolution(axis, *row.rung), *row.error));
    }
    if (row.rung) {
      previous_resolution = resolution(axis, *row.rung);
      previous_error = row.error;
      if (!row.flagged && !row.before_fit && *row.error != 0.0) {
        fit_resolution.push_back(resolution(axis, *row.rung));
        fit_error.push_back(scaled(fit_resolution.back(), *row.error));
      }
    }
    out.rows.push_back(row);
  }
  out.points_in_fit = static_cast<int>(fit_resolution.size());
  if (axis == LadderAxis::h && !expected_order && step_granular(out.rows)) {
    out.bounded_by_step = true;
    out.verdict =
        Verdict::of(VerdictKind::no_rate_stated,
                    "every error is within 1e-3 h of the step h or of 0 (an event resolved "
                    "only to the step it falls in): a bound by h, not a power law; no order "
                    "or limit is fitted");
    return out;
  }
  if (const auto slope = log_log_slope(fit_resolution, fit_error); has_rung && slope) {
    out.fitted_order = -*slope;
  }
  // A realization at a fixed N tends as h → 0 to its own lift-off at that N, not to the limit's:
  // its errors against the limit approach that N's error, whatever their slope on the way.
  if (axis == LadderAxis::h && !expected_order) out.fixed_N = fixed_N;
  out.floor = axis == LadderAxis::h && !expected_order && out.fitted_order &&
              (out.fixed_N || std::abs(*out.fitted_order) < 0.05);
  if (expected_order && out.fitted_order) {
    out.order_agrees = std::abs(*out.fitted_order - *expected_order) <= rules.order_tolerance;
  }
  const std::string name = axis_name(axis, parameter);

  if (!has_rung) {
    if (!out.rows.empty()) {
      out.verdict = ideal_verdict(out.rows.front(), reference, rules, no_reference_why);
    }
    return out;
  }
  if (!extrapolate_limit) {
    out.verdict = deviation_verdict(out, rules, name);
    return out;
  }
  extrapolate_tail(out, reference, rules, parameter);
  // The fixed N's own limit as h → 0 is shown only where the ladder bounds it.
  if (out.fixed_N && !out.extrapolation.uncertainty) {
    out.extrapolation.limit.reset();
    out.digits_of_agreement.reset();
  }
  out.verdict = extrapolated_verdict(out, reference, rules, no_reference_why, name);
  return out;
}

}  // namespace crbench

namespace crbench {

CoefficientFit fit_coefficients(const LadderAnalysis& analysis, double order,
                                const std::vector<double>& expected,
                                const std::vector<double>& powers) {
  CoefficientFit out;
  out.expected = expected;
  const std::size_t k = expected.size();
  // The trusted rows with an error, finest first: x = 1/resolution (N^-1, h, rtol or the
  // parameter), e the error, d its discretization estimate.
  std::vector<double> x, e, d;
  for (auto row = analysis.rows.rbegin(); row != analysis.rows.rend(); ++row) {
    if (row->flagged || row->before_fit || !row->rung || !row->error) continue;
    x.push_back(1.0 / resolution(analysis.axis, *row->rung));
    e.push_back(*row->error);
    d.push_back(row->discretization.value_or(0.0) + 4.0 * kEpsilon * std::abs(*row->value));
  }
  if (k == 0) return out;
  if (x.size() < k + 1) {
    out.text = "no coefficients: " + std::to_string(x.size()) + " trusted rows, " +
               std::to_string(k) + " coefficients and their error bars need " +
               std::to_string(k + 1);
    return out;
  }
  // Term j's function of x: x^power L^(log power), L = ln 1/x; with a logarithm of power m in the
  // law, terms 0 … m share the order p and carry L^m … L^0.
  const auto m = static_cast<std::size_t>(analysis.log_power);
  const auto term = [&](double xi, std::size_t j) {
    const double power = j < powers.size() ? powers[j]
                         : j <= m          ? order
                                           : order * static_cast<double>(j - m + 1);
    const int log_power = j <= m ? static_cast<int>(m - j) : 0;
    return std::pow(xi, power) * std::pow(std::log(1.0 / xi), log_power);
  };
  // The coefficients through the rows first … first + k − 1, and the sensitivity of each to
  // each row's error (the inverse of the power matrix).
  const auto solve = [&](std::size_t first, Eigen::MatrixXd& inverse) {
    Eigen::MatrixXd matrix(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(k));
    Eigen::VectorXd errors(static_cast<Eigen::Index>(k));
    for (std::size_t i = 0; i < k; ++i) {
      for (std::size_t j = 0; j < k; ++j) {
        matrix(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = term(x[first + i], j);
      }
      errors(static_cast<Eigen::Index>(i)) = e[first + i];
    }
    inverse = matrix.inverse();
    return Eigen::VectorXd(inverse * errors);
  };
  Eigen::MatrixXd inverse, inverse_coarser;
  const Eigen::VectorXd fine = solve(0, inverse);
  const Eigen::VectorXd coarser = solve(1, inverse_coarser);
  out.agrees = true;
  for (std::size_t j = 0; j < k; ++j) {
    const auto J = static_cast<Eigen::Index>(j);
    double propagated = 0.0;
    for (std::size_t i = 0; i < k; ++i) {
      propagated += std::abs(inverse(J, static_cast<Eigen::Index>(i))) * d[i];
    }
    out.fitted.push_back(fine(J));
    out.uncertainty.push_back(std::abs(fine(J) - coarser(J)) + 2.0 * propagated);
    // A coefficient the theory does not state (NaN) is fitted, shown and not judged.
    const bool stated = !std::isnan(expected[j]);
    const bool agrees = !stated || std::abs(fine(J) - expected[j]) <= out.uncertainty.back();
    out.agrees = out.agrees && agrees;
    out.text += (j == 0 ? "" : "; ") + std::string("a") + std::to_string(j + 1) + " = " +
                format_number(fine(J)) + " +/- " + scientific_text(out.uncertainty.back(), 1) +
                (stated ? " (theory " + format_number(expected[j]) +
                              (agrees ? "" : ", outside the bar") + ")"
                        : std::string(" (the theory states none)"));
  }
  return out;
}

}  // namespace crbench
