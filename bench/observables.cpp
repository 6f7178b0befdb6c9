#include "crbench/bench/observables.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>

namespace crbench {

namespace {

// The window of the z observables: the first contact episode's constraint k and [start, end),
// end the first zero of z_k after the start (or the episode's end, or +inf).
struct ZWindow {
  int constraint = -1;
  double start = 0.0;
  double end = std::numeric_limits<double>::infinity();
};
std::optional<ZWindow> z_window(const GridRun& run) {
  if (run.z.empty() || run.record.contact_episodes.empty()) return std::nullopt;
  const ContactEpisode& first = run.record.contact_episodes.front();
  ZWindow w{.constraint = first.constraint, .start = first.start};
  if (first.end) w.end = *first.end;
  for (const Event& e : run.record.events) {
    if (e.kind == EventKind::z_zero && e.index == first.constraint && e.t >= first.start) {
      w.end = std::min(w.end, e.t);
      break;
    }
  }
  if (w.constraint < 0 || w.constraint >= run.z.front().size()) return std::nullopt;
  return w;
}

// α, β, γ of a limit run whose model is (α, 0, γ) with α, γ > 0.
struct SpringModel {
  double alpha, gamma;
};
std::optional<SpringModel> spring_model(const RunRecord& r) {
  const auto get = [&](const char* name) {
    const auto it = r.solver_params.find(name);
    return it == r.solver_params.end() ? std::nan("") : it->second;
  };
  const double alpha = get("alpha"), beta = get("beta"), gamma = get("gamma");
  if (r.solver != "limit" || !(alpha > 0.0) || beta != 0.0 || !(gamma > 0.0)) return std::nullopt;
  return SpringModel{alpha, gamma};
}

// ∫ from t_i to t_i + θδ of the cubic through (t_{i−1..i+2}, f_{i−1..i+2}) on a uniform grid of
// spacing δ, θ in [0, 1]: the Lagrange basis integrated (θ = 1 gives δ(−f₋₁ + 13f₀ + 13f₁ −
// f₂)/24).
double cubic_partial_integral(const double* f, double theta, double delta) {
  const double t = theta, t2 = t * t, t3 = t2 * t, t4 = t3 * t;
  const double w_minus = -(t4 / 4.0 - t3 + t2) / 6.0;
  const double w0 = (t4 / 4.0 - 2.0 * t3 / 3.0 - t2 / 2.0 + 2.0 * t) / 2.0;
  const double w1 = -(t4 / 4.0 - t3 / 3.0 - t2) / 2.0;
  const double w2 = (t4 / 4.0 - t2 / 2.0) / 6.0;
  return delta * (w_minus * f[-1] + w0 * f[0] + w1 * f[1] + w2 * f[2]);
}

}  // namespace

std::vector<double> first_contact_z(const GridRun& run) {
  const auto w = z_window(run);
  if (!w) return {};
  std::vector<double> out(run.t.size(), std::nan(""));
  for (std::size_t i = 0; i < run.t.size() && i < run.z.size(); ++i) {
    if (run.t[i] >= w->start && run.t[i] < w->end) out[i] = run.z[i](w->constraint);
  }
  return out;
}

std::optional<double> z_deviation(const GridRun& run, const std::vector<double>& reference_z) {
  const std::vector<double> z = first_contact_z(run);
  if (z.empty() || z.size() != reference_z.size()) return std::nullopt;
  std::optional<double> worst;
  for (std::size_t i = 0; i < z.size(); ++i) {
    if (std::isnan(z[i]) || std::isnan(reference_z[i])) continue;
    worst = std::max(worst.value_or(0.0), std::abs(z[i] - reference_z[i]));
  }
  return worst;
}

std::vector<double> deviation_by_coordinate(const std::vector<Eigen::VectorXd>& x,
                                            const std::vector<Eigen::VectorXd>& reference,
                                            const std::string& mode) {
  if (x.empty() || x.size() != reference.size()) return {};
  const Eigen::Index n = x.front().size();
  Eigen::VectorXd out = Eigen::VectorXd::Zero(n);
  if (mode == "final") {
    out = (x.back() - reference.back()).cwiseAbs();
  } else {
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (x[i].size() != n || reference[i].size() != n) return {};
      const Eigen::VectorXd d = (x[i] - reference[i]).cwiseAbs();
      out = mode == "l2" ? Eigen::VectorXd(out + d.cwiseAbs2()) : Eigen::VectorXd(out.cwiseMax(d));
    }
    if (mode == "l2") out = (out / static_cast<double>(x.size())).cwiseSqrt();
  }
  return std::vector<double>(out.data(), out.data() + out.size());
}

std::vector<double> per_coordinate(const GridDeviation& d, const GridRun& run,
                                   const std::vector<Eigen::VectorXd>& reference_q,
                                   const std::vector<Eigen::VectorXd>& reference_v) {
  return d.velocity ? deviation_by_coordinate(run.v, reference_v, d.mode)
                    : deviation_by_coordinate(run.q, reference_q, d.mode);
}

namespace {

// --- Measures (docs/theory.md §5) ---

std::optional<double> lift_off_time(const Observation& x) {
  return lift_off_of(x.run.record, x.constraint);
}

// Whether constraint k counts: every one without a selection, else the selected one.
bool counts(const Observation& x, int k) { return !x.constraint || *x.constraint == k; }

// The deviations from the reference motion: the largest coordinate's (max, final: the sup norm)
// or the Euclidean norm of the coordinates' root mean squares (l2).
template <const char* Mode, bool Velocity>
std::optional<double> grid_deviation(const Observation& x) {
  const std::vector<double> each =
      per_coordinate(GridDeviation{Mode, Velocity}, x.run, x.reference_q, x.reference_v);
  if (each.empty()) return std::nullopt;
  if (std::string_view(Mode) == "l2") {
    double sum = 0.0;
    for (const double d : each) sum += d * d;
    return std::sqrt(sum);
  }
  return *std::max_element(each.begin(), each.end());
}
constexpr char kMax[] = "max";
constexpr char kFinal[] = "final";
constexpr char kL2[] = "l2";

// The row of a grid deviation: its mode and velocity flag stated once, for the row and its
// measure.
template <const char* Mode, bool Velocity>
ObservableSpec grid_row(std::string_view name, bool by_default, std::string_view caption,
                        std::string (*unit)(const Model&)) {
  return {name,  ObservableClass::tends_to_zero, by_default,
          false, GridDeviation{Mode, Velocity},  caption,
          unit,  grid_deviation<Mode, Velocity>};
}

// Max over the unilateral constraints of max(0, −min f) over every step.
std::optional<double> penetration_depth(const Observation& x) {
  std::optional<double> depth;
  for (int k = 0; k < x.model.constraint_count(); ++k) {
    if (x.model.is_bilateral(k) || !counts(x, k) ||
        k >= static_cast<int>(x.run.record.min_constraint.size())) {
      continue;
    }
    const double f = x.run.record.min_constraint[static_cast<std::size_t>(k)];
    depth = std::max(depth.value_or(0.0), std::max(0.0, -f));
  }
  return depth;
}

// ḟ just after the first impact (event-driven, moreau-jean, the limit) or at the first exit from
// the medium (the realization), whichever comes first.
std::optional<double> post_impact_velocity(const Observation& x) {
  for (const Event& e : x.run.record.events) {
    if ((e.kind == EventKind::impact || e.kind == EventKind::exit_medium) && e.rate_after &&
        counts(x, e.index)) {
      return e.rate_after;
    }
  }
  return std::nullopt;
}

// Max over the grid of |E(t) − E(t0)|, E = T + V of the case (a medium's energy is not part of
// it; impacts with restitution below 1 and dampers lose energy by design).
std::optional<double> energy_drift(const Observation& x) {
  const GridRun& run = x.run;
  if (run.q.empty() || run.v.size() != run.q.size()) return std::nullopt;
  const auto energy = [&](std::size_t i) {
    return x.model.energy(State{.t = run.t[i], .q = run.q[i], .v = run.v[i]});
  };
  const double start = energy(0);
  double drift = 0.0;
  for (std::size_t i = 1; i < run.q.size(); ++i)
    drift = std::max(drift, std::abs(energy(i) - start));
  return drift;
}

// Max over the grid of |a q' + b| over the kinematic rows that always hold (a one-sided row
// counts only its violation, max(0, −(a q' + b)); rows conditioned on a contact are left out),
// nullopt without such rows.
std::optional<double> kinematic_drift(const Observation& x) {
  const GridRun& run = x.run;
  std::optional<double> drift;
  Eigen::MatrixXd a;
  Eigen::VectorXd b;
  for (std::size_t i = 0; i < run.q.size() && i < run.v.size(); ++i) {
    x.model.kinematic_affine(run.t[i], run.q[i], a, b);
    for (int r = 0; r < x.model.kinematic_count(); ++r) {
      if (x.model.kinematic_condition(r) >= 0) continue;
      const double g = a.row(r).dot(run.v[i]) + b(r);
      const double violation = x.model.is_unilateral_kinematic(r) ? std::max(0.0, -g) : std::abs(g);
      drift = std::max(drift.value_or(0.0), violation);
    }
  }
  return drift;
}

// The largest over the constraints of |∫λ_k dt + Σ P_k| over the run
// (RunRecord::constraint_impulse), nullopt for a case without constraints f.
std::optional<double> total_impulse(const Observation& x) {
  std::optional<double> largest;
  const std::vector<double>& impulse = x.run.record.constraint_impulse;
  for (std::size_t k = 0; k < impulse.size(); ++k) {
    if (counts(x, static_cast<int>(k)))
      largest = std::max(largest.value_or(0.0), std::abs(impulse[k]));
  }
  return largest;
}

// The time of the first zero of z (of any constraint), or nullopt.
std::optional<double> z_first_zero(const Observation& x) {
  for (const Event& e : x.run.record.events) {
    if (e.kind == EventKind::z_zero) return e.t;
  }
  return std::nullopt;
}

std::optional<double> z_deviation_measure(const Observation& x) {
  return z_deviation(x.run, x.reference_z);
}

// The limit model (α, 0, γ), α, γ > 0, ν = √(α/γ), along the window of the first contact:
// the remainder of Deryabin & Kozlov 1995 (4.2), O(ν) (Oscillation), or the deviation of the
// period average (4.3), O(ν²) (Average).
enum class ZSpring { oscillation, average };
template <ZSpring Kind>
std::optional<double> z_spring(const Observation& x) {
  const GridRun& run = x.run;
  const auto spring = spring_model(run.record);
  const auto w = z_window(run);
  if (!spring || !w || run.t.empty() || run.t.front() != w->start ||
      run.lambda.size() != run.t.size()) {
    return std::nullopt;
  }
  const auto k = static_cast<Eigen::Index>(w->constraint);
  const double nu = std::sqrt(spring->alpha / spring->gamma);
  const double lambda0 = run.lambda.front()(k);
  std::size_t end = 0;  // one past the window's last grid point
  while (end < run.t.size() && run.t[end] < w->end) ++end;
  if constexpr (Kind == ZSpring::oscillation) {
    // Max over the window's grid points of |z(t) − (λ(t0) cos((t − t0)/ν) − λ(t))/γ|.
    std::optional<double> worst;
    for (std::size_t i = 0; i < end; ++i) {
      const double form =
          (lambda0 * std::cos((run.t[i] - w->start) / nu) - run.lambda[i](k)) / spring->gamma;
      worst = std::max(worst.value_or(0.0), std::abs(run.z[i](k) - form));
    }
    return worst;
  } else {
    // Max over the grid points t whose fast period [t − πν, t + πν] lies inside the window of
    // |⟨z⟩(t) + λ(t)/γ|, ⟨z⟩ the average of z over that period. The period average on the uniform
    // output grid: the integral of the cubic interpolant from the window's first grid point,
    // C(t) = ∫ z, at any t whose cubic has its four points inside (accurate to O(δ⁴) in the
    // spacing δ).
    if (end < 6) return std::nullopt;
    const double delta = (run.t[end - 1] - run.t[0]) / static_cast<double>(end - 1);
    std::vector<double> z(end), cumulative(end, 0.0);
    for (std::size_t i = 0; i < end; ++i) z[i] = run.z[i](k);
    for (std::size_t i = 1; i + 2 < end; ++i) {
      cumulative[i + 1] = cumulative[i] + cubic_partial_integral(&z[i], 1.0, delta);
    }
    // C at t, for t in [t_1, t_{end−2}]: its cell i and the fraction θ.
    const auto integral_to = [&](double t) {
      const double position = (t - run.t[0]) / delta;
      auto i = static_cast<std::size_t>(std::floor(position));
      i = std::clamp<std::size_t>(i, 1, end - 3);
      const double theta = position - static_cast<double>(i);
      return cumulative[i] + cubic_partial_integral(&z[i], theta, delta);
    };
    const double half = std::numbers::pi * nu;
    std::optional<double> worst;
    for (std::size_t i = 1; i + 2 < end; ++i) {
      const double from = run.t[i] - half, to = run.t[i] + half;
      if (from < run.t[1] || to > run.t[end - 2]) continue;
      const double average = (integral_to(to) - integral_to(from)) / (to - from);
      worst = std::max(worst.value_or(0.0), std::abs(average + run.lambda[i](k) / spring->gamma));
    }
    return worst;
  }
}

// The start of the first contact episode that begins after the run's start (the first impact of
// a body that starts leaving the constraint: one period of an oscillation with impacts).
std::optional<double> first_contact_time(const Observation& x) {
  const double t0 = x.run.t.empty() ? x.run.record.final_state.t : x.run.t.front();
  for (const ContactEpisode& e : x.run.record.contact_episodes) {
    if (e.start > t0 && counts(x, e.constraint)) return e.start;
  }
  return std::nullopt;
}

// The end of the first contact episode that ends within the run: a release, whether of a
// sustained contact (a lift-off, an exit from the medium) or of an impact (an episode of zero
// duration in the ideal models); none where the solver withholds its lift-offs.
std::optional<double> first_lift_off_time(const Observation& x) {
  const RunRecord& record = x.run.record;
  if (record.lift_offs_withheld) return std::nullopt;
  std::optional<double> first;
  for (const ContactEpisode& e : record.contact_episodes) {
    if (e.end && counts(x, e.constraint) && !(first && *first <= *e.end)) first = e.end;
  }
  return first;
}

// --- Units ---

// The distinct non-empty units, joined by "; ".
std::string distinct(const std::vector<std::string>& units) {
  std::string out;
  std::vector<std::string> seen;
  for (const auto& u : units) {
    if (u.empty() || std::find(seen.begin(), seen.end(), u) != seen.end()) continue;
    seen.push_back(u);
    if (!out.empty()) out.append("; ");
    out.append(u);
  }
  return out;
}
std::string time_unit(const Model&) { return "time"; }
// z = lim N f has the unit of λ over that of γ, which the cases do not state; a kinematic row's
// a q' + b has none either.
std::string no_unit(const Model&) { return ""; }
std::string energy_unit(const Model&) { return "energy"; }
std::string coordinate_units(const Model& model) {
  std::vector<std::string> units;
  for (int i = 0; i < model.dof(); ++i) units.push_back(model.coordinate_unit(i));
  return distinct(units);
}
std::string velocity_units(const Model& model) {
  std::vector<std::string> units;
  for (int i = 0; i < model.dof(); ++i) {
    const std::string u = model.coordinate_unit(i);
    units.push_back(u.empty() ? u : u + "/time");
  }
  return distinct(units);
}
std::string constraint_units(const Model& model) {
  std::vector<std::string> units;
  for (int k = 0; k < model.constraint_count(); ++k) {
    if (!model.is_bilateral(k)) units.push_back(model.constraint_unit(k));
  }
  return distinct(units);
}
std::string constraint_rate_units(const Model& model) {
  std::string f = constraint_units(model);
  if (!f.empty()) f.append("/time");
  return f;
}
// λ f is an energy: the impulse of λ is energy·time per unit of f, a momentum for a length.
std::string impulse_units(const Model& model) {
  std::vector<std::string> units;
  for (int k = 0; k < model.constraint_count(); ++k) {
    const std::string u = model.constraint_unit(k);
    units.push_back(u == "length" ? std::string("momentum") : u.empty() ? u : "energy*time/" + u);
  }
  return distinct(units);
}

using C = ObservableClass;
const std::vector<ObservableSpec> kObservables{
    {kLiftOffTime, C::limit_value, true, true, std::nullopt,
     "error = value - reference lift-off; lift-off: the end of the last contact episode", time_unit,
     lift_off_time},
    grid_row<kMax, false>(
        kMaxQDeviation, true,
        "the largest sup-norm distance of q from the reference motion over a {samples}-point grid "
        "of the horizon",
        coordinate_units),
    grid_row<kFinal, false>(
        kFinalQDeviation, true,
        "the sup-norm distance of q from the reference motion at the end of the horizon",
        coordinate_units),
    grid_row<kL2, false>(
        "l2_q_deviation", false,
        "the root mean square over the grid of the Euclidean distance of q from the reference "
        "motion; per coordinate in the JSON rows",
        coordinate_units),
    grid_row<kFinal, true>(
        "final_v_deviation", false,
        "the sup-norm distance of q' from the reference run's at the end of the horizon; a closed "
        "form gives no q'",
        velocity_units),
    {kPenetrationDepth, C::reference_order, false, true, std::nullopt,
     "the largest depth max(0, -f) below a unilateral constraint over every step; reference: 0 "
     "for the ideal model, else the reference run's",
     constraint_units, penetration_depth},
    {"post_impact_velocity", C::limit_value, false, true, std::nullopt,
     "the constraint rate f' just after the first impact, or at the first exit from the medium; "
     "error = value - the reference run's",
     constraint_rate_units, post_impact_velocity},
    {"energy_drift", C::limit_value, false, false, std::nullopt,
     "max over the grid of |E(t) - E(t0)|, E = T + V of the case without a medium's energy: "
     "impacts with restitution below 1 and dampers lose energy by design; error = value - the "
     "reference run's",
     energy_unit, energy_drift},
    {"kinematic_drift", C::tends_to_zero, false, false, std::nullopt,
     "max over the grid of |a q' + b| over the kinematic rows that always hold; a one-sided row "
     "counts its violation only",
     no_unit, kinematic_drift},
    {"total_impulse", C::limit_value, false, true, std::nullopt,
     "the largest over the constraints of |integral of lambda_k dt + impact impulses P_k| over "
     "the run, per constraint in each record's constraint_impulse; error = value - the "
     "reference run's",
     impulse_units, total_impulse},
    {"z_first_zero", C::limit_value, false, false, std::nullopt,
     "the limit model's first zero of z, of any constraint; error = value - the reference",
     time_unit, z_first_zero},
    {"z_deviation", C::tends_to_zero, false, false, std::nullopt,
     "max over the grid of |z - z_ref| along the first contact, before the first zero of z in "
     "either run",
     no_unit, z_deviation_measure},
    {"z_oscillation_remainder", C::tends_to_zero, false, false, std::nullopt,
     "max over the grid, along the first contact before the first zero of z, of |z(t) - "
     "(lambda(t0) cos((t - t0)/nu) - lambda(t))/gamma|, nu = sqrt(alpha/gamma): the remainder "
     "of Deryabin & Kozlov 1995 (4.2), models (alpha, 0, gamma)",
     no_unit, z_spring<ZSpring::oscillation>},
    {"z_period_average_deviation", C::tends_to_zero, false, false, std::nullopt,
     "max over the grid, along the first contact before the first zero of z, of |<z>(t) + "
     "lambda(t)/gamma|, <z> the average of z over the fast period [t - pi nu, t + pi nu]: "
     "Deryabin & Kozlov 1995 (4.3), models (alpha, 0, gamma)",
     no_unit, z_spring<ZSpring::average>},
    {"first_contact_time", C::limit_value, false, true, std::nullopt,
     "the start of the first contact episode after the run's start: an impact, an entry into "
     "the medium; error = value - the reference",
     time_unit, first_contact_time},
    {"first_lift_off_time", C::limit_value, false, true, std::nullopt,
     "the end of the first contact episode that ends within the run (a lift-off, an exit from "
     "the medium, the rebound of an impact); every episode is in each record's "
     "contact_episodes; error = value - the reference",
     time_unit, first_lift_off_time},
};

}  // namespace

const std::vector<ObservableSpec>& observable_table() { return kObservables; }

const ObservableSpec* find_observable(std::string_view name) {
  for (const ObservableSpec& spec : kObservables) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

const ObservableSpec& observable(std::string_view name) {
  const ObservableSpec* spec = find_observable(name);
  if (spec == nullptr) throw std::logic_error("not an observable: " + std::string(name));
  return *spec;
}

std::vector<std::string> observable_names() {
  std::vector<std::string> out;
  for (const ObservableSpec& spec : kObservables) out.emplace_back(spec.name);
  return out;
}

std::vector<std::string> default_observables() {
  std::vector<std::string> out;
  for (const ObservableSpec& spec : kObservables) {
    if (spec.by_default) out.emplace_back(spec.name);
  }
  return out;
}

std::optional<double> measure(std::string_view name, const GridRun& run, const Model& model,
                              std::optional<int> constraint) {
  const std::vector<Eigen::VectorXd> none;
  const std::vector<double> no_z;
  return observable(name).measure(Observation{run, model, none, none, no_z, constraint});
}

std::string observable_caption(const ObservableSpec& spec, int samples) {
  std::string text(spec.caption);
  const std::string key = "{samples}";
  if (const auto at = text.find(key); at != std::string::npos) {
    text.replace(at, key.size(), std::to_string(samples));
  }
  return text;
}

}  // namespace crbench
