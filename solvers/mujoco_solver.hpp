// Solver `mujoco`: the case's scene (solvers/engine_scene.hpp) simulated by MuJoCo (Debian's
// libmujoco-dev 2.2.2), its contacts as explicit contact pairs, frictionless (condim 1) or with
// the case's Coulomb coefficient (condim 3). The
// realization's (β, γ)N map onto MuJoCo's direct reference (solref = (−k, −b), k = γN·A_c,
// b = βN·A_c with A_c = J M⁻¹ Jᵀ of the contact: MuJoCo's reference acceleration is
// mass-normalized) with a constant impedance d (solimp = (d, d, ...)); --preset engine-default
// keeps MuJoCo's default solref and solimp. docs/engines.md derives what the contact then is:
// while it pushes, f̈ = (1 − d)·a₀ − b ḟ − k f, where the realization has f̈ = a₀ − b ḟ − k f.
// Built with the CMake option CRBENCH_MUJOCO (on when the package is found).
#pragma once

#include "crbench/solvers/engine_solver.hpp"

namespace crbench {

class MujocoSolver final : public EngineSolver {
 public:
  std::string name() const override { return "mujoco"; }
  std::string description() const override;

 protected:
  std::vector<ParamSpec> engine_parameters() const override;
  std::vector<std::string> default_only_parameters() const override;
  std::vector<ChoiceSpec> engine_choices() const override;
  std::vector<std::string> mapped_only_parameters() const override { return {"impedance"}; }
  bool expresses_tendons() const override { return true; }
  RodShape rod_shape(const RunSettings& settings) const override;
  std::optional<std::string> scene_refusal(const EngineScene& scene,
                                           const RunSettings& settings) const override;
  std::string engine_version() const override;
  std::unique_ptr<EngineWorld> make_world(const EngineScene& scene, const State& x0,
                                          const EngineContactLaw& law, double h,
                                          const RunSettings& settings, ParamValues& tolerances,
                                          std::string& contact_model) const override;
};

}  // namespace crbench
