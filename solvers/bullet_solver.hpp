// Solver `bullet`: the case's scene (solvers/engine_scene.hpp) simulated by Bullet (Debian's
// libbullet-dev 3.24, its float64 libraries): rigid spheres and a static ground plane in a
// btDiscreteDynamicsWorld, frictionless, with btSequentialImpulseConstraintSolver. The
// realization's stiffness kp = γN and damping kd = βN become the bodies' contact stiffness and
// damping (Bullet combines two bodies' as 1/(1/k₀ + 1/k₁) and d₀ + d₁, so each body gets 2kp and
// kd/2), which Bullet's solver turns into the contact row's ERP = h kp/(h kp + kd) and
// CFM = 1/(h kp + kd), ODE's implicit spring–damper; split impulse is off (it would move the
// penetration out without a force) and a contact acts only at a gap ≤ 0 (contact processing
// threshold 0; Bullet's default also acts on a gap about to close within the step).
// --preset engine-default keeps Bullet's contact: ERP 0.2 with split impulse, 10 iterations.
// Built with the CMake option CRBENCH_BULLET (on when the package is found).
#pragma once

#include "crbench/solvers/engine_solver.hpp"

namespace crbench {

class BulletSolver final : public EngineSolver {
 public:
  std::string name() const override { return "bullet"; }
  std::string description() const override;

 protected:
  std::vector<ParamSpec> engine_parameters() const override;
  std::vector<std::string> default_only_parameters() const override;
  std::vector<std::string> mapped_only_parameters() const override { return {"iterations"}; }
  std::string engine_version() const override;
  std::unique_ptr<EngineWorld> make_world(const EngineScene& scene, const State& x0,
                                          const EngineContactLaw& law, double h,
                                          const RunSettings& settings, ParamValues& tolerances,
                                          std::string& contact_model) const override;
};

}  // namespace crbench
