#include "crbench/solvers/ode_solver.hpp"

#include <memory>
#include <string>
#include <vector>

namespace crbench {

std::string OdeSolver::description() const {
  return "The case as Open Dynamics Engine (0.16.2, double) spheres and ground plane with "
         "frictionless contact joints: the realization's gamma N and beta N as the contact's ERP "
         "and CFM (an implicit spring-damper), or the world's default ERP and CFM (--preset "
         "engine-default); the case's forces applied each step. Obstacle interaction only (the "
         "contact row pushes only).";
}

std::vector<ParamSpec> OdeSolver::engine_parameters() const {
  return {{.name = "quick_iterations",
           .default_value = 20,
           .min = 1,
           .max = 1e6,
           .description = "iterations of dWorldQuickStep's SOR (--stepper quick; ODE's default 20)",
           .whole = true},
          {.name = "bounce",
           .default_value = 0.0,
           .min = 0.0,
           .max = 1.0,
           .description = "ODE's restitution (dContactBounce: the contact's bounce, bounce_vel 0, "
                          "so at every impact speed) of --preset engine-default; not set: no "
                          "bounce"}};
}

std::vector<std::string> OdeSolver::default_only_parameters() const { return {"bounce"}; }

std::vector<ChoiceSpec> OdeSolver::engine_choices() const {
  return {{.name = "stepper",
           .options = {"world", "quick"},
           .default_value = "world",
           .description = "ODE's step: dWorldStep (an exact LCP, Dantzig) or dWorldQuickStep "
                          "(projected SOR iterations)"}};
}

std::string OdeSolver::engine_version() const { return engine_plugin("ode").version(); }

std::unique_ptr<EngineWorld> OdeSolver::make_world(const EngineScene& scene, const State& x0,
                                                   const EngineContactLaw& law, double h,
                                                   const RunSettings& settings,
                                                   ParamValues& tolerances,
                                                   std::string& contact_model) const {
  return engine_plugin("ode").make_world(scene, x0, law, h, settings, tolerances, contact_model);
}

}  // namespace crbench
