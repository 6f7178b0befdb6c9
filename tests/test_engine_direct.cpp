// crbench's engine solvers against programs written directly against each engine's library
// (bench/perf/direct_engines.hpp): dk-plane's scene, the engine's default contact or the mapped
// viscous one, a constant step h, the switching force taken at each step's start. What crbench adds
// (the scene from the case, the force through the scene's map, the record) must leave the engine's
// motion as the engine computes it: the height and its rate at the horizon and the lowest height
// (the contact's resting depth) agree to round-off. The impact study's point (crbench impacts: a
// ball starting at the surface moving down, its weight applied at each step) is checked the same
// way against the direct program started there. Built with each engine's CMake option; this
// program links the engines' libraries itself.
#include <catch2/catch.hpp>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "crbench/bench/impacts.hpp"
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

// A direct program's impact: the lowest z, the rate at the first step end back at z >= 0 after
// z < 0 and after a step in which the contact did not push (none: it rests), and z at the end of
// the window.
struct Impact {
  double lowest = 0.0, end = 0.0;
  std::optional<double> rebound;
};

template <class World>
Impact direct_impact(World& world, double h, double t_end) {
  constexpr double kWeight = -9.81;  // bouncing-ball-siconos's m g, m = 1
  Impact out;
  bool inside = false;
  for (long k = 0; k < std::lround(t_end / h); ++k) {
    world.step(kWeight);
    out.lowest = std::min(out.lowest, world.z());
    if (world.z() < 0.0) inside = true;
    // Out when back at z >= 0 after a step without a contact force (crbench's end of a contact).
    bool pushed = false;
    if constexpr (requires { world.pushed(); }) pushed = world.pushed();
    if (inside && world.z() >= 0.0 && !pushed && !out.rebound) out.rebound = world.rate();
  }
  out.end = world.z();
  return out;
}

// The impact study's point of `solver` at its defaults (crbench impacts' own code: one row, one
// speed, one step) against the direct program's impact.
void check_same_impact(const std::string& solver, std::vector<crbench::Assignment> set, double v,
                       double h, const Impact& direct) {
  set.push_back({"preset", "engine-default"});
  const crbench::ImpactStudy s = crbench::testing::impact_study_of(solver, set, {v}, {h});
  crbench::FolderRunOptions o;
  o.out_dir = crbench::testing::fresh_dir("impact_direct_" + solver).string();
  o.figures = false;
  const auto p = crbench::run_impact_study(s, o, "test.json").summary["results"][0];
  REQUIRE(p["status"] == "ok");
  CHECK(p["peak_penetration"].get<double>() == Approx(-direct.lowest).epsilon(1e-12).margin(1e-15));
  CHECK(p["final_gap"].get<double>() == Approx(direct.end).epsilon(1e-12).margin(1e-15));
  CHECK(p["rests"].get<bool>() == !direct.rebound.has_value());
  if (direct.rebound) CHECK(p["rebound"].get<double>() == Approx(*direct.rebound).epsilon(1e-12));
}

// block-on-incline started at rest (v0 = 0; mu = 0.5, g = 9.81) over its horizon 2, at the angle
// 0.3 (below the friction angle: it should stay) or 0.6 (above: it slides): where a direct
// program's block is at the end, its speed there (a creep, or the slide's), and its height above
// the incline (a sliding block may leave it).
struct Block {
  double x = 0.0, rate = 0.0, z = 0.0;
};

template <class World>
Block direct_block(World& world, double h, double angle) {
  const double g = 9.81;
  for (long k = 0; k < std::lround(2.0 / h); ++k) {
    world.step(-g * std::cos(angle), g * std::sin(angle));
  }
  return {world.x(), world.rate_x(), world.z()};
}

void check_same_block(const std::string& solver, std::vector<crbench::Assignment> extra, double h,
                      double angle, const Block& direct) {
  const auto model = crbench::make_model("block-on-incline",
                                         {{"v0", "0"}, {"angle", crbench::format_number(angle)}});
  crbench::testing::SolveOptions o;
  o.solver = solver;
  o.solver_params = {{"h", crbench::format_number(h)}, {"preset", "engine-default"}};
  for (auto& a : extra) o.solver_params.push_back(std::move(a));
  const crbench::RunRecord r = crbench::testing::solve(*model, o);
  REQUIRE(r.status == crbench::Status::ok);
  CHECK(r.final_state.t == 2.0);
  CHECK(r.final_state.q(0) == Approx(direct.x).epsilon(1e-12).margin(1e-15));
  CHECK(r.final_state.v(0) == Approx(direct.rate).epsilon(1e-12).margin(1e-15));
  CHECK(r.final_state.q(1) == Approx(direct.z).epsilon(1e-12).margin(1e-15));
}

// At rest and sliding on the incline: crbench's block is the direct program's at h = 1e-3 and
// 1e-2.
template <class World, class Make>
[[maybe_unused]] void check_blocks(const std::string& solver, Make make,
                                   std::vector<crbench::Assignment> extra = {}) {
  for (const double angle : {0.3, 0.6}) {
    for (const double h : {1e-3, 1e-2}) {
      INFO(solver << " at angle " << angle << ", h = " << h);
      World world = make(h);
      check_same_block(solver, extra, h, angle, direct_block(world, h, angle));
    }
  }
}

constexpr crbench::direct::Start kAtRest{.x = 0.0, .z = 0.0, .vx = 0.0, .vz = 0.0};

constexpr double kImpactSpeed = 20.0;
// The ball starting at the surface (its centre 0.1 above the plane z = -0.1) moving down.
constexpr crbench::direct::Start kImpactStart{.x = 0.0, .z = 0.0, .vx = 0.0, .vz = -kImpactSpeed};

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

#ifdef CRBENCH_HAVE_MUJOCO
TEST_CASE("mujoco: the impact study's point is a direct MuJoCo program's impact", "[engines]") {
  // At 20 the default contact lets the ball go (docs/engines.md); at h = 1e-2 it does at 5 too.
  for (const double h : {1e-3, 1e-2}) {
    INFO("h = " << h);
    crbench::direct::Mujoco world(true, crbench::direct::Contact{}, h, kImpactStart);
    const Impact direct = direct_impact(world, h, 0.5);
    REQUIRE(direct.rebound.has_value());
    check_same_impact("mujoco", {{"joints", "free"}}, kImpactSpeed, h, direct);
  }
  // With the damping ratio 0.2155 at h = 1e-2 the step is past its stability bound and the ball
  // leaves faster than it came (docs/engines.md): the engine's own doing, as the direct run shows.
  crbench::direct::Mujoco world(true, crbench::direct::Contact{.dampratio = 0.2155}, 1e-2,
                                kImpactStart);
  const Impact direct = direct_impact(world, 1e-2, 0.5);
  REQUIRE(direct.rebound.has_value());
  CHECK(*direct.rebound > kImpactSpeed);
  check_same_impact("mujoco", {{"joints", "free"}, {"dampratio", "0.2155"}}, kImpactSpeed, 1e-2,
                    direct);
}
#endif

#ifdef CRBENCH_HAVE_ODE
TEST_CASE("ode: the impact study's point is a direct ODE program's impact", "[engines]") {
  crbench::direct::Ode world(crbench::direct::Contact{}, kStep, kImpactStart);
  check_same_impact("ode", {}, kImpactSpeed, kStep, direct_impact(world, kStep, 0.5));
}
#endif

#ifdef CRBENCH_HAVE_BULLET
TEST_CASE("bullet: the impact study's point is a direct Bullet program's impact", "[engines]") {
  crbench::direct::Bullet world(crbench::direct::Contact{}, kStep, kImpactStart);
  check_same_impact("bullet", {}, kImpactSpeed, kStep, direct_impact(world, kStep, 0.5));
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

#ifdef CRBENCH_HAVE_MUJOCO
TEST_CASE("mujoco: a block on the incline creeps and slides as in a direct MuJoCo program",
          "[engines][friction]") {
  using crbench::direct::Contact;
  using crbench::direct::Mujoco;
  const auto with = [](Contact c) {
    return [c](double h) { return Mujoco(false, c, h, kAtRest); };
  };
  check_blocks<Mujoco>("mujoco", with(Contact{.mu = 0.5}));
  check_blocks<Mujoco>("mujoco", with(Contact{.mu = 0.5, .elliptic = true}),
                       {{"cone", "elliptic"}});
  check_blocks<Mujoco>("mujoco", with(Contact{.mu = 0.5, .impratio = 10.0}), {{"impratio", "10"}});
}
#endif

#ifdef CRBENCH_HAVE_ODE
TEST_CASE("ode: a block on the incline creeps and slides as in a direct ODE program",
          "[engines][friction]") {
  check_blocks<crbench::direct::Ode>("ode", [](double h) {
    return crbench::direct::Ode(crbench::direct::Contact{.mu = 0.5}, h, kAtRest);
  });
}
#endif

#ifdef CRBENCH_HAVE_BULLET
TEST_CASE("bullet: a block on the incline stays and slides as in a direct Bullet program",
          "[engines][friction]") {
  check_blocks<crbench::direct::Bullet>("bullet", [](double h) {
    return crbench::direct::Bullet(crbench::direct::Contact{.mu = 0.5}, h, kAtRest);
  });
}
#endif

}  // namespace engine_direct_tests
