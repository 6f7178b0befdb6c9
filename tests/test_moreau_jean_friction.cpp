// moreau-jean with Coulomb friction: the step's frictional contact problem (Siconos numerics'
// fc2d_lexicolemke) against an enumeration of the contact modes, and the time stepping against
// the closed forms of the block on the incline and the rolling disk, and against the impulse
// process (event-driven) at Painlevé's inconsistent start.
#include <Eigen/Dense>
#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <optional>
#include <vector>

#include "crbench/cases/block_on_incline.hpp"
#include "crbench/cases/registry.hpp"
#include "crbench/cases/rolling_disk.hpp"
#include "crbench/solvers/lcp.hpp"
#include "support.hpp"

namespace moreau_jean_friction_tests {

using namespace crbench;

// Every solution of the 2-dimensional frictional contact problem u = M r + q, found by trying
// each contact's four modes (free: r = 0, u_N ≥ 0; stick: u = 0; slide ±: u_N = 0, r_T = ∓μ r_N
// with u_T of the slide's sign) and solving the linear equations each combination gives.
std::vector<Eigen::VectorXd> mode_solutions(const Eigen::MatrixXd& M, const Eigen::VectorXd& q,
                                            const Eigen::VectorXd& mu) {
  const auto contacts = static_cast<int>(mu.size());
  const int size = 2 * contacts;
  std::vector<Eigen::VectorXd> found;
  int combinations = 1;
  for (int k = 0; k < contacts; ++k) combinations *= 4;
  for (int c = 0; c < combinations; ++c) {
    // Unknowns r; equations: free r_N = r_T = 0; stick u_N = u_T = 0; slide u_N = 0 and
    // r_T + s μ r_N = 0.
    Eigen::MatrixXd E = Eigen::MatrixXd::Zero(size, size);
    Eigen::VectorXd rhs = Eigen::VectorXd::Zero(size);
    std::vector<int> mode(static_cast<std::size_t>(contacts));
    for (int k = 0, code = c; k < contacts; ++k, code /= 4) {
      mode[static_cast<std::size_t>(k)] = code % 4;
      const int n = 2 * k, t = n + 1;
      switch (code % 4) {
        case 0:
          E(n, n) = 1.0;
          E(t, t) = 1.0;
          break;
        case 1:
          E.row(n) = M.row(n);
          E.row(t) = M.row(t);
          rhs(n) = -q(n);
          rhs(t) = -q(t);
          break;
        default: {
          const double s = code % 4 == 2 ? 1.0 : -1.0;
          E.row(n) = M.row(n);
          rhs(n) = -q(n);
          E(t, t) = 1.0;
          E(t, n) = s * mu(k);
        }
      }
    }
    const Eigen::VectorXd r = E.fullPivLu().solve(rhs);
    if (!((E * r - rhs).norm() <= 1e-12)) continue;
    const Eigen::VectorXd u = M * r + q;
    bool valid = true;
    for (int k = 0; k < contacts; ++k) {
      const int n = 2 * k, t = n + 1, m = mode[static_cast<std::size_t>(k)];
      valid = valid && r(n) >= -1e-13 && u(n) >= -1e-13;
      if (m == 1) valid = valid && std::abs(r(t)) <= mu(k) * r(n) + 1e-13;
      if (m == 2) valid = valid && u(t) >= -1e-13;
      if (m == 3) valid = valid && u(t) <= 1e-13;
    }
    if (valid) found.push_back(r);
  }
  return found;
}

TEST_CASE(
    "fc2d: Siconos numerics' frictional contact solution is the one an enumeration of the "
    "contact modes finds",
    "[friction][lcp]") {
  // Delassus matrices of a point and of a rod's two ends: symmetric positive definite, with
  // couplings between the normal and tangential rows; q's spanning free, sticking and sliding.
  Eigen::MatrixXd rod(4, 4);
  rod << 2.0, 0.6, 0.5, -0.3,  //
      0.6, 1.5, 0.2, 0.4,      //
      0.5, 0.2, 1.8, -0.5,     //
      -0.3, 0.4, -0.5, 1.2;
  const std::vector<std::array<double, 4>> rod_qs = {{-1.0, 0.3, -0.5, -0.2},
                                                     {-1.0, 2.0, 0.4, -0.1},
                                                     {-0.2, -3.0, -1.0, 1.5},
                                                     {0.5, 0.1, -2.0, 0.0}};
  int cases = 0;
  for (const auto& values : rod_qs) {
    const Eigen::Vector4d q(values[0], values[1], values[2], values[3]);
    for (const double m : {0.2, 0.5, 1.0}) {
      const Eigen::Vector2d mu(m, m);
      INFO("q = " << q.transpose() << ", mu = " << m);
      const auto expected = mode_solutions(rod, q, mu);
      REQUIRE(expected.size() == 1);
      const auto solution = solve_friction_contact_2d(rod, q, mu);
      REQUIRE(solution);
      CHECK((solution->r - expected.front()).lpNorm<Eigen::Infinity>() <= 1e-12);
      CHECK((solution->u - (rod * solution->r + q)).lpNorm<Eigen::Infinity>() <= 1e-15);
      ++cases;
    }
  }
  CHECK(cases == 12);
  // One contact of a unit point: pushed into the floor and along it, it sticks below the cone
  // (r_T = -q_T) and slides on its edge above it.
  const Eigen::Matrix2d point = Eigen::Matrix2d::Identity();
  const auto stick = solve_friction_contact_2d(point, Eigen::Vector2d(-1.0, 0.3),
                                               Eigen::VectorXd::Constant(1, 0.5));
  REQUIRE(stick);
  CHECK(stick->r(1) == Approx(-0.3).epsilon(1e-14));
  const auto slide = solve_friction_contact_2d(point, Eigen::Vector2d(-1.0, 0.8),
                                               Eigen::VectorXd::Constant(1, 0.5));
  REQUIRE(slide);
  CHECK(slide->r(1) == Approx(-0.5).epsilon(1e-14));
  CHECK(slide->u(1) == Approx(0.3).epsilon(1e-14));
}

const Event* first_event(const RunRecord& r, EventKind kind) {
  for (const auto& e : r.events) {
    if (e.kind == kind) return &e;
  }
  return nullptr;
}

// The event's time is the end of the step that contains t: in [t, t + h].
void check_in_step_after(const Event* e, double t, double h) {
  REQUIRE(e != nullptr);
  CHECK(e->t >= t - 1e-12);
  CHECK(e->t <= t + h + 1e-12);
}

RunRecord moreau_jean(const Model& model, double h, std::vector<Assignment> extra = {}) {
  testing::SolveOptions o;
  o.solver = "moreau-jean";
  o.solver_params = {{"h", format_number(h)}};
  o.solver_params.insert(o.solver_params.end(), extra.begin(), extra.end());
  return testing::solve(model, o);
}

// On the incline the point's W is the identity and its force constant, so a step gives the
// normal impulse h g cos(angle) and, sliding, the tangential one -mu h g cos(angle): the velocity
// gains h a exactly (a = g(sin - mu cos)), and the trapezoidal position (theta = 1/2) of a
// velocity linear in t is exact at the step ends. The step that stops the slip starts at t_k with
// 0 < v_k <= h |a| and ends at rest, having moved h v_k/2 where the block moves v_k^2/(2|a|): it
// sticks at t_{k+1} in [t*, t* + h], up to |a| h^2/8 beyond x*.
TEST_CASE("moreau-jean: the block slides exactly, stops within a step and stays at rest",
          "[friction][moreau-jean]") {
  SECTION("launched below the friction angle") {
    const auto model = make_model("block-on-incline", {});
    const cases::BlockOnIncline block(model->params());
    const double a = block.slide_acceleration(), x_stop = (*block.classical_q(10.0))(0);
    for (const double h : {1e-3, 1e-4}) {
      INFO("h = " << h);
      const RunRecord r = moreau_jean(*model, h);
      REQUIRE(r.status == Status::ok);
      check_in_step_after(first_event(r, EventKind::kinematic_contact), block.stop_time(), h);
      CHECK(first_event(r, EventKind::kinematic_release) == nullptr);
      const double overshoot = r.final_state.q(0) - x_stop;
      CHECK(overshoot >= -1e-12);
      CHECK(overshoot <= std::abs(a) * h * h / 8.0 + 1e-12);
      CHECK(std::abs(r.final_state.v(0)) <= 1e-15);
      CHECK(std::abs(r.final_state.q(1)) <= 1e-15);
    }
    // While it slides, the positions at the step ends are the closed form's.
    testing::SolveOptions o;
    o.solver = "moreau-jean";
    o.solver_params = {{"h", "1e-3"}};
    double worst = 0.0;
    o.on_sample = [&](const TrajectorySample& s) {
      if (s.x.t < block.stop_time() - 1e-3) {
        worst = std::max(worst, std::abs(s.x.q(0) - (*block.classical_q(s.x.t))(0)));
      }
    };
    REQUIRE(testing::solve(*model, o).status == Status::ok);
    CHECK(worst <= 1e-13);
  }
  SECTION("at rest below the friction angle it does not move") {
    const auto model = make_model("block-on-incline", {{"v0", "0"}});
    const RunRecord r = moreau_jean(*model, 1e-3);
    REQUIRE(r.status == Status::ok);
    CHECK(std::abs(r.final_state.q(0)) <= 1e-15);
    CHECK(std::abs(r.final_state.v(0)) <= 1e-15);
    CHECK(first_event(r, EventKind::kinematic_release) == nullptr);
  }
  SECTION("above it, it slides from the first step with x = a t^2/2 at the step ends") {
    const auto model = make_model("block-on-incline", {{"angle", "0.6"}, {"v0", "0"}});
    const cases::BlockOnIncline block(model->params());
    const RunRecord r = moreau_jean(*model, 1e-3);
    REQUIRE(r.status == Status::ok);
    const double t = r.final_state.t;
    CHECK(r.final_state.q(0) == Approx(0.5 * block.slide_acceleration() * t * t).epsilon(1e-12));
    CHECK(first_event(r, EventKind::kinematic_contact) == nullptr);
  }
  SECTION("pushed by the ramp, it leaves the cone within a step of the closed form's time") {
    const auto model = make_model("block-on-incline", {{"v0", "0"}, {"ramp", "2"}});
    const cases::BlockOnIncline block(model->params());
    for (const double h : {1e-3, 1e-4}) {
      INFO("h = " << h);
      const RunRecord r = moreau_jean(*model, h);
      REQUIRE(r.status == Status::ok);
      const Event* release = first_event(r, EventKind::kinematic_release);
      REQUIRE(release != nullptr);
      CHECK(std::abs(release->t - block.slip_time()) <= h + 1e-12);
    }
  }
}

// A sample between step ends is the step's linear interpolation, at the grid's own time: on the
// launched block a step's positions are exact at its ends and the slide's x is a parabola, so
// every sample is within |a| h^2/8 of the closed form (and the grid's 2001 times are all kept,
// although a step of 1e-2 spans about 18 of them).
TEST_CASE("moreau-jean: samples between step ends are interpolated at the grid's times",
          "[moreau-jean][output]") {
  const auto model = make_model("block-on-incline", {});
  const cases::BlockOnIncline block(model->params());
  const double h = 1e-2, bound = std::abs(block.slide_acceleration()) * h * h / 8.0;
  testing::SolveOptions o;
  o.solver = "moreau-jean";
  o.solver_params = {{"h", "1e-2"}};
  o.output_times = testing::grid(0.0, model->horizon(), 2001);
  std::vector<double> times;
  double worst = 0.0;
  o.on_sample = [&](const TrajectorySample& s) {
    times.push_back(s.x.t);
    worst = std::max(worst, std::abs(s.x.q(0) - (*block.classical_q(s.x.t))(0)));
  };
  REQUIRE(testing::solve(*model, o).status == Status::ok);
  REQUIRE(times.size() == o.output_times.size());
  for (std::size_t i = 0; i < times.size(); ++i) {
    CHECK(std::abs(times[i] - o.output_times[i]) <= 1e-9 * h);
  }
  CHECK(worst <= bound + 1e-12);
  // The bound is reached mid-step: the interpolation, not a step end, sets it.
  CHECK(worst >= 0.9 * bound);
}

// The disk's W is constant (diag(1, 1, J)) and, while it slides, the friction impulse mu h g
// (the normal one is h g) changes the slip v + r omega by -mu h g (1 + 1/k) a step: it stops
// within the step that starts within h of t_r, and the impulse at the contact point keeps the
// angular momentum about it, so the disk rolls at v_r exactly after.
TEST_CASE("moreau-jean: the sliding disk starts to roll within a step of t_r, at v_r",
          "[friction][moreau-jean][rolling-disk]") {
  const auto model = make_model("rolling-disk", {});
  const cases::RollingDisk disk(model->params());
  for (const double h : {1e-3, 1e-4}) {
    INFO("h = " << h);
    const RunRecord r = moreau_jean(*model, h);
    REQUIRE(r.status == Status::ok);
    check_in_step_after(first_event(r, EventKind::kinematic_contact), disk.roll_time(), h);
    CHECK(r.final_state.v(0) == Approx(disk.roll_speed()).epsilon(1e-12));
  }
  // Launched rolling (no slip), it rolls: every step's contact problem sticks, and the normal
  // impulse cancels the step's fall to the last bit, so the contact never opens (the reactions
  // are solved again from the sticking mode's equations, solve_friction_contact_2d).
  const auto rolling = make_model("rolling-disk", {{"mu", "0.8"}, {"omega0", "-4"}});
  const RunRecord r = moreau_jean(*rolling, 1e-3);
  REQUIRE(r.status == Status::ok);
  CHECK(first_event(r, EventKind::lift_off) == nullptr);
  CHECK(first_event(r, EventKind::kinematic_release) == nullptr);
  CHECK(r.final_state.q(1) == 0.5);
  CHECK(r.final_state.v(0) == 2.0);
}

// Painlevé's inconsistent start (mu = 2, tan(theta0) = 2, the end sliding at 1): the first step's
// frictional problem stops the slip with an impulse. As h -> 0 that step is the impact without
// collision of the impulse process (Darboux-Keller at the fixed configuration) with Stronge's
// restitution 0, which event-driven computes independently before it stops at the next
// inconsistency.
TEST_CASE(
    "moreau-jean: at Painleve's inconsistent start the first step tends to the impulse "
    "process's impact without collision",
    "[friction][moreau-jean][painleve]") {
  const std::vector<Assignment> start = {
      {"mu", "2"}, {"theta0", "1.1071487177940904"}, {"u0", "1"}};
  const auto model = make_model("painleve-rod", start);
  testing::SolveOptions o;
  o.solver_params = {{"impact_law", "energetic"}, {"restitution", "0"}};
  const RunRecord process = testing::solve(*model, o);
  REQUIRE(process.status == Status::painleve_paradox);
  REQUIRE(first_event(process, EventKind::impact) != nullptr);
  double previous = 0.0;
  for (const double h : {1e-5, 1e-7}) {
    INFO("h = " << h);
    testing::SolveOptions step;
    step.solver = "moreau-jean";
    step.solver_params = {{"h", format_number(h)}, {"restitution", "0"}};
    step.t_end = h;
    const RunRecord r = testing::solve(*model, step);
    REQUIRE(r.status == Status::ok);
    REQUIRE(first_event(r, EventKind::kinematic_contact) != nullptr);
    const double gap = (r.final_state.v - process.final_state.v).lpNorm<Eigen::Infinity>();
    // The smooth forces act over the step: O(g h).
    CHECK(gap <= 10.0 * 9.81 * h);
    if (previous > 0.0) CHECK(gap < previous);
    previous = gap;
  }
}

}  // namespace moreau_jean_friction_tests
