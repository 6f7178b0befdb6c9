// Solver `siconos-event-driven`: the case run by the Siconos kernel's event-driven scheme
// (Acary & Brogliato 2008, chapter 7; Debian's libsiconos-kernel-dev 4.4): the same LagrangianDS
// and relations as siconos-moreau-jean (solvers/siconos_case.hpp), an EventDriven simulation with
// LsodarOSI (ODEPACK's DLSODAR, rtol and atol of the run), an LCP at the acceleration level for
// the forces of the closed contacts and one at the velocity level for impacts (NewtonImpactNSL).
// Built with the CMake option CRBENCH_SICONOS (on when the kernel is found).
#pragma once

#include "crbench/solvers/solver.hpp"

namespace crbench {

class SiconosEventDrivenSolver final : public Solver {
 public:
  std::string name() const override { return "siconos-event-driven"; }
  std::string description() const override;
  std::vector<ParamSpec> parameters() const override;
  std::vector<ChoiceSpec> choices() const override;
  void finalize(ParamValues& params, ChoiceValues& choices,
                const std::vector<std::string>& assigned) const override;
  std::string limit_model(const ParamValues& params, const ChoiceValues& choices) const override;
  std::optional<std::string> refusal(const Model& model,
                                     const RunSettings& settings) const override;

 protected:
  RunRecord solve(const Model& model, const RunSettings& settings) const override;
};

}  // namespace crbench
