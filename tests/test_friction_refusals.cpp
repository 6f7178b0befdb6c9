// The time-stepping solvers' frictional contact problem pairs each unilateral constraint with
// exactly one Coulomb row (docs/theory.md section 2). A case outside that shape (here a rough
// floor beside a frictionless wall, registered by this test only) is refused before the solve,
// with one message and exit status 2, while event-driven computes it.
#include <catch2/catch.hpp>
#include <cmath>
#include <mutex>
#include <string>

#include "crbench/cases/register_case.hpp"
#include "crbench/cases/registry.hpp"
#include "crbench/solvers/solver.hpp"
#include "tests/support.hpp"

namespace crbench::testing::friction_refusal_tests {
namespace {

// A unit point on the floor y >= 0 (a Coulomb row u = x') at x = 0, the wall x <= 1 (no
// friction row), gravity 9.81, launched along the floor at 2: it stops at t* = 2/(mu g) and
// x* = 2/(mu g), before the wall.
struct RoughFloorSmoothWall : UnitMetric<2>, NoForce<2> {
  static constexpr int n = 2;
  static constexpr int m = 2;
  static constexpr int kinematic = 1;
  double mu;

  explicit RoughFloorSmoothWall(const ParamValues& p) : mu(p.at("mu")) {}

  static CaseInfo info() {
    return {
        .name = "rough-floor-smooth-wall",
        .description = "test only: a point on a rough floor (Coulomb) beside a smooth wall",
        .params = {{.name = "mu",
                    .default_value = 0.5,
                    .min = 0.0,
                    .max = 100.0,
                    .description = "Coulomb's friction coefficient of the floor"}},
        .dof = n,
        .coordinates = {{"x", "length"}, {"y", "length"}},
        .constraint_units = {"length", "length"},
        .constraint_names = {"floor", "wall"},
        .constraints = m,
        .switches = 0,
        .kinematic_condition = {0},
        .coulomb_rows = {0},
    };
  }

  double friction_coefficient(int /*r*/) const { return mu; }

  template <class S>
  S potential(const Vec<S, n>& q, const S& /*t*/) const {
    return 9.81 * q(1);
  }

  template <class S>
  Vec<S, m> constraints(const Vec<S, n>& q, const S& /*t*/) const {
    return Vec<S, m>(q(1), 1.0 - q(0));
  }

  template <class S>
  Mat<S, kinematic, n> kinematic_rows(const Vec<S, n>& /*q*/, const S& /*t*/) const {
    Mat<S, kinematic, n> a;
    a << S(1.0), S(0.0);
    return a;
  }

  State initial_state() const {
    return {.t = 0.0, .q = Eigen::Vector2d(0.0, 0.0), .v = Eigen::Vector2d(2.0, 0.0)};
  }

  double horizon() const { return 1.0; }
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
  const auto model = make_model("rough-floor-smooth-wall", {});
  for (const auto& solver : refusing) {
    INFO(solver);
    const auto why = find_solver(solver).refusal(*model, {});
    REQUIRE(why);
    CHECK(why->find("exactly one Coulomb row") != std::string::npos);
    const CliResult r = cli({"run", "--case", "rough-floor-smooth-wall", "--solver", solver});
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
