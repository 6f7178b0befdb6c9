#include "cases/registry.hpp"

#include "cases/bouncing_ball_penalty.hpp"
#include "cases/bouncing_ball_siconos.hpp"
#include "cases/chaplygin_sled.hpp"
#include "cases/dk_counterexample.hpp"
#include "cases/dk_plane.hpp"
#include "cases/knife_edge_incline.hpp"
#include "cases/oscillator_at_wall.hpp"
#include "cases/parabola_integrable.hpp"
#include "cases/particle_on_circle.hpp"
#include "cases/pendulum_string.hpp"
#include "cases/plane_reparametrized.hpp"
#include "cases/rough_disk.hpp"
#include "cases/rubin_ungar_rail.hpp"
#include "cases/skate_wall.hpp"
#include "cases/stiff_pendulum.hpp"
#include "cases/unilateral_skate.hpp"
#include "cases/vibrating_table.hpp"
#include "solvers/dynamics.hpp"

namespace crbench {
namespace {

template <Case C>
CaseEntry entry() {
  return {case_info<C>(), [](const ParamValues& p) { return std::make_unique<CaseModel<C>>(p); }};
}

}  // namespace

const std::vector<CaseEntry>& case_registry() {
  static const std::vector<CaseEntry> cases = {
      entry<cases::DkPlane>(),
      entry<cases::BouncingBallSiconos>(),
      entry<cases::DkCounterexample>(),
      entry<cases::ParticleOnCircle>(),
      entry<cases::PendulumString>(),
      entry<cases::VibratingTable>(),
      entry<cases::OscillatorAtWall>(),
      entry<cases::BouncingBallPenalty>(),
      entry<cases::PlaneReparametrized>(),
      entry<cases::KnifeEdgeIncline>(),
      entry<cases::ChaplyginSled>(),
      entry<cases::ParabolaIntegrable>(),
      entry<cases::RubinUngarRail>(),
      entry<cases::StiffPendulum>(),
      entry<cases::UnilateralSkate>(),
      entry<cases::SkateWall>(),
      entry<cases::RoughDisk>(),
  };
  return cases;
}

const CaseEntry& find_case(std::string_view name) {
  std::string known;
  for (const auto& c : case_registry()) {
    if (c.info.name == name) return c;
    known += (known.empty() ? "" : ", ") + c.info.name;
  }
  throw InputError("--case: unknown case '" + std::string(name) + "'; known cases: " + known);
}

std::unique_ptr<Model> make_model(std::string_view name,
                                  const std::vector<Assignment>& assignments) {
  const CaseEntry& c = find_case(name);
  return c.make(resolve_params(c.info.params, assignments, "case " + c.info.name));
}

}  // namespace crbench
