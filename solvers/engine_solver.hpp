// What the physics-engine solvers (mujoco, ode, bullet) share: the parameters that map crbench's
// obstacle realization (stiffness γN, viscosity βN, no added mass) onto the engine's contact, the
// engine's fixed step h, and the loop that drives the engine one step at a time and writes the
// record as the realization's: episodes are stays in penetration (the gap f < 0), the lift-off is
// the last exit from it. Each engine supplies an EngineWorld built from the case's EngineScene.
#pragma once

#include <Eigen/Core>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "crbench/solvers/engine_scene.hpp"
#include "crbench/solvers/solver.hpp"

namespace crbench {

// The contact the user asked for: the preset engine-default (the engine's own contact softness),
// or the realization's spring–damper, force = −(stiffness f + damping ḟ) while it pushes.
struct EngineContactLaw {
  bool engine_default = false;
  double stiffness = 0.0;  // γN, force per unit of f
  double damping = 0.0;    // βN, force per unit of ḟ
};

// What a world's step throws when the engine returned but reported that the step is not to be
// trusted (it reset its state on a bad acceleration, a contact buffer overflowed, its LCP solver
// failed): the text says why; the record's reason puts it at the step's end.
struct UntrustedStep : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One engine's simulation of one scene.
class EngineWorld {
 public:
  virtual ~EngineWorld() = default;
  // The case's generalized force in the engine's coordinates at time t and the engine's positions
  // p and rates u (EngineScene::engine_force of the case's Q − ∂V/∂q there).
  using StageForce = std::function<void(double t, const Eigen::VectorXd& p,
                                        const Eigen::VectorXd& u, Eigen::VectorXd& force)>;
  // One step from t of length h with the generalized force `force` (in the engine's coordinates,
  // EngineScene::engine_force, at the step's start) held over it, or, for a world that asked for
  // it, evaluated by `stage_force` at each stage of its method. Throws UntrustedStep when the
  // engine reported the step as not to be trusted although it returned, std::runtime_error with
  // the engine's message when the engine fails.
  virtual void step(double t, const Eigen::VectorXd& force, double h) = 0;
  // Given once before the first step; a world whose method has stages (MuJoCo's Runge–Kutta)
  // evaluates the case's force through it at each stage instead of holding `force` over the step.
  virtual void use_stage_force(StageForce /*stage_force*/) {}
  // The engine's coordinates and their rates now (EngineScene::to_case maps them to the case's).
  virtual void state(Eigen::VectorXd& q, Eigen::VectorXd& v) const = 0;
  // The normal impulse of each scene contact over the last step (0 where there was no contact),
  // valid until the next step.
  virtual const Eigen::VectorXd& contact_impulses() const = 0;
  // Warnings to add to an ok record (an explicit contact step past its stability bound, ...).
  virtual std::vector<std::string> warnings() const { return {}; }
  // Counters for the record's diagnostics (contacts the engine found outside the case's, ...).
  virtual void add_diagnostics(nlohmann::ordered_json& /*diagnostics*/) const {}
  // Case force evaluations per step (1 for the engines' single-evaluation steps).
  virtual int force_evaluations_per_step() const { return 1; }
};

// The interface of an engine's plugin (solvers/plugin.hpp; solvers/<engine>_world.cpp, the only
// code that calls the engine's library): its version ("MuJoCo 2.2.2") and its worlds
// (EngineSolver::make_world).
struct EnginePlugin {
  std::string (*version)();
  std::unique_ptr<EngineWorld> (*make_world)(const EngineScene& scene, const State& x0,
                                             const EngineContactLaw& law, double h,
                                             const RunSettings& settings, ParamValues& tolerances,
                                             std::string& contact_model);
};
// The plugin of the engine `name` (mujoco, ode, bullet), loaded at the first call; InputError
// naming its file when it cannot be.
const EnginePlugin& engine_plugin(const std::string& name);

class EngineSolver : public Solver {
 public:
  std::vector<ParamSpec> parameters() const final;
  std::vector<ChoiceSpec> choices() const final;
  bool takes_tolerances() const final { return false; }
  void finalize(ParamValues& params, ChoiceValues& choices,
                const std::vector<std::string>& assigned) const final;
  // The obstacle realization converges to the classical model (Deryabin & Kozlov 1995, end of §6).
  std::string limit_model(const ParamValues&, const ChoiceValues&) const final {
    return "classical";
  }
  std::optional<std::string> refusal(const Model& model,
                                     const RunSettings& settings) const override;
  // The engines' contacts take Coulomb friction (EngineContact::friction).
  bool handles_coulomb_friction() const final { return true; }

 protected:
  // The engine's own parameters and choices (after the shared ones).
  virtual std::vector<ParamSpec> engine_parameters() const { return {}; }
  virtual std::vector<ChoiceSpec> engine_choices() const { return {}; }
  // Whether the engine keeps a body's distance from a fixed point within a limit (a tendon).
  virtual bool expresses_tendons() const { return false; }
  // How the scene makes a rod (a point kept at least a distance from a fixed point) with these
  // settings (settings without the engine's choices get its default).
  virtual RodShape rod_shape(const RunSettings& /*settings*/) const { return RodShape::sphere; }
  // Why the engine with these settings cannot run this scene (beyond what every engine refuses),
  // or nothing.
  virtual std::optional<std::string> scene_refusal(const EngineScene& /*scene*/,
                                                   const RunSettings& /*settings*/) const {
    return std::nullopt;
  }
  // The engine's parameters that only the mapped presets use (not engine-default).
  virtual std::vector<std::string> mapped_only_parameters() const { return {}; }
  // The engine's own contact settings that only engine-default takes (a restitution): in the
  // record's parameters only where given, the engine's default otherwise.
  virtual std::vector<std::string> default_only_parameters() const { return {}; }
  // "MuJoCo 2.2.2", ...
  virtual std::string engine_version() const = 0;
  // The world of the scene at the engine state x0 (positions and velocities in the engine's
  // coordinates, EngineScene::to_engine); records in `tolerances` every setting of the engine
  // the numbers depend on, and in `contact_model` what the contact law became in the engine.
  virtual std::unique_ptr<EngineWorld> make_world(const EngineScene& scene, const State& x0,
                                                  const EngineContactLaw& law, double h,
                                                  const RunSettings& settings,
                                                  ParamValues& tolerances,
                                                  std::string& contact_model) const = 0;
  RunRecord solve(const Model& model, const RunSettings& settings) const final;
  // The engine's world of the scene at x0, its contact model in the record's diagnostics and its
  // settings in the record's tolerances; null, with the reason in record.reason, when the engine
  // does not build it.
  std::unique_ptr<EngineWorld> start_world(const EngineScene& scene, const State& x0, double h,
                                           const RunSettings& settings, RunRecord& record) const;

 private:
  // refusal() for a scene already built.
  std::optional<std::string> refusal_of_scene(const Model& model,
                                              const std::variant<EngineScene, std::string>& scene,
                                              const RunSettings& settings) const;
};

// The preset whose contact softness is the engine's own.
inline const std::string kEngineDefaultPreset = "engine-default";

// The contact law the settings ask for.
EngineContactLaw engine_contact_law(const RunSettings& settings);

}  // namespace crbench
