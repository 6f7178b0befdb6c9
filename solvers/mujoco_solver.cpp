#include "crbench/solvers/mujoco_solver.hpp"

#include <memory>
#include <string>
#include <vector>

namespace crbench {

std::string MujocoSolver::description() const {
  return "The case as MuJoCo (2.2.2) spheres with contact pairs, frictionless (condim 1) or with "
         "the case's Coulomb mu (condim 3, a Coulomb case's): the "
         "realization's gamma N and beta N as MuJoCo's direct reference (solref = (-k, -b), "
         "mass-normalized) with constant impedance d, or MuJoCo's default solref and solimp "
         "(--preset engine-default); the case's forces applied each step (qfrc_applied). Obstacle "
         "interaction only (MuJoCo's contact pushes only).";
}

std::vector<ParamSpec> MujocoSolver::engine_parameters() const {
  return {{.name = "impedance",
           .default_value = 0.9999,
           .min = 0.0001,
           .max = 0.9999,
           .description = "MuJoCo's constant impedance d (solimp dmin = dmax) of the mapped "
                          "presets: the pushing contact lets about (1 - d) c of the free "
                          "acceleration through, c = MuJoCo's diagonal approximation / J M^-1 J^T "
                          "(2/3 for a sphere's contact, 1 for a tendon; MuJoCo clamps d to "
                          "[0.0001, 0.9999])"},
          {.name = "dampratio",
           .default_value = 1.0,
           .min = 0.0,
           .max = 1e3,
           .min_inclusive = false,
           .description = "the damping ratio of MuJoCo's default solref (timeconst, dampratio) = "
                          "(0.02, 1) of --preset engine-default: below 1 the contact's reference "
                          "oscillates and the body bounces (MuJoCo's documented way to a "
                          "restitution); not set: 1"},
          {.name = "impratio",
           .default_value = 1.0,
           .min = 1e-4,
           .max = 1e4,
           .description = "MuJoCo's impratio, the ratio of a contact's frictional to normal "
                          "impedance (option impratio; a Coulomb case's contacts only)",
           .omitted_at_default = true}};
}

std::optional<std::string> MujocoSolver::scene_refusal(const EngineScene& scene,
                                                       const RunSettings& settings) const {
  // The friction settings are left out of the settings at their defaults: present, they were
  // asked for, and a frictionless scene would ignore them.
  if (!scene.has_friction()) {
    for (const char* key : {"impratio", "cone"}) {
      if (settings.solver_params.contains(key) || settings.solver_choices.contains(key)) {
        return std::string("--") + key +
               " applies to contacts with Coulomb friction only; this case's are frictionless";
      }
    }
  }
  const auto joints = settings.solver_choices.find("joints");
  if (joints == settings.solver_choices.end() || joints->second != "free") return std::nullopt;
  for (const EngineContact& c : scene.contacts) {
    if (c.friction > 0.0 && scene.bodies[static_cast<std::size_t>(c.a)].rotation < 0) {
      return "a free joint lets the sphere roll where the case's body slides without turning; "
             "use --joints planar (slides, no hinge)";
    }
  }
  return std::nullopt;
}

std::vector<std::string> MujocoSolver::default_only_parameters() const { return {"dampratio"}; }

std::vector<ChoiceSpec> MujocoSolver::engine_choices() const {
  return {
      {.name = "integrator",
       .options = {"euler", "implicit", "rk4"},
       .default_value = "euler",
       .description = "MuJoCo's integrator: semi-implicit Euler (its default), implicit in "
                      "velocity (joint damping only; the contact stays explicit), or "
                      "Runge-Kutta 4 (the contact and the case's force at each stage)"},
      {.name = "refsafe",
       .options = {"on", "off"},
       .default_value = "on",
       .description = "MuJoCo's refsafe: a positive solref's timeconst raised to 2h (engine-"
                      "default only; the direct solref of the mapped presets is not clamped)"},
      {.name = "joints",
       .options = {"planar", "free"},
       .default_value = "planar",
       .description = "each body's joints: a slide per case coordinate on x or z and a hinge per "
                      "rotation (planar), or a free joint (free, as a user models a ball); the "
                      "mapped contact lets through (1 - d) c of the free acceleration, c = 2/3 for "
                      "a sphere on two slides, 1 for a free one"},
      {.name = "rod",
       .options = {"tendon", "sphere"},
       .default_value = "tendon",
       .description = "a point kept at least a distance from a fixed point (particle-on-"
                      "circle): a spatial tendon's lower limit, or the point's sphere against a "
                      "fixed sphere (an ordinary contact pair, as ODE and Bullet have it); a "
                      "string is always a tendon"},
      {.name = "cone",
       .options = {"pyramidal", "elliptic"},
       .default_value = "pyramidal",
       .description = "MuJoCo's friction cone of a Coulomb case's contacts (option cone): four "
                      "pyramid edges (its default) or the elliptic cone",
       .omitted_at_default = true}};
}

RodShape MujocoSolver::rod_shape(const RunSettings& settings) const {
  const auto rod = settings.solver_choices.find("rod");
  return rod != settings.solver_choices.end() && rod->second == "sphere" ? RodShape::sphere
                                                                         : RodShape::tendon;
}

std::string MujocoSolver::engine_version() const { return engine_plugin("mujoco").version(); }

std::unique_ptr<EngineWorld> MujocoSolver::make_world(const EngineScene& scene, const State& x0,
                                                      const EngineContactLaw& law, double h,
                                                      const RunSettings& settings,
                                                      ParamValues& tolerances,
                                                      std::string& contact_model) const {
  return engine_plugin("mujoco").make_world(scene, x0, law, h, settings, tolerances, contact_model);
}

}  // namespace crbench
