// The parameters that name an (α,β,γ) model, shared by `realization` and `limit` so that the two
// solvers `verify` sets side by side always mean the same model by the same settings.
#pragma once

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "crbench/solvers/record.hpp"
#include "crbench/solvers/solver.hpp"

namespace crbench {

// The largest N the realization accepts (its parameter N's range).
inline constexpr double kMaxRealizationN = 1e15;

// The preset recorded when alpha, beta or gamma is given explicitly.
inline const std::string kCustomPreset = "custom";

// alpha, beta, gamma (defaults: the preset's).
inline std::vector<ParamSpec> model_alpha_beta_gamma_params() {
  return {
      {.name = "alpha",
       .default_value = 0.0,
       .min = 0.0,
       .max = 1e9,
       .description = "added-mass coefficient",
       .default_note = "the preset's"},
      {.name = "beta",
       .default_value = 1.0,
       .min = 0.0,
       .max = 1e9,
       .description = "viscosity coefficient",
       .default_note = "the preset's"},
      {.name = "gamma",
       .default_value = 0.0,
       .min = 0.0,
       .max = 1e9,
       .description = "stiffness coefficient",
       .default_note = "the preset's"},
  };
}

// kappa and k of Kozlov's stiff damped wall (stiffness kappa N, damping force 2k sqrt(N) f'): the
// kozlov-impact preset of realization and limit, the kozlov-impact impact law of the ideal solvers.
inline std::vector<ParamSpec> kozlov_wall_params() {
  return {
      {.name = "kappa",
       .default_value = 1.0,
       .min = 0.0,
       .max = 1e9,
       .min_inclusive = false,
       .description = "kozlov-impact: stiffness kappa N (Kozlov 1992 section 5)"},
      {.name = "k",
       .default_value = 0.1,
       .min = 0.0,
       .max = 1e9,
       .description = "kozlov-impact: damping force 2 k sqrt(N) f' (Kozlov 1992 section 5)"},
  };
}

// alpha, beta, gamma, and kappa, k of the kozlov-impact preset.
inline std::vector<ParamSpec> model_coefficient_params() {
  std::vector<ParamSpec> params = model_alpha_beta_gamma_params();
  for (auto& p : kozlov_wall_params()) params.push_back(std::move(p));
  return params;
}

inline std::vector<ChoiceSpec> model_choices(const std::string& preset_description,
                                             const std::string& interaction_description) {
  return {
      {.name = "preset",
       .options = {"viscous", "penalty", "kozlov-impact"},
       .default_value = "viscous",
       .description = preset_description,
       .recorded = {kCustomPreset}},
      {.name = "interaction",
       .options = {"medium", "obstacle"},
       .default_value = "medium",
       .description = interaction_description},
  };
}

// Sets alpha, beta, gamma from the preset's values where the user did not assign them, and
// checks the combination: kappa and k only with kozlov-impact (and left out of the parameters
// otherwise: they play no part), alpha, beta, gamma not with kozlov-impact (it sets them from
// kappa and k), not all of alpha, beta, gamma 0. A preset with an explicit alpha, beta or gamma
// is recorded as "custom".
inline void apply_model_preset(ParamValues& params, ChoiceValues& choices,
                               const std::vector<std::string>& assigned, const std::string& owner,
                               double alpha, double beta, double gamma) {
  const auto given = [&](const char* name) {
    return std::find(assigned.begin(), assigned.end(), name) != assigned.end();
  };
  const std::string preset = choices.at("preset");
  const bool coefficients_given = given("alpha") || given("beta") || given("gamma");
  if (preset == "kozlov-impact") {
    if (coefficients_given) {
      throw InputError(owner +
                       ": --alpha/--beta/--gamma do not combine with --preset kozlov-impact, which "
                       "sets them from --kappa and --k; with another --preset (viscous, penalty) "
                       "they set the coefficients directly");
    }
  } else {
    for (const char* name : {"kappa", "k"}) {
      if (given(name)) {
        throw InputError(owner + ": --" + name +
                         " applies to --preset kozlov-impact only (preset is " + preset + ")");
      }
      params.erase(name);
    }
  }
  if (!given("alpha")) params["alpha"] = alpha;
  if (!given("beta")) params["beta"] = beta;
  if (!given("gamma")) params["gamma"] = gamma;
  if (params.at("alpha") == 0.0 && params.at("beta") == 0.0 && params.at("gamma") == 0.0) {
    throw InputError(owner + ": alpha, beta, gamma are all 0; at least one must be > 0");
  }
  if (coefficients_given) choices["preset"] = kCustomPreset;
}

// Which unilateral constraints are realized (the others stay ideal: enforced with their
// multipliers, Newton impacts with ideal_restitution), shared by `realization` and `limit` so
// that the model and its limit realize the same ones.
inline ChoiceSpec realize_choice() {
  return {.name = "realize",
          .options = {},
          .default_value = "all",
          .description =
              "the unilateral constraints realized by the medium, by name or index "
              "(crbench list names them); the others stay ideal",
          .open_form = "all | NAME[,NAME...]"};
}

// The realization's scale of (α, β, γ) per unilateral constraint (stiffness ratios), over the
// case's own laws (Model::contact_law).
inline ChoiceSpec contact_scale_choice() {
  return {.name = "contact_scale",
          .options = {},
          .default_value = "case",
          .description =
              "the medium's scale of (alpha, beta, gamma) on the named constraints (stiffness "
              "ratios; scale in (0, 1e12]); the others keep the case's (1 unless its contact_law "
              "says otherwise)",
          .open_form = "case | NAME=SCALE[,NAME=SCALE...]",
          // A record where the case's scales are kept is what it was before the choice existed.
          .omitted_at_default = true};
}

// Each constraint's law: the case's (Model::contact_law), with the scales `contact_scale` names.
// InputError (exit 2) naming the field for an item that is not NAME=SCALE, a name that is no
// constraint of the case or is named twice, and a scale outside (0, 1e12].
inline std::vector<ContactLaw> contact_laws(const Model& model, const RunSettings& settings,
                                            const std::string& owner) {
  std::vector<ContactLaw> laws;
  for (int k = 0; k < model.constraint_count(); ++k) laws.push_back(model.contact_law(k));
  const auto it = settings.solver_choices.find("contact_scale");
  if (it == settings.solver_choices.end() || it->second == "case") return laws;
  const std::string field = owner + ": contact_scale";
  const std::string& text = it->second;
  std::vector<char> named(laws.size(), 0);
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    const std::size_t equals = item.find('=');
    if (equals == std::string::npos || equals == 0) {
      throw InputError(field + ": '" + item + "' in '" + text +
                       "' must be NAME=SCALE (a constraint's name or index, a scale in "
                       "(0, 1e12])");
    }
    const std::string name = item.substr(0, equals);
    const int k = model.constraint_index(name, field);
    if (named[static_cast<std::size_t>(k)]) {
      throw InputError(field + ": '" + name + "' is named twice in '" + text + "'");
    }
    named[static_cast<std::size_t>(k)] = 1;
    const double scale = parse_finite(field + " of " + name, item.substr(equals + 1));
    if (!(scale > 0.0 && scale <= 1e12)) {
      throw InputError(field + " of " + name + ": " + item.substr(equals + 1) +
                       " is outside the accepted range (0, 1e12]");
    }
    laws[static_cast<std::size_t>(k)].scale = scale;
    start = comma + 1;
  }
  return laws;
}

inline ParamSpec ideal_restitution_spec() {
  return {.name = "ideal_restitution",
          .default_value = 0.0,
          .min = 0.0,
          .max = 1.0,
          .description =
              "Newton restitution of the impacts of the constraints left ideal by "
              "--realize (with --realize only)"};
}

// Where every constraint is realized, `realize` and `ideal_restitution` play no part and leave
// the parameters (a record of such a run is what it was before the choice existed).
// `ideal_only`: the parameters that serve the ideal constraints alone.
inline void finalize_realized_set(ParamValues& params, ChoiceValues& choices,
                                  const std::vector<std::string>& assigned,
                                  const std::string& owner,
                                  const std::vector<std::string>& ideal_only) {
  const auto it = choices.find("realize");
  if (it == choices.end() || it->second != "all") return;
  for (const auto& name : ideal_only) {
    if (std::find(assigned.begin(), assigned.end(), name) != assigned.end()) {
      std::string flag = name;
      std::replace(flag.begin(), flag.end(), '_', '-');
      throw InputError(owner + ": --" + flag +
                       " applies to the constraints --realize leaves ideal; with --realize all "
                       "(the default) there are none");
    }
    params.erase(name);
  }
  choices.erase(it);
}

// The realized constraints of `model` under settings' `realize` (absent: all), one flag per
// constraint. InputError (exit 2) naming the field for a name that is no constraint of the case,
// a repeated one, a bilateral constraint left ideal (it is two-sided: realized always), and an
// ideal constraint in a case with kinematic constraints (not computed).
inline std::vector<char> realized_constraints(const Model& model, const RunSettings& settings,
                                              const std::string& owner) {
  const int m = model.constraint_count();
  const auto it = settings.solver_choices.find("realize");
  if (it == settings.solver_choices.end() || it->second == "all") {
    return std::vector<char>(static_cast<std::size_t>(m), 1);
  }
  std::vector<char> realized(static_cast<std::size_t>(m), 0);
  const std::string field = owner + ": realize";
  const std::string& text = it->second;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string name = text.substr(start, comma - start);
    if (name.empty()) {
      throw InputError(field + ": '" + text +
                       "' must be 'all' or constraint names or indices separated by commas");
    }
    auto& flag = realized[static_cast<std::size_t>(model.constraint_index(name, field))];
    if (flag) throw InputError(field + ": '" + name + "' is named twice in '" + text + "'");
    flag = 1;
    start = comma + 1;
  }
  for (int k = 0; k < m; ++k) {
    if (realized[static_cast<std::size_t>(k)]) continue;
    if (model.is_bilateral(k)) {
      throw InputError(field + ": the bilateral constraint " + model.constraint_name(k) +
                       " is two-sided and always realized; name it in '" + text + "'");
    }
    if (model.kinematic_count() > 0) {
      throw InputError(field + ": an ideal unilateral constraint (" + model.constraint_name(k) +
                       ") beside kinematic constraints is not computed; give --realize all");
    }
  }
  return realized;
}

// The name of the limit a model converges to, for the facts it is checked against: the obstacle
// and α = β = 0 give the classical model (Deryabin & Kozlov 1995, end of §6; Theorem 1), (0, β, 0)
// the model of Theorem 2.
inline std::string model_limit_name(const ParamValues& params, const ChoiceValues& choices) {
  const double alpha = params.at("alpha"), beta = params.at("beta"), gamma = params.at("gamma");
  if (choices.at("interaction") == "obstacle" || (alpha == 0.0 && beta == 0.0)) return "classical";
  if (choices.at("preset") == "kozlov-impact" && alpha == 0.0) return "classical";
  if (alpha == 0.0 && gamma == 0.0) return "viscous";
  return "alpha-beta-gamma";
}

}  // namespace crbench

namespace crbench {

// The rate at which a realization's lift-off time approaches its limit model's, where the theory
// states one; `crbench verify` checks the ladder's fitted order against it.
struct StatedOrder {
  double order = 1.0;
  std::string source;
};

// Whether the limit's λ jumps through 0 at its lift-off (a force switch at that instant) or
// crosses 0 continuously; unknown without a lift-off.
enum class SignChange { jump, crossing, unknown };
inline SignChange sign_change_at_lift_off(const RunRecord& limit, std::optional<int> constraint) {
  const std::optional<double> tau = lift_off_of(limit, constraint);
  if (!tau) return SignChange::unknown;
  for (const auto& e : limit.events) {
    if (e.kind == EventKind::switch_function &&
        std::abs(e.t - *tau) <= 1e-12 * std::max(1.0, std::abs(*tau))) {
      return SignChange::jump;
    }
  }
  return SignChange::crossing;
}

// `limit`: the limit model's record (the prediction), which tells the obstacle's two rates apart
// by how λ changes sign at its lift-off (of `constraint`, or of the whole system); without it the
// jump is assumed.
inline std::optional<StatedOrder> stated_lift_off_order(
    const ParamValues& params, const ChoiceValues& choices, const RunRecord* limit = nullptr,
    std::optional<int> constraint = std::nullopt) {
  const double alpha = params.at("alpha"), beta = params.at("beta"), gamma = params.at("gamma");
  const bool viscous = alpha == 0.0 && gamma == 0.0 && beta > 0.0;
  if (choices.at("preset") == "kozlov-impact") {
    return StatedOrder{0.5,
                       "docs/theory.md section 2 (the Kozlov wall): each stay in the medium lasts "
                       "pi/(omega sqrt(N)) and its rebound differs from e v by O(N^-1/2), so the "
                       "impact and lift-off times move by O(N^-1/2)"};
  }
  if (choices.at("interaction") == "obstacle") {
    if (!viscous) return std::nullopt;
    if (limit != nullptr && sign_change_at_lift_off(*limit, constraint) == SignChange::crossing) {
      return StatedOrder{1.0 / 3.0,
                         "docs/theory.md section 3 (rates): lambda crosses 0 continuously at the "
                         "lift-off (no force switch there), so the free normal acceleration after "
                         "the release grows like kappa (t - tau) and the way back from depth "
                         "O(1/N) takes O(N^-1/3)"};
    }
    return StatedOrder{0.5,
                       "Deryabin & Kozlov (1995), end of section 6: the obstacle releases at depth "
                       "O(1/N) and, lambda jumping through 0 (a force switch), the free flight "
                       "back takes O(N^-1/2)"};
  }
  if (alpha == 0.0 && beta == 0.0) return std::nullopt;  // penalty: no rate stated
  return StatedOrder{1.0,
                     "Deryabin & Kozlov (1995), sections 2 and 6 (proofs of Theorems 1 and 2): "
                     "tau_eps = tau + O(eps), eps = 1/N, at a simple zero of z"};
}

}  // namespace crbench

namespace crbench {

// The (α, β) realization of kinematic constraints and its limit family admit no stiffness, no
// obstacle (a kinematic constraint is two-sided; the Coulomb rows alone act through a reaction
// the obstacle may make one-sided), and a unilateral constraint in the same case
// only where the solver says so (`mixed`, the realization with α = 0). InputError (exit 2) naming
// the item otherwise. `mixed`: the solver computes unilateral and kinematic constraints in one case
// (with α = 0).
inline void check_kinematic_model(const Model& model, const RunSettings& settings,
                                  const std::string& solver, bool mixed = false) {
  const ParamValues& p = settings.solver_params;
  const std::string owner = "solver " + solver + " on case " + model.info().name;
  // With unilateral constraints in the case, γ is their medium's stiffness.
  if (p.at("gamma") != 0.0 && !(mixed && model.constraint_count() > 0)) {
    throw InputError(owner + ": gamma = " + format_number(p.at("gamma")) +
                     " has no meaning for kinematic constraints, which are realized by added "
                     "mass alpha and friction beta only; give --gamma 0 (e.g. --preset viscous, "
                     "or --alpha A --beta B --gamma 0)");
  }
  // A conditional row (a contact that does not slide, or slides under Coulomb friction) acts
  // while its constraint is in the medium, whose reaction the obstacle makes one-sided; a row that
  // acts everywhere is two-sided.
  bool rows_everywhere = false;
  for (int r = 0; r < model.kinematic_count(); ++r) {
    if (model.kinematic_condition(r) < 0) rows_everywhere = true;
  }
  if (settings.solver_choices.at("interaction") == "obstacle" && rows_everywhere) {
    throw InputError(owner +
                     ": --interaction obstacle has no meaning for kinematic constraints that act "
                     "everywhere (they are two-sided); use medium");
  }
  if (model.unilateral_kinematic_count() > 0 && p.at("alpha") != 0.0) {
    throw InputError(owner + ": alpha = " + format_number(p.at("alpha")) +
                     " with one-sided kinematic constraints: they are realized by the one-sided "
                     "friction -beta N min(g, 0) a^T only; give --alpha 0 (e.g. --preset viscous)");
  }
  if (model.constraint_count() > 0 && !(mixed && p.at("alpha") == 0.0)) {
    throw InputError(owner +
                     (mixed ? ": alpha = " + format_number(p.at("alpha")) +
                                  " with unilateral and kinematic constraints in one case: the "
                                  "medium is realized without added mass here; give --alpha 0"
                            : std::string(": unilateral and kinematic constraints in one case "
                                          "are not computed by this solver; event-driven "
                                          "computes their ideal motion")));
  }
}

// A bilateral constraint is two-sided: the obstacle (a reaction that only pushes) has no meaning
// for it. InputError (exit 2) otherwise.
inline void check_bilateral_model(const Model& model, const RunSettings& settings,
                                  const std::string& solver) {
  if (settings.solver_choices.at("interaction") == "obstacle") {
    throw InputError("solver " + solver + " on case " + model.info().name +
                     ": --interaction obstacle has no meaning for bilateral constraints "
                     "(they are two-sided); use medium");
  }
}

}  // namespace crbench
