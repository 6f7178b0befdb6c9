// The time-stepping solvers' frictional contact problem pairs each unilateral constraint with
// exactly one Coulomb row (docs/theory.md section 2). A case outside that shape (here a rough
// floor beside a frictionless wall, registered by this test only) is refused before the solve,
// with one message and exit status 2, while event-driven computes it.
#include <catch2/catch.hpp>
#include <cmath>
#include <mutex>
#include <string>

#include "crbench/cases/block_on_incline.hpp"
#include "crbench/cases/register_case.hpp"
#include "crbench/cases/registry.hpp"
#include "crbench/solvers/solver.hpp"
#include "tests/support.hpp"

namespace crbench::testing::friction_refusal_tests {
namespace {

// block-on-incline at angle 0 (a unit point on the floor y >= 0 with its Coulomb row u = x') with
// a frictionless wall x <= 1 beside it; launched along the floor at v0 = 2 with mu = 0.5 it stops
// at t* = v0/(mu g), x* = v0^2/(2 mu g) = 0.41, before the wall.
struct RoughFloorSmoothWall : cases::BlockOnIncline {
  static constexpr int m = 2;
  using BlockOnIncline::BlockOnIncline;

  static CaseInfo info() {
    CaseInfo info = BlockOnIncline::info();
    info.name = "rough-floor-smooth-wall";
    info.description = "test only: block-on-incline with a frictionless wall x <= 1 beside it";
    info.constraint_units = {"length", "length"};
    info.constraint_names = {"floor", "wall"};
    info.constraints = m;
    return info;
  }

  template <class S>
  Vec<S, m> constraints(const Vec<S, n>& q, const S& /*t*/) const {
    return Vec<S, m>(q(1), 1.0 - q(0));
  }

  // The block's closed forms do not know the wall.
  Facts facts() const { return {}; }
};

void register_refused_case() {
  static std::once_flag once;
  std::call_once(once, [] { register_case(case_entry<RoughFloorSmoothWall>()); });
}

}  // namespace

TEST_CASE(
    "moreau-jean and siconos-moreau-jean refuse a constraint without its Coulomb row beside one "
    "with it (exit 2, one line) while event-driven computes the case",
    "[friction][reliability]") {
  register_refused_case();
  std::vector<std::string> refusing = {"moreau-jean"};
#ifdef CRBENCH_HAVE_SICONOS
  refusing.emplace_back("siconos-moreau-jean");
#endif
  const auto model = make_model("rough-floor-smooth-wall", {{"angle", "0"}, {"v0", "2"}});
  for (const auto& solver : refusing) {
    INFO(solver);
    const auto why = find_solver(solver).refusal(*model, {});
    REQUIRE(why);
    CHECK(why->find("exactly one Coulomb row") != std::string::npos);
    const CliResult r = cli({"run", "--case", "rough-floor-smooth-wall", "--set", "angle=0",
                             "--set", "v0=2", "--solver", solver});
    CHECK(r.status == 2);
    CHECK(r.out.empty());
    CHECK(r.err.find("exactly one Coulomb row") != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
  // The same case, ideal: the slide stops at t* = v0/(mu g), x* = v0^2/(2 mu g).
  const RunRecord run = solve(*model);
  INFO(run.reason);
  REQUIRE(run.status == Status::ok);
  CHECK(run.final_state.q(0) == Approx(4.0 / (2.0 * 0.5 * 9.81)).epsilon(1e-10));
  bool stuck = false;
  for (const auto& e : run.events) {
    if (e.kind == EventKind::kinematic_contact) {
      stuck = true;
      CHECK(e.t == Approx(2.0 / (0.5 * 9.81)).epsilon(1e-10));
    }
  }
  CHECK(stuck);
}

}  // namespace crbench::testing::friction_refusal_tests
