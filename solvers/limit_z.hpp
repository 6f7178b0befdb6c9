// The (α,β,γ) limit model's bookkeeping along contacts (Deryabin & Kozlov 1995 Theorem 1 and §3),
// used by event-driven's contact machinery when it integrates the limit model (solver `limit`):
// z_k of α z'' + β z' + γ z = −λ_k, (1.10), carried in State::aux (z_0 … z_{m−1}, then z'_k when
// α > 0), its zeros as lift-off candidates, the two conditions of Theorem 1 (a simple zero of z,
// λ < 0 there), the first zero of λ and Propositions 1–2, and the diagnostics of the record.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

#include "crbench/solvers/event_driven.hpp"
#include "crbench/solvers/record.hpp"

namespace crbench {

// Proposition 2's window (Deryabin & Kozlov 1995 §3, derived in LimitZ::proposition): the damped
// half-period π/ω_d of α z'' + β z' + γ z, ω_d = √(4αγ − β²)/(2α), for β² < 4αγ.
inline double proposition_2_window(const LimitCoefficients& c) {
  return 2.0 * c.alpha * std::numbers::pi / std::sqrt(4.0 * c.alpha * c.gamma - c.beta * c.beta);
}

class LimitZ {
 public:
  // With α = β = 0 (and for the obstacle, solvers/limit.cpp) the limit model is the classical one:
  // no z is carried (dynamic() is false), and the record still gets the theorem's diagnostics.
  LimitZ(const LimitCoefficients& coefficients, int constraints, RunRecord& record)
      : c_(coefficients),
        m_(constraints),
        rec_(record),
        contact_start_(static_cast<std::size_t>(constraints), 0.0),
        z_extreme_(static_cast<std::size_t>(constraints), 0.0),
        lambda_zero_(static_cast<std::size_t>(constraints), std::nan("")) {}

  // z is carried and decides the lift-off.
  bool dynamic() const { return c_.alpha > 0.0 || c_.beta > 0.0; }
  // z is carried for constraint k and decides its lift-off (a constraint left ideal has none).
  bool carries(int k) const { return dynamic() && c_.realizes(k); }

  Eigen::VectorXd initial_aux() const {
    return dynamic() ? Eigen::VectorXd::Zero(2 * m_) : Eigen::VectorXd();
  }

  // A new contact phase of constraint k at x.t: z = z' = 0 (Theorem 1).
  void start_contact(int k, State& x) {
    contact_start_[index(k)] = x.t;
    z_extreme_[index(k)] = 0.0;
    lambda_zero_[index(k)] = std::nan("");
    if (!dynamic()) return;
    x.aux(k) = 0.0;
    x.aux(m_ + k) = 0.0;
  }

  // (1.10) along the contacts: the derivative of aux (`z`, read from `aux`, written to `daux`)
  // given the multipliers λ of the `active` constraints, in that order.
  void derivative(const std::vector<int>& active, const Eigen::VectorXd& lambda, const double* aux,
                  double* daux) const {
    for (std::size_t r = 0; r < active.size(); ++r) {
      if (!c_.realizes(active[r])) continue;
      const auto k = static_cast<std::size_t>(active[r]);
      // s(α z'' + β z' + γ z) = −λ with the constraint's scale s (ContactLaw).
      const double l = lambda(static_cast<Eigen::Index>(r)) / c_.scale_of(active[r]);
      const double z = aux[k], z_rate = aux[static_cast<std::size_t>(m_) + k];
      if (c_.alpha > 0.0) {
        daux[k] = z_rate;
        daux[static_cast<std::size_t>(m_) + k] = (-l - c_.beta * z_rate - c_.gamma * z) / c_.alpha;
      } else {
        daux[k] = (-l - c_.gamma * z) / c_.beta;
      }
    }
  }

  // Event functions of a constraint in contact: the lift-off candidate where z reaches 0 from
  // below; z' (a maximum of z, to catch a double zero) when z' is carried (α > 0).
  double lift_off_function(const State& x, int k) const { return -x.aux(k); }
  std::optional<double> z_maximum_function(const State& x, int k) const {
    if (c_.alpha > 0.0) return x.aux(m_ + k);
    return std::nullopt;
  }

  // The most negative z of each contact so far: the scale of "z ≈ 0".
  void track_extreme(const State& x, const std::vector<int>& active) {
    for (const int k : active) {
      if (!c_.realizes(k)) continue;
      auto& extreme = z_extreme_[index(k)];
      extreme = std::min(extreme, x.aux(k));
    }
  }

  // z reached 0 on constraint k with multiplier λ (and μ = λ|∇f|): Theorem 1 lifts off here if
  // the zero is simple and λ < 0. Past the theorem (docs/theory.md §3): at a simple zero with
  // λ > 0 (possible only with α > 0) the realization's point hops out of the medium for a time
  // O(1/N) — it leaves with ḟ = z'/N while the free acceleration −Λλ pulls it back — and re-enters
  // with ḟ reversed, so as N → ∞ the motion stays on Σ and z restarts from 0 with z' → −z'; the
  // lift-off is then the first simple zero of the reflected z where λ < 0. A double zero or λ = 0
  // at the zero decides nothing: the contact stays and no lift-off is predicted.
  bool lifts_off_at_zero(State& x, int k, double lambda, double mu) {
    const double rate = z_rate(x, k, lambda);
    const double since = x.t - contact_start_[index(k)];
    const double scale = std::abs(z_extreme_[index(k)]) / std::max(since, 1e-300);
    const bool simple = rate > 1e-8 * scale;
    z_zeros_.push_back({{"t", x.t},
                        {"constraint", k},
                        {"lambda", lambda},
                        {"mu", mu},
                        {"z_rate", rate},
                        {"simple", simple}});
    rec_.events.push_back({.t = x.t, .kind = EventKind::z_zero, .index = k});
    if (!simple) {
      undecided("z reaches 0 without crossing it (a double zero, z' = " + format_number(rate) +
                ") at t = " + format_number(x.t) + " on constraint " + std::to_string(k));
      return false;
    }
    if (lambda > 0.0 && c_.alpha > 0.0) {
      fails("z vanishes at t = " + format_number(x.t) + " on constraint " + std::to_string(k) +
            " with lambda = " + format_number(lambda) +
            " > 0: Theorem 1 asserts no lift-off there; the prediction continues past it with z "
            "reflected (z' -> -z') while the motion stays on the constraint");
      x.aux(k) = 0.0;
      x.aux(m_ + k) = -rate;
      z_extreme_[index(k)] = 0.0;
      reflections_.push_back({{"t", x.t}, {"constraint", k}, {"lambda", lambda}, {"z_rate", rate}});
      rec_.events.push_back({.t = x.t, .kind = EventKind::z_reflection, .index = k});
      return false;
    }
    if (!(lambda < 0.0)) {
      undecided("lambda = " + format_number(lambda) + " at the zero of z (t = " +
                format_number(x.t) + ", constraint " + std::to_string(k) +
                "): neither Theorem 1 nor its continuation decides whether the motion leaves the "
                "constraint there");
      return false;
    }
    if (proposition_.empty()) proposition_ = proposition(k);
    return true;
  }

  // λ_k crossed 0 at t: only its first zero in a contact is an event (a restart with λ ≈ 0 may
  // cross again at once).
  void lambda_crossed_zero(int k, double t) {
    if (!std::isnan(lambda_zero_[index(k)])) return;
    lambda_zero_[index(k)] = t;
    rec_.events.push_back({.t = t, .kind = EventKind::lambda_zero, .index = k});
  }

  // λ may also stop being positive by a jump (a force switch), not only by crossing 0.
  void note_lambda(int k, double t, double lambda) {
    if (!c_.realizes(k)) return;
    auto& zero = lambda_zero_[index(k)];
    if (std::isnan(zero) && lambda <= 0.0) zero = t;
  }

  // A maximum of z (z' crossing 0 downward) at z ≈ 0 is a double zero of z.
  void check_touch(const State& x, int k) {
    const double z = x.aux(k);
    if (std::abs(z) <= 1e-8 * std::abs(z_extreme_[index(k)])) {
      rec_.events.push_back({.t = x.t, .kind = EventKind::z_double_zero, .index = k});
      undecided("z touches 0 without crossing it (a double zero: z = " + format_number(z) +
                " at its maximum) at t = " + format_number(x.t) + " on constraint " +
                std::to_string(k));
    }
  }

  // z of every constraint (0 off the constraints, and in the classical case): the trajectory's
  // extra columns z0, z1, ….
  Eigen::VectorXd z_values(const State& x) const {
    return dynamic() ? Eigen::VectorXd(x.aux.head(m_)) : Eigen::VectorXd::Zero(m_);
  }

  // At the end of the run, with the constraints still in contact.
  void finish(const State& x, const std::vector<int>& active) {
    for (const int k : dynamic() ? active : std::vector<int>{}) {
      if (!c_.realizes(k)) continue;
      fails("no zero of z before the horizon t = " + format_number(x.t) + " (constraint " +
            std::to_string(k) + " in contact since t = " + format_number(contact_start_[index(k)]) +
            ")");
    }
    rec_.theorem =
        TheoremOutcome{.applies = theorem_applies_, .rule = prediction_rule(), .why = why_};
    rec_.diagnostics["theorem_applies"] = rec_.theorem->applies;
    rec_.diagnostics["why"] = rec_.theorem->why;
    rec_.diagnostics["prediction_rule"] = rec_.theorem->rule;
    rec_.diagnostics["z_reflections"] = reflections_;
    rec_.diagnostics["proposition"] = proposition_;
    rec_.diagnostics["lift_off_driver"] =
        "lambda, the multiplier of the given f (docs/theory.md section 2); mu = lambda |grad "
        "f|_{A^-1} is reported beside it (z_zeros, trajectory)";
    rec_.diagnostics["z_zeros"] = z_zeros_;
    nlohmann::ordered_json zeros = nlohmann::ordered_json::array();
    for (int k = 0; k < m_; ++k) {
      const double t = lambda_zero_[index(k)];
      zeros.push_back(std::isnan(t) ? nlohmann::ordered_json() : nlohmann::ordered_json(t));
    }
    rec_.diagnostics["lambda_zero_time"] = zeros;
  }

 private:
  static std::size_t index(int k) { return static_cast<std::size_t>(k); }

  // z' at x for constraint k: carried for α > 0, from β z' + γ z = −λ otherwise.
  double z_rate(const State& x, int k, double lambda) const {
    if (c_.alpha > 0.0) return x.aux(m_ + k);
    return (-lambda / c_.scale_of(k) - c_.gamma * x.aux(k)) / c_.beta;
  }

  void fails(const std::string& why) {
    if (theorem_applies_) why_ = why;
    theorem_applies_ = false;
  }
  void undecided(const std::string& why) {
    fails(why);
    undecided_ = true;
  }

 public:
  // Which rule the lift-off prediction comes from (PredictionRule); at none the record's
  // lift_off_time is withheld (solvers/event_driven.cpp).
  PredictionRule prediction_rule() const {
    if (undecided_) return PredictionRule::none;
    return reflections_.empty() ? PredictionRule::theorem_1 : PredictionRule::continuation;
  }

 private:
  // Deryabin & Kozlov 1995 §3: Proposition 1 (β² ≥ 4αγ) and Proposition 2 (β² < 4αγ, λ > 0 on
  // (0, τ) with τ within the window) guarantee z < 0 beyond the first zero τ of λ, i.e. a delay;
  // they are sufficient conditions, not bounds on the delay. Proposition 2's window is derived
  // here, not taken from the paper's print: z(t) = −∫₀ᵗ K(t − s) λ(s) ds with the kernel
  // K(u) = e^{−βu/(2α)} sin(ω_d u)/(α ω_d), positive for 0 < u < π/ω_d, where
  // ω_d = √(4αγ − β²)/(2α) is the damped frequency of α z'' + β z' + γ z. So λ > 0 on (0, τ) with
  // τ ≤ π/ω_d gives z < 0 on (0, τ] and a delay. The printed window π/ω, ω² = 4αγ − β², is not
  // invariant under scaling (α, β, γ), although the model is; it equals π/ω_d only at α = 1/2
  // and claims a delay that does not happen for α < 1/2 (tests/test_limit.cpp).
  std::string proposition(int k) const {
    const double a = c_.alpha, b = c_.beta, c = c_.gamma;
    const double zero = lambda_zero_[index(k)];
    if (std::isnan(zero)) {
      return "lambda > 0 throughout the contact: Propositions 1-2 (Deryabin & Kozlov 1995 section "
             "3) speak of the zero of lambda and do not apply";
    }
    const double tau = zero - contact_start_[index(k)];
    if (b * b >= 4.0 * a * c) {
      return "Proposition 1 (beta^2 >= 4 alpha gamma): z < 0 beyond the first zero of lambda "
             "(t = " +
             format_number(zero) + "), so the lift-off is delayed";
    }
    const double window = proposition_2_window(c_);
    if (tau <= window) {
      return "Proposition 2 (beta^2 < 4 alpha gamma, first zero of lambda after " +
             format_number(tau) + " <= pi/omega_d = " + format_number(window) +
             ", omega_d = sqrt(4 alpha gamma - beta^2)/(2 alpha) the damped frequency of z): the "
             "lift-off is delayed";
    }
    return "neither Proposition 1 nor 2 applies (beta^2 < 4 alpha gamma and the first zero of "
           "lambda comes after " +
           format_number(tau) + " > pi/omega_d = " + format_number(window) +
           "): no delay is guaranteed";
  }

  LimitCoefficients c_;
  int m_;
  RunRecord& rec_;
  std::vector<double> contact_start_;
  std::vector<double> z_extreme_;
  std::vector<double> lambda_zero_;
  nlohmann::ordered_json z_zeros_ = nlohmann::ordered_json::array();
  bool theorem_applies_ = true;
  bool undecided_ = false;
  nlohmann::ordered_json reflections_ = nlohmann::ordered_json::array();
  std::string why_;
  std::string proposition_;
};

}  // namespace crbench
