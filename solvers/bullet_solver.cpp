#include "crbench/solvers/bullet_solver.hpp"

#include <memory>
#include <string>
#include <vector>

namespace crbench {

std::string BulletSolver::description() const {
  return "The case as Bullet (3.24, float64) spheres and ground plane with frictionless contacts "
         "and the sequential-impulse solver: the realization's gamma N and beta N as the bodies' "
         "contact stiffness and damping (an implicit spring-damper row, split impulse off), or "
         "Bullet's default contact (--preset engine-default); the case's forces applied each "
         "step. Obstacle interaction only (the contact row pushes only).";
}

std::vector<ParamSpec> BulletSolver::engine_parameters() const {
  return {{.name = "iterations",
           .default_value = 100,
           .min = 1,
           .max = 1e6,
           .description = "sequential-impulse iterations per step of the mapped presets (Bullet's "
                          "default, kept by engine-default, is 10)",
           .whole = true},
          {.name = "restitution",
           .default_value = 0.0,
           .min = 0.0,
           .max = 1.0,
           .description = "Bullet's restitution e of --preset engine-default: every body's "
                          "restitution sqrt(e), which Bullet combines as a product (its solver "
                          "gives none to a contact approaching slower than its restitution "
                          "velocity threshold, 0.2); not set: 0"}};
}

std::vector<std::string> BulletSolver::default_only_parameters() const { return {"restitution"}; }

std::string BulletSolver::engine_version() const { return engine_plugin("bullet").version(); }

std::unique_ptr<EngineWorld> BulletSolver::make_world(const EngineScene& scene, const State& x0,
                                                      const EngineContactLaw& law, double h,
                                                      const RunSettings& settings,
                                                      ParamValues& tolerances,
                                                      std::string& contact_model) const {
  return engine_plugin("bullet").make_world(scene, x0, law, h, settings, tolerances, contact_model);
}

}  // namespace crbench
