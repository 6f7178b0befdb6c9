// crbench's engine solvers against programs written directly against each engine's library
// (bench/perf/direct_engines.hpp): dk-plane's scene, the engine's default contact or the mapped
// viscous one, a constant step h, the switching force taken at each step's start. What crbench adds
// (the scene from the case, the force through the scene's map, the record) must leave the engine's
// motion as the engine computes it: the height and its rate at the horizon and the lowest height
// (the contact's resting depth) agree to round-off. Built with each engine's CMake option; this
// program links the engines' libraries itself.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "crbench/bench/perf/direct_engines.hpp"
#include "crbench/cases/registry.hpp"
#include "crbench/solvers/record.hpp"
#include "tests/support.hpp"

namespace engine_direct_tests {

namespace {

// What a direct program measures: the height z and its rate at the horizon, the lowest z.
struct Motion {
  double z = 0.0, rate = 0.0, lowest = 0.0;
};

// A direct program's motion over t_end/h steps from the start.
template <class World>
Motion direct_motion(World& world, double h, double t_end) {
  Motion out;
  for (long k = 0; k < std::lround(t_end / h); ++k) {
    world.step(crbench::direct::switching_force(world.x()));
    out.lowest = std::min(out.lowest, world.z());
  }
  out.z = world.z();
  out.rate = world.rate();
  return out;
}

// The mapped viscous contact at N = 1e4 (damping beta N = 1e4, no stiffness), or the engine's
// default (mapped = false).
crbench::direct::Contact contact(bool mapped) {
  return mapped ? crbench::direct::Contact{.engine_default = false, .damping = 1e4}
                : crbench::direct::Contact{};
}

// crbench's run of dk-plane with the engine's default contact or the mapped viscous one at
// N = 1e4 to t_end, against the direct program's motion.
void check_same_motion(const std::string& solver, bool mapped, double h, double t_end,
                       const Motion& direct, std::vector<crbench::Assignment> extra = {}) {
  const auto model = crbench::make_model("dk-plane", {});
  crbench::testing::SolveOptions o;
  o.solver = solver;
  o.solver_params = {{"h", crbench::format_number(h)}};
  if (mapped) {
    o.solver_params.push_back({"N", "1e4"});
  } else {
    o.solver_params.push_back({"preset", "engine-default"});
  }
  for (auto& a : extra) o.solver_params.push_back(std::move(a));
  o.t_end = t_end;
  const crbench::RunRecord r = crbench::testing::solve(*model, o);
  REQUIRE(r.status == crbench::Status::ok);
  CHECK(r.final_state.q(1) == Approx(direct.z).epsilon(1e-12));
  CHECK(r.final_state.v(1) == Approx(direct.rate).epsilon(1e-12));
  CHECK(r.min_constraint[0] == Approx(direct.lowest).epsilon(1e-12).margin(1e-15));
}

constexpr double kStep = 1e-3, kHorizon = 1.1;

}  // namespace

#ifdef CRBENCH_HAVE_MUJOCO
TEST_CASE("mujoco: crbench's run is a direct MuJoCo program's, planar and free", "[engines]") {
  // Measured (direct, default contact): resting depths 2.9679950633e-5 (two slides) and
  // 4.4460270950e-5 (free).
  for (const bool mapped : {false, true}) {
    for (const bool free : {false, true}) {
      INFO((free ? "free" : "planar") << (mapped ? ", mapped" : ", default"));
      crbench::direct::Mujoco world(free, contact(mapped), kStep);
      const Motion direct = direct_motion(world, kStep, kHorizon);
      if (!mapped) {
        CHECK(direct.lowest == Approx(free ? -4.4460270950e-5 : -2.9679950633e-5).epsilon(1e-9));
      }
      check_same_motion("mujoco", mapped, kStep, kHorizon, direct,
                        {{"joints", free ? "free" : "planar"}});
    }
  }
}
#endif

// The engine's direct program against crbench's solver, with the default and the mapped contact.
template <class World>
[[maybe_unused]] void check_both_contacts(const std::string& solver) {
  for (const bool mapped : {false, true}) {
    INFO((mapped ? "mapped" : "default"));
    World world(contact(mapped), kStep);
    check_same_motion(solver, mapped, kStep, kHorizon, direct_motion(world, kStep, kHorizon));
  }
}

#ifdef CRBENCH_HAVE_ODE
TEST_CASE("ode: crbench's run is a direct ODE program's", "[engines]") {
  check_both_contacts<crbench::direct::Ode>("ode");
}
#endif

#ifdef CRBENCH_HAVE_BULLET
TEST_CASE("bullet: crbench's run is a direct Bullet program's", "[engines]") {
  check_both_contacts<crbench::direct::Bullet>("bullet");
}
#endif

}  // namespace engine_direct_tests
