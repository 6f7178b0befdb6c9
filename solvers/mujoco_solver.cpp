#include "crbench/solvers/mujoco_solver.hpp"

#include <memory>
#include <string>
#include <vector>

namespace crbench {

std::string MujocoSolver::description() const {
  return "The case as MuJoCo (2.2.2) spheres with frictionless contact pairs (condim 1): the "
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
                          "presets: the pushing contact keeps (1 - d) of the free acceleration "
                          "(MuJoCo clamps d to [0.0001, 0.9999])"}};
}

std::vector<ChoiceSpec> MujocoSolver::engine_choices() const {
  return {{.name = "integrator",
           .options = {"euler", "implicit", "rk4"},
           .default_value = "euler",
           .description = "MuJoCo's integrator: semi-implicit Euler (its default), implicit in "
                          "velocity (joint damping only; the contact stays explicit), or "
                          "Runge-Kutta 4 (the contact and the case's force at each stage)"},
          {.name = "refsafe",
           .options = {"on", "off"},
           .default_value = "on",
           .description = "MuJoCo's refsafe: a positive solref's timeconst raised to 2h (engine-"
                          "default only; the direct solref of the mapped presets is not clamped)"}};
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
