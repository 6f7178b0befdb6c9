// Solver `ode`: the case's scene (solvers/engine_scene.hpp) simulated by the Open Dynamics Engine
// (Debian's libode-dev 0.16.2, double precision): rigid spheres, the ground plane, a contact joint
// (frictionless, mu = 0) wherever dCollide finds the scene's pair touching. The realization's
// stiffness kp = γN and damping kd = βN map onto the contact's ERP = h kp/(h kp + kd) and
// CFM = 1/(h kp + kd), which make the contact row the implicit spring–damper
// λ = −kp f(t+h) − kd ḟ(t+h) clamped to λ ≥ 0 (ODE user guide, "How To Use ERP and CFM";
// docs/engines.md); --preset engine-default keeps the world's ERP 0.2 and CFM 1e-10. Built with
// the CMake option CRBENCH_ODE (on when the package is found).
#pragma once

#include "crbench/solvers/engine_solver.hpp"

namespace crbench {

class OdeSolver final : public EngineSolver {
 public:
  std::string name() const override { return "ode"; }
  std::string description() const override;

 protected:
  std::vector<ParamSpec> engine_parameters() const override;
  std::vector<std::string> default_only_parameters() const override;
  std::vector<ChoiceSpec> engine_choices() const override;
  std::string engine_version() const override;
  std::unique_ptr<EngineWorld> make_world(const EngineScene& scene, const State& x0,
                                          const EngineContactLaw& law, double h,
                                          const RunSettings& settings, ParamValues& tolerances,
                                          std::string& contact_model) const override;
};

}  // namespace crbench
