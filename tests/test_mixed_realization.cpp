// Some constraints realized, the others ideal (--realize): the falling ladder with its wall in the
// medium and its floor ideal, checked against an integration independent of the case and of the
// solvers (Newton–Euler of the rod, Odeint's Dormand–Prince), the limit model of the same
// selection, and the refusals of a selection that names no constraint, repeats one, or leaves
// ideal what cannot be.
#include <Eigen/Dense>
#include <boost/numeric/odeint.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <numbers>

#include "support.hpp"

namespace mixed_realization_tests {

using namespace crbench;

namespace {

// The rod of half-length l on the floor (held: the centre's height is l sin θ), its top end at
// the gap u from the wall (the centre at x_c = u + l cos θ), in the medium while u < 0: the wall
// pushes with N_w = −N(α ü + β u̇ + γ u). With ẍ_c = ü − l sin θ θ̈ − l cos θ θ̇², the unknowns
// (ü, θ̈, N_w, N_f) solve
//   m ẍ_c = N_w,  m l (cos θ θ̈ − sin θ θ̇²) = N_f − m g,  −I θ̈ = l cos θ N_f − l sin θ N_w
// (the rod turns counterclockwise at −θ̇; forces at the ends (−l cos θ, l sin θ) and
// (l cos θ, −l sin θ) from the centre). The gap is integrated itself: as x_c − l cos θ it would
// carry the round-off of O(1) numbers, which the exit time feels N times over. Nothing here comes
// from the case's energy.
struct Rod {
  double l = 1.0, m = 1.0, g = 9.81;
  double alpha = 0.0, beta = 0.0, gamma = 0.0, N = 1.0;
  // x = (u, θ, u̇, θ̇); returns (ü, θ̈, N_w, N_f).
  Eigen::Vector4d solve(const std::array<double, 4>& x, bool inside) const {
    const double th = x[1], w = x[3], s = std::sin(th), c = std::cos(th), I = m * l * l / 3.0;
    Eigen::Matrix4d K = Eigen::Matrix4d::Zero();
    Eigen::Vector4d b = Eigen::Vector4d::Zero();
    K(0, 0) = m;
    K(0, 1) = -m * l * s;
    K(0, 2) = -1.0;
    b(0) = m * l * c * w * w;
    K(1, 1) = m * l * c;
    K(1, 3) = -1.0;
    b(1) = m * l * s * w * w - m * g;
    K(2, 1) = -I;
    K(2, 2) = l * s;
    K(2, 3) = -l * c;
    K(3, 2) = 1.0;
    if (inside) {
      K(3, 0) = N * alpha;
      b(3) = -N * (beta * x[2] + gamma * x[0]);
    }
    return K.partialPivLu().solve(b);
  }
  double gap(const std::array<double, 4>& x) const { return x[0]; }
};

namespace odeint = boost::numeric::odeint;
using RodState = std::array<double, 4>;

// From rest at θ0 with the top end on the wall (inside the medium: the free rod would push into
// it): the first exit from the medium, located by bisection on the dense output, or, when
// `until` comes first, the state there.
struct Outcome {
  double exit_time = std::nan("");
  RodState state{};
  double least_floor_force = std::numeric_limits<double>::infinity();
};
Outcome integrate(const Rod& rod, double theta0, double until) {
  const auto rhs = [&](const RodState& x, RodState& dx, double) {
    const Eigen::Vector4d a = rod.solve(x, true);
    dx = {x[2], x[3], a(0), a(1)};
  };
  auto stepper = odeint::make_dense_output(1e-16, 1e-13, odeint::runge_kutta_dopri5<RodState>());
  stepper.initialize(RodState{0.0, theta0, 0.0, 0.0}, 0.0, 1e-5);
  Outcome out;
  RodState x{};
  while (true) {
    const auto [t0, t1] = stepper.do_step(rhs);
    out.least_floor_force =
        std::min(out.least_floor_force, rod.solve(stepper.current_state(), true)(3));
    if (t1 >= until) {
      stepper.calc_state(until, out.state);
      return out;
    }
    if (rod.gap(stepper.current_state()) < 0.0 || t0 == 0.0) continue;
    double a = t0, b = t1;
    for (int i = 0; i < 200 && b - a > 1e-16 * b; ++i) {
      const double mid = 0.5 * (a + b);
      stepper.calc_state(mid, x);
      (rod.gap(x) < 0.0 ? a : b) = mid;
    }
    out.exit_time = 0.5 * (a + b);
    return out;
  }
}

nlohmann::json run_ladder(const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"run", "--case", "falling-ladder", "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  const testing::CliResult r = testing::cli(args);
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  return nlohmann::json::parse(r.out);
}

}  // namespace

TEST_CASE(
    "mixed realization: the ladder's wall in a medium with added mass and its floor ideal "
    "leaves the wall where an independent Newton-Euler integration does",
    "[realization][mixed][falling-ladder]") {
  for (const double N : {1e3, 1e4}) {
    INFO("N " << N);
    const Rod rod{.g = 0.1, .alpha = 1.0, .beta = 0.0, .gamma = 1.0, .N = N};
    const Outcome independent = integrate(rod, std::numbers::pi / 3.0, 1e9);
    REQUIRE(std::isfinite(independent.exit_time));
    CHECK(independent.least_floor_force > 0.0);  // the floor holds throughout
    const auto j =
        run_ladder({"--set", "g=0.1", "--solver", "realization", "--realize", "wall", "--alpha",
                    "1", "--beta", "0", "--gamma", "1", "--N", format_number(N)});
    CHECK(j["solver_params"]["realize"] == "wall");
    REQUIRE(j["constraint_lift_off_time"][0].is_number());
    CHECK(std::abs(j["constraint_lift_off_time"][0].get<double>() - independent.exit_time) < 1e-9);
    // The floor: one contact from the start, never released.
    CHECK(j["constraint_lift_off_time"][1].is_null());
    int floor_events = 0;
    for (const auto& e : j["events"]) {
      if (e["constraint"] != 1) continue;
      ++floor_events;
      CHECK(e["kind"] == "contact");
      CHECK(e["t"] == 0.0);
    }
    CHECK(floor_events == 1);
  }
}

TEST_CASE(
    "mixed realization: in a stiff viscous medium (the Rosenbrock phases with the floor's row "
    "enforced) the state agrees with the independent integration",
    "[realization][mixed][falling-ladder]") {
  // N = 100: the independent explicit integration still resolves the medium's rate βN·w.
  const Rod rod{.alpha = 0.0, .beta = 1.0, .gamma = 0.0, .N = 100.0};
  const double t = 0.4;  // before the classical release: the top is still in the medium
  const Outcome independent = integrate(rod, std::numbers::pi / 3.0, t);
  REQUIRE(std::isnan(independent.exit_time));
  const auto j = run_ladder(
      {"--solver", "realization", "--realize", "wall", "--N", "100", "--t-end", format_number(t)});
  const auto& q = j["final_state"]["q"];
  const auto& v = j["final_state"]["v"];
  const RodState& x = independent.state;
  CHECK(std::abs(q[0].get<double>() - x[0]) < 1e-12);
  CHECK(std::abs(q[1].get<double>()) < 1e-12);  // the floor's gap stays 0
  CHECK(std::abs(q[2].get<double>() - x[1]) < 1e-10);
  CHECK(std::abs(v[2].get<double>() - x[3]) < 1e-9);
  CHECK(j["diagnostics"]["stiff_steps"].get<long>() > 0);
}

TEST_CASE(
    "mixed realization: the limit model of the wall realized alone predicts the lift-off of "
    "both realized - the ladder in N approaches it at order 1",
    "[limit][mixed][falling-ladder]") {
  const std::vector<std::string> model = {"--set",  "g=0.1", "--alpha", "1",
                                          "--beta", "0",     "--gamma", "1"};
  auto limit_args = model;
  limit_args.insert(limit_args.end(), {"--solver", "limit"});
  const auto both = run_ladder(limit_args);
  limit_args.insert(limit_args.end(), {"--realize", "wall"});
  const auto wall = run_ladder(limit_args);
  REQUIRE(wall["constraint_lift_off_time"][0].is_number());
  const double limit = wall["constraint_lift_off_time"][0].get<double>();
  // The floor's z never returns to 0 before the horizon, so realizing it changes nothing.
  CHECK(std::abs(both["constraint_lift_off_time"][0].get<double>() - limit) < 1e-12);
  // N (tau_N - tau) is the same constant at every rung (order 1).
  std::vector<double> scaled;
  for (const double N : {1e3, 1e4, 1e5}) {
    auto args = model;
    args.insert(args.end(),
                {"--solver", "realization", "--realize", "wall", "--N", format_number(N)});
    const auto j = run_ladder(args);
    scaled.push_back(N * (j["constraint_lift_off_time"][0].get<double>() - limit));
  }
  CHECK(scaled[0] > 0.0);  // delayed
  CHECK(std::abs(scaled[1] / scaled[2] - 1.0) < 1e-3);
  CHECK(std::abs(scaled[0] / scaled[2] - 1.0) < 2e-3);
}

TEST_CASE(
    "mixed realization: an ideal contact's impact takes ideal_restitution in the realization and "
    "its limit alike",
    "[realization][limit][mixed]") {
  // Three balls with gaps: the first contact is a stiff spring (penalty), the second ideal. Equal
  // masses exchange their velocities through a linear spring; the ideal impact then does so for
  // e = 1 and shares the momentum for e = 0.
  for (const double e : {1.0, 0.0}) {
    INFO("e " << e);
    const std::vector<double> expected =
        e == 1.0 ? std::vector<double>{0.0, 0.0, 1.0} : std::vector<double>{0.0, 0.5, 0.5};
    for (const char* solver : {"realization", "limit"}) {
      INFO(solver);
      const testing::CliResult r =
          testing::cli({"run", "--case", "ball-chain", "--set", "n=3", "--set", "gap=0.5",
                        "--solver", solver, "--preset", "penalty", "--realize", "contact0",
                        "--ideal-restitution", format_number(e), "--json"});
      INFO(r.out << r.err);
      REQUIRE(r.status == 0);
      const auto j = nlohmann::json::parse(r.out);
      for (int i = 0; i < 3; ++i) {
        CHECK(std::abs(j["final_state"]["v"][i].get<double>() -
                       expected[static_cast<std::size_t>(i)]) < 1e-9);
      }
      int impacts = 0;
      for (const auto& event : j["events"]) {
        if (event["constraint"] == 1) {
          CHECK(event["kind"] == "impact");
          ++impacts;
        }
      }
      CHECK(impacts == 1);
      CHECK(std::abs(j["constraint_impulse"][1].get<double>() - (e == 1.0 ? 1.0 : 0.5)) < 1e-9);
    }
  }
}

TEST_CASE(
    "realize names constraints of the case once each - ideal-only settings need it - a run "
    "without it records neither",
    "[realization][limit][mixed][cli]") {
  for (const char* solver : {"realization", "limit"}) {
    INFO(solver);
    testing::check_refused(
        {"run", "--case", "falling-ladder", "--solver", solver, "--realize", "roof"},
        "realize: 'roof' is not a constraint of falling-ladder; its constraints are wall (0), "
        "floor (1)");
    testing::check_refused(
        {"run", "--case", "falling-ladder", "--solver", solver, "--realize", "wall,0"},
        "'0' is named twice in 'wall,0'");
    testing::check_refused(
        {"run", "--case", "falling-ladder", "--solver", solver, "--realize", "wall,"},
        "must be 'all' or constraint names or indices separated by commas");
    testing::check_refused(
        {"run", "--case", "falling-ladder", "--solver", solver, "--ideal-restitution", "0.5"},
        "--ideal-restitution applies to the constraints --realize leaves ideal");
    const auto j = run_ladder({"--solver", solver, "--t-end", "0.1"});
    CHECK_FALSE(j["solver_params"].contains("realize"));
    CHECK_FALSE(j["solver_params"].contains("ideal_restitution"));
    CHECK_FALSE(j["parameter_sources"].contains("realize"));
  }
  testing::check_refused({"run", "--case", "falling-ladder", "--solver", "realization",
                          "--contact-distance-tol", "1e-9"},
                         "--contact-distance-tol applies to the constraints --realize leaves");
}

}  // namespace mixed_realization_tests
