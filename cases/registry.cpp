#include "cases/registry.hpp"

#include <utility>

#include "cases/ball_chain.hpp"
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
#include "cases/register_case.hpp"
#include "cases/rough_disk.hpp"
#include "cases/rubin_ungar_rail.hpp"
#include "cases/skate_wall.hpp"
#include "cases/stiff_pendulum.hpp"
#include "cases/unilateral_skate.hpp"
#include "cases/vibrating_table.hpp"

namespace crbench {
namespace {

std::deque<CaseEntry>& registry() {
  static std::deque<CaseEntry> cases = {
      case_entry<cases::DkPlane>(),
      case_entry<cases::BouncingBallSiconos>(),
      case_entry<cases::DkCounterexample>(),
      case_entry<cases::ParticleOnCircle>(),
      case_entry<cases::PendulumString>(),
      case_entry<cases::VibratingTable>(),
      case_entry<cases::OscillatorAtWall>(),
      case_entry<cases::BouncingBallPenalty>(),
      case_entry<cases::PlaneReparametrized>(),
      case_entry<cases::KnifeEdgeIncline>(),
      case_entry<cases::ChaplyginSled>(),
      case_entry<cases::ParabolaIntegrable>(),
      case_entry<cases::RubinUngarRail>(),
      case_entry<cases::StiffPendulum>(),
      case_entry<cases::UnilateralSkate>(),
      case_entry<cases::SkateWall>(),
      case_entry<cases::RoughDisk>(),
      chain_entry<cases::BallChain>(),
  };
  return cases;
}

}  // namespace

const std::deque<CaseEntry>& case_registry() { return registry(); }

void register_case(CaseEntry entry) {
  for (const auto& c : registry()) {
    if (c.info.name == entry.info.name) {
      throw InputError("register_case: a case named '" + entry.info.name + "' exists already");
    }
  }
  registry().push_back(std::move(entry));
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
