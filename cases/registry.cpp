#include "crbench/cases/registry.hpp"

#include <utility>

#include "crbench/cases/ball_chain.hpp"
#include "crbench/cases/bouncing_ball_penalty.hpp"
#include "crbench/cases/bouncing_ball_siconos.hpp"
#include "crbench/cases/chaplygin_sled.hpp"
#include "crbench/cases/dk_counterexample.hpp"
#include "crbench/cases/dk_plane.hpp"
#include "crbench/cases/knife_edge_incline.hpp"
#include "crbench/cases/oscillator_at_wall.hpp"
#include "crbench/cases/parabola_integrable.hpp"
#include "crbench/cases/particle_on_circle.hpp"
#include "crbench/cases/pendulum_string.hpp"
#include "crbench/cases/plane_reparametrized.hpp"
#include "crbench/cases/register_case.hpp"
#include "crbench/cases/rough_disk.hpp"
#include "crbench/cases/rubin_ungar_rail.hpp"
#include "crbench/cases/skate_wall.hpp"
#include "crbench/cases/stiff_pendulum.hpp"
#include "crbench/cases/unilateral_skate.hpp"
#include "crbench/cases/vibrating_table.hpp"

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
