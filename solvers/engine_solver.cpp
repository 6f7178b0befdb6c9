#include "crbench/solvers/engine_solver.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>
#include <stdexcept>
#include <utility>
#include <variant>

#include "crbench/cases/params.hpp"
#include "crbench/solvers/model_parameters.hpp"
#include "crbench/solvers/plugin.hpp"
#include "crbench/solvers/step_output.hpp"

namespace crbench {

const EnginePlugin& engine_plugin(const std::string& name) {
  return *static_cast<const EnginePlugin*>(
      plugin_interface(name, linked_model_plugin(name), "solver " + name));
}

namespace {

constexpr const char* kEngineEpisodeDefinition =
    "a stay in penetration or under the engine's contact impulse: steps that end with the gap f "
    "< 0 or have a contact impulse; from f crossing 0 downward (interpolated linearly between the "
    "step ends, or the start of the first step with an impulse where f did not cross) to f "
    "crossing 0 upward (interpolated, or the end of the last step with an impulse where the "
    "engine held the body at f >= 0), as the realization's stay in the medium; an exit followed "
    "by a new entry within two steps continues the episode (a contact chattering about f = 0 at "
    "the step's scale)";

// The time where the straight line through (t0, f0), (t1, f1) crosses 0 (f0 and f1 of either
// sign, not both 0).
double crossing(double t0, double f0, double t1, double f1) {
  if (f0 == f1) return t1;
  return t0 + (t1 - t0) * std::clamp(f0 / (f0 - f1), 0.0, 1.0);
}

}  // namespace

std::vector<ParamSpec> EngineSolver::parameters() const {
  std::vector<ParamSpec> params{
      {.name = "N",
       .default_value = 1e4,
       .min = 0.0,
       .max = 1e12,
       .min_inclusive = false,
       .description = "realization parameter: the contact's stiffness gamma N and damping beta N "
                      "(not used by --preset engine-default)"},
      {.name = "beta",
       .default_value = 1.0,
       .min = 0.0,
       .max = 1e9,
       .description = "viscosity coefficient: contact damping beta N",
       .default_note = "the preset's"},
      {.name = "gamma",
       .default_value = 0.0,
       .min = 0.0,
       .max = 1e9,
       .description = "stiffness coefficient: contact stiffness gamma N",
       .default_note = "the preset's"},
      {.name = "h",
       .default_value = 1e-4,
       .min = 0.0,
       .max = 1.0,
       .min_inclusive = false,
       .unit = "time",
       .description = "the engine's time step (made span/ceil(span/h) so that the last step ends "
                      "at the horizon)"},
      kMaxFixedStepsSpec};
  for (auto& p : engine_parameters()) params.push_back(std::move(p));
  return params;
}

std::vector<ChoiceSpec> EngineSolver::choices() const {
  std::vector<ChoiceSpec> choices{
      {.name = "preset",
       .options = {"viscous", "penalty", kEngineDefaultPreset},
       .default_value = "viscous",
       .description = "(beta, gamma) = (1, 0) or (0, 1) mapped onto the engine's contact, or the "
                      "engine's own contact softness; explicit --beta/--gamma override it",
       .recorded = {kCustomPreset}},
      {.name = "interaction",
       .options = {"medium", "obstacle"},
       .default_value = "obstacle",
       .description = "an engine's contact only pushes: obstacle (medium is refused)"}};
  for (auto& c : engine_choices()) choices.push_back(std::move(c));
  return choices;
}

void EngineSolver::finalize(ParamValues& params, ChoiceValues& choices,
                            const std::vector<std::string>& assigned) const {
  const std::string owner = "solver " + name();
  if (choices.at("interaction") != "obstacle") {
    throw InputError(owner +
                     ": --interaction medium cannot be expressed: the engine's contact force is "
                     "clamped to push only, the obstacle interaction; use --interaction obstacle");
  }
  const auto given = [&](const std::string& key) {
    return std::find(assigned.begin(), assigned.end(), key) != assigned.end();
  };
  const std::string preset = choices.at("preset");
  for (const std::string& key : default_only_parameters()) {
    if (!given(key)) {
      params.erase(key);
    } else if (preset != kEngineDefaultPreset) {
      throw InputError(owner + ": --" + key + " applies to --preset " + kEngineDefaultPreset +
                       " only (a setting of the engine's own contact)");
    }
  }
  if (preset == kEngineDefaultPreset) {
    std::vector<std::string> mapped_only{"N", "beta", "gamma"};
    for (auto& key : mapped_only_parameters()) mapped_only.push_back(std::move(key));
    for (const std::string& key : mapped_only) {
      if (given(key.c_str())) {
        throw InputError(owner + ": --" + key + " does not apply to --preset " +
                         kEngineDefaultPreset + " (the engine's own contact softness)");
      }
      params.erase(key);
    }
    return;
  }
  const bool coefficients_given = given("beta") || given("gamma");
  if (!given("beta")) params["beta"] = preset == "viscous" ? 1.0 : 0.0;
  if (!given("gamma")) params["gamma"] = preset == "penalty" ? 1.0 : 0.0;
  if (params.at("beta") == 0.0 && params.at("gamma") == 0.0) {
    throw InputError(owner + ": beta and gamma are both 0; at least one must be > 0");
  }
  if (coefficients_given) choices["preset"] = kCustomPreset;
}

EngineContactLaw engine_contact_law(const RunSettings& settings) {
  const ParamValues& p = settings.solver_params;
  if (settings.solver_choices.at("preset") == kEngineDefaultPreset) {
    return {.engine_default = true};
  }
  return {.stiffness = p.at("gamma") * p.at("N"), .damping = p.at("beta") * p.at("N")};
}

std::optional<std::string> EngineSolver::refusal(const Model& model,
                                                 const RunSettings& settings) const {
  return refusal_of_scene(model, engine_scene(model, rod_shape(settings)), settings);
}

std::optional<std::string> EngineSolver::refusal_of_scene(
    const Model& model, const std::variant<EngineScene, std::string>& scene,
    const RunSettings& settings) const {
  if (const auto* why = std::get_if<std::string>(&scene)) return "solver " + name() + ": " + *why;
  if (auto why = scene_refusal(std::get<EngineScene>(scene), settings)) {
    return "solver " + name() + ": case " + model.info().name + ": " + *why;
  }
  if (std::get<EngineScene>(scene).has_tendons() && !expresses_tendons()) {
    return "solver " + name() + ": case " + model.info().name + ": " + engine_version() +
           " has no length limit between a body and a fixed point (a tendon); MuJoCo's spatial "
           "tendon expresses it (solver mujoco)";
  }
  for (int k = 0; k < model.constraint_count(); ++k) {
    if (model.contact_law(k) == ContactLaw{}) continue;
    return "solver " + name() + ": case " + model.info().name + ": constraint " +
           model.constraint_name(k) +
           " has its own stiffness scale or a power-law spring (its parameters, e.g. "
           "stiffness_ratio or exponent), and the engine's contacts share one linear stiffness";
  }
  return std::nullopt;
}

namespace {

// The contact episodes of an engine's run, from the constraint values at the step ends: a contact
// starts where f crosses below 0 (or a step pushes), ends where f crosses back with no push; an
// exit followed by an entry within two steps was the contact chattering about f = 0 at the step's
// scale (MuJoCo's explicit contact on a curved constraint), not a lift-off, and is taken back.
class ContactEvents {
 public:
  // A run that starts in penetration has its episode open from t0 (finish_contact_episodes).
  explicit ContactEvents(const Eigen::VectorXd& f0)
      : inside_(static_cast<std::size_t>(f0.size()), 0),
        last_exit_(static_cast<std::size_t>(f0.size()), -1) {
    for (Eigen::Index k = 0; k < f0.size(); ++k) {
      inside_[static_cast<std::size_t>(k)] = f0(k) < 0.0 ? 1 : 0;
    }
  }

  // Constraint k over the step from t (value f) to next (value f_next) with the engine's impulse.
  void after_step(int k, double t, double f, const State& next, double f_next, double impulse,
                  double h, const Model& model, Point& point, std::vector<Event>& events) {
    const auto slot = static_cast<std::size_t>(k);
    // In contact after this step: penetrating at its end, or pushed during it (an engine may
    // hold the body at f = 0, Bullet's default contact does).
    const bool in_contact = f_next < 0.0 || impulse > 0.0;
    if (!inside_[slot] && in_contact) {
      const bool crossed = f >= 0.0 && f_next < 0.0;
      const double entry = crossed ? crossing(t, f, next.t, f_next) : t;
      auto& exit = last_exit_[slot];
      if (exit >= 0 && entry - events[static_cast<std::size_t>(exit)].t <= 2.0 * h) {
        events.erase(events.begin() + exit);
        for (auto& other : last_exit_) other -= other > exit ? 1 : 0;
      } else {
        events.push_back({.t = entry, .kind = EventKind::enter_medium, .index = k});
      }
      exit = -1;
      inside_[slot] = 1;
    } else if (inside_[slot] && !in_contact) {
      const bool crossed = f < 0.0 && f_next >= 0.0;
      // The exit velocity ḟ (the post-impact velocity) at the step's end, within O(h) of the
      // crossing's.
      model.evaluate(next, model.modes_at(next), point);
      events.push_back({.t = crossed ? crossing(t, f, next.t, f_next) : t,
                        .kind = EventKind::exit_medium,
                        .index = k,
                        .rate_after = point.J.row(k).dot(next.v) + point.f_t(k)});
      last_exit_[slot] = static_cast<std::ptrdiff_t>(events.size()) - 1;
      inside_[slot] = 0;
    }
  }

 private:
  std::vector<unsigned char> inside_;  // bytes, not std::vector<bool>'s bits: read every step
  // Per constraint, the index in the events of its exit in the last two steps, or −1.
  std::vector<std::ptrdiff_t> last_exit_;
};

// Each force switch crossed in the step from (t, s) to (t_next, s_next), at the linear
// interpolation of its switch function.
void add_switch_events(double t, const Eigen::VectorXd& s, double t_next,
                       const Eigen::VectorXd& s_next, std::vector<Event>& events) {
  for (int i = 0; i < static_cast<int>(s.size()); ++i) {
    if ((s(i) > 0.0) != (s_next(i) > 0.0)) {
      events.push_back({.t = crossing(t, s(i), t_next, s_next(i)),
                        .kind = EventKind::switch_function,
                        .index = i});
    }
  }
}

// The case's applied force Q − ∂V/∂q at a step's start or at a stage of the engine's method (in a
// cartesian scene the metric is constant and free_force's Coriolis term is 0; in a polar one the
// engine's inertia makes it). The modes and their switching values are workspaces of every step
// (no allocation once sized).
class CaseForce {
 public:
  CaseForce(const Model& model, const EngineScene& scene) : model_(model), scene_(scene) {}

  // At a step's start, whose switching values s the last step computed.
  void at_step_start(const State& x, const Eigen::VectorXd& s, Eigen::VectorXd& out) {
    Model::modes_of(s, modes_);
    in_modes(x, out);
  }
  // At a stage of the engine's method, from the engine's positions and rates there (an angle
  // continues from `previous`, the case's q at the step's start).
  void at_stage(double t, const Eigen::VectorXd& positions, const Eigen::VectorXd& rates,
                const Eigen::VectorXd& previous, Eigen::VectorXd& out) {
    stage_.t = t;
    stage_.q = positions;
    stage_.v = rates;
    scene_.to_case(previous, stage_.q, stage_.v);
    model_.modes_at(stage_, modes_, switching_);
    in_modes(stage_, stage_force_);
    const Eigen::VectorXd& applied = scene_.engine_force(stage_.q, stage_force_, out);
    if (&applied != &out) out = applied;
  }

 private:
  void in_modes(const State& at, Eigen::VectorXd& out) {
    if (scene_.coordinates == EngineScene::Coordinates::cartesian) {
      model_.free_force(at, modes_, out);
    } else {
      model_.evaluate(at, modes_, point_);
      out = point_.Q - point_.grad_V;
    }
  }

  const Model& model_;
  const EngineScene& scene_;
  Point point_;
  std::vector<int> modes_;
  Eigen::VectorXd switching_;
  State stage_;
  Eigen::VectorXd stage_force_;
};

// What the record keeps of each step: the constraint and switch values at its ends, the
// engine's contact impulses, each constraint's deepest value and total impulse, and the episodes
// and force switches the step crossed. Its vectors are reused from step to step.
class StepLedger {
 public:
  StepLedger(const Model& model, const EngineScene& scene, const State& x0, RunRecord& record)
      : model_(model),
        scene_(scene),
        record_(record),
        f_(model.constraint_values(x0.t, x0.q)),
        f_next_(model.constraint_count()),
        s_(model.switching_values(x0)),
        s_next_(model.switch_count()),
        impulse_(Eigen::VectorXd::Zero(model.constraint_count())),
        contacts_(f_) {
    record.min_constraint.assign(f_.begin(), f_.end());
    record.constraint_impulse.assign(static_cast<std::size_t>(f_.size()), 0.0);
  }

  // The switching values at the last step's end (the next step's modes).
  const Eigen::VectorXd& switching() const { return s_; }

  // The step of length h from x to next (the engine's state mapped to the case's), with the
  // world's contact impulses over it; next's values become the next step's start.
  // Inlined into the step loop, whose cost beside the engine's own step bench/perf measures.
  [[gnu::always_inline]] void after_step(const State& x, const State& next,
                                         const EngineWorld& world, double h) {
    model_.constraint_values(next.t, next.q, f_next_);
    model_.switching_values(next, s_next_);
    const Eigen::VectorXd& contact_impulse = world.contact_impulses();
    for (std::size_t c = 0; c < scene_.contacts.size(); ++c) {
      impulse_(scene_.contacts[c].constraint) = contact_impulse(static_cast<Eigen::Index>(c));
    }
    for (int k = 0; k < static_cast<int>(f_.size()); ++k) {
      const auto slot = static_cast<std::size_t>(k);
      record_.constraint_impulse[slot] += impulse_(k);
      record_.min_constraint[slot] = std::min(record_.min_constraint[slot], f_next_(k));
      contacts_.after_step(k, x.t, f_(k), next, f_next_(k), impulse_(k), h, model_, point_,
                           record_.events);
    }
    add_switch_events(x.t, s_, next.t, s_next_, record_.events);
    f_.swap(f_next_);
    s_.swap(s_next_);
  }

  // The sample of the state x at the last step's end (a step of length h), or (at_end false)
  // between its ends, with the step's impulses.
  TrajectorySample sample(const State& x, double h, bool at_end) const {
    TrajectorySample sample;
    sample.x = x;
    sample.f = at_end ? f_ : model_.constraint_values(x.t, x.q);
    sample.lambda = impulse_ / h;
    sample.mu = Eigen::VectorXd::Zero(f_.size());
    sample.impulse = impulse_;
    return sample;
  }

 private:
  const Model& model_;
  const EngineScene& scene_;
  RunRecord& record_;
  Eigen::VectorXd f_, f_next_, s_, s_next_, impulse_;
  ContactEvents contacts_;
  Point point_;  // the exit velocity's evaluation
};

// The record's end after the last step: the world's warnings (of an ok run) and diagnostics, the
// case's force evaluations, the events in time order.
void finish_engine_record(const EngineWorld& world, const Model& model,
                          std::chrono::steady_clock::time_point started, double output_seconds,
                          RunRecord& record) {
  if (record.status == Status::ok) {
    for (auto& warning : world.warnings()) record.warnings.push_back(std::move(warning));
  }
  world.add_diagnostics(record.diagnostics);
  record.rhs_evaluations = record.steps * world.force_evaluations_per_step();
  // A step's crossings and switches were appended constraint by constraint: in time order now.
  std::stable_sort(record.events.begin(), record.events.end(),
                   [](const Event& a, const Event& b) { return a.t < b.t; });
  finish_record(record, model, started, output_seconds);
}

// Why a run cannot take its first step, with the status it ends with: more steps than
// max_steps, or a non-finite start.
std::optional<std::pair<Status, std::string>> cannot_start(const Model& model, const State& x,
                                                           double steps_needed,
                                                           const ParamValues& p) {
  if (steps_needed > p.at("max_steps")) {
    return std::pair{Status::too_many_steps,
                     format_number(steps_needed) + " steps of h = " + format_number(p.at("h")) +
                         " are needed and max_steps is " + format_number(p.at("max_steps"))};
  }
  if (const auto why = non_finite_start(model, x)) return std::pair{Status::non_finite, *why};
  return std::nullopt;
}

}  // namespace

RunRecord EngineSolver::solve(const Model& model, const RunSettings& settings) const {
  // The scene is built and checked against the case once (refusal() does it for callers that
  // only ask).
  const auto scene_or_reason = engine_scene(model, rod_shape(settings));
  if (const auto why = refusal_of_scene(model, scene_or_reason, settings)) throw InputError(*why);
  const EngineScene& scene = std::get<EngineScene>(scene_or_reason);
  const auto started = std::chrono::steady_clock::now();
  const ParamValues& p = settings.solver_params;

  RunRecord record = start_record(model, name(), settings);
  record.episode_definition = kEngineEpisodeDefinition;
  State x = model.initial_state();
  const double t0 = x.t;
  const double span = settings.t_end - t0;
  const double steps_needed = std::max(1.0, std::ceil(span / p.at("h") - 1e-9));
  const double h = span / steps_needed;
  record.tolerances = {{"h", h}};
  record.diagnostics["engine"] = engine_version();
  record.diagnostics["scene"] = scene.description;
  if (const auto why = cannot_start(model, x, steps_needed, p)) {
    end_before_start(record, why->first, why->second, x, model, started);
    return record;
  }
  std::unique_ptr<EngineWorld> world = start_world(scene, x, h, settings, record);
  if (!world) {
    end_before_start(record, Status::step_failure, record.reason, x, model, started);
    return record;
  }
  CaseForce case_force(model, scene);
  world->use_stage_force(
      [&](double t, const Eigen::VectorXd& positions, const Eigen::VectorXd& rates,
          Eigen::VectorXd& out) { case_force.at_stage(t, positions, rates, x.q, out); });
  StepOutput output(settings, h);
  StepLedger ledger(model, scene, x, record);
  const auto emit = [&](const State& before, const State& after) {
    output.step_end(before, after,
                    [&](const State& s, bool at_end) { return ledger.sample(s, h, at_end); });
  };
  emit(x, x);
  Eigen::VectorXd force, engine_force;
  State next;  // the state at the step's end (its storage reused)
  const WallTimeBudget wall_time(started, settings.max_wall_time, settings.on_progress);
  const auto total = static_cast<long>(steps_needed);
  for (long step = 1; step <= total; ++step) {
    if (stop_at_wall_time(wall_time, x.t, record)) break;
    // Every step is h, as a user of the engine steps it; the step ends' times are t0 + k h,
    // rounded once (not a running sum), and the last is the horizon, which t0 + (span/h) h is to
    // the last bit or two.
    const double t_next = step == total ? settings.t_end : t0 + static_cast<double>(step) * h;
    case_force.at_step_start(x, ledger.switching(), force);
    try {
      world->step(x.t, scene.engine_force(x.q, force, engine_force), h);
    } catch (const UntrustedStep& e) {
      record.status = Status::step_failure;
      record.reason = "at t = " + format_number(t_next) + ": " + e.what();
      break;
    } catch (const std::exception& e) {
      record.status = Status::step_failure;
      record.reason = "the engine failed at t = " + format_number(x.t) + ": " + e.what();
      break;
    }
    // The engine's state read into the case's storage and mapped there (no copy).
    world->state(next.q, next.v);
    scene.to_case(x.q, next.q, next.v);
    if (!next.q.allFinite() || !next.v.allFinite()) {
      record.status = Status::non_finite;
      record.reason = "non-finite state at t = " + format_number(t_next);
      break;
    }
    next.t = t_next;
    ledger.after_step(x, next, *world, h);
    // The step's end becomes its start; the old start's storage is the next step's workspace
    // (member by member: Eigen's swap exchanges the pointers; aux is empty in an engine's run).
    std::swap(x.t, next.t);
    x.q.swap(next.q);
    x.v.swap(next.v);
    ++record.steps;
    emit(next, x);
  }
  record.final_state = x;
  finish_engine_record(*world, model, started, output.seconds(), record);
  return record;
}

std::unique_ptr<EngineWorld> EngineSolver::start_world(const EngineScene& scene, const State& x0,
                                                       double h, const RunSettings& settings,
                                                       RunRecord& record) const {
  Eigen::VectorXd engine_q, engine_v;
  scene.to_engine(x0.q, x0.v, engine_q, engine_v);
  std::string contact_model;
  try {
    auto world =
        make_world(scene, State{.t = x0.t, .q = engine_q, .v = engine_v},
                   engine_contact_law(settings), h, settings, record.tolerances, contact_model);
    record.diagnostics["contact_model"] = contact_model;
    return world;
  } catch (const std::exception& e) {
    record.reason = std::string("the engine did not build the scene: ") + e.what();
    return nullptr;
  }
}

}  // namespace crbench
