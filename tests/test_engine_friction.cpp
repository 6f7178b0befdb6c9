// The engines' Coulomb friction on block-on-incline (docs/engines.md, "Friction: a block on an
// incline") against what follows from each engine's own model: a sliding block's motion is the
// closed form's under each engine's step; a block at rest below the friction angle stays (Bullet),
// creeps at ODE's constraint-force mixing CFM times its friction force, or creeps at a speed set
// by MuJoCo's friction regularization, inversely proportional to its impratio and independent of
// the step; a disk launched sliding with backspin (rolling-disk) rolls at the closed form's speed.
// Built with each engine's CMake option.
#if defined(CRBENCH_HAVE_MUJOCO) || defined(CRBENCH_HAVE_ODE) || defined(CRBENCH_HAVE_BULLET)
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "crbench/cases/registry.hpp"
#include "crbench/solvers/record.hpp"
#include "tests/support.hpp"

namespace engine_friction_tests {

namespace {

using crbench::Assignment;
using crbench::RunRecord;

RunRecord block(const std::string& solver, double h, std::vector<Assignment> case_params,
                std::vector<Assignment> solver_params = {}) {
  const auto model = crbench::make_model("block-on-incline", case_params);
  crbench::testing::SolveOptions o;
  o.solver = solver;
  o.solver_params = std::move(solver_params);
  o.solver_params.push_back({"h", crbench::format_number(h)});
  o.solver_params.push_back({"preset", "engine-default"});
  const RunRecord r = crbench::testing::solve(*model, o);
  REQUIRE(r.status == crbench::Status::ok);
  REQUIRE(r.final_state.t == 2.0);
  return r;
}

constexpr double kG = 9.81, kMu = 0.5;

// Sliding down a steep incline (angle 0.6 > atan 0.5) from rest: ẍ = a = g (sin θ − μ cos θ), so
// after n steps of a semi-implicit step v = a t and x = h² a n (n + 1)/2 = a t (t + h)/2.
[[maybe_unused]] void check_slide(const std::string& solver) {
  const double angle = 0.6, a = kG * (std::sin(angle) - kMu * std::cos(angle));
  for (const double h : {1e-3, 1e-2}) {
    INFO(solver << " at h = " << h);
    const RunRecord r = block(solver, h, {{"angle", "0.6"}, {"v0", "0"}});
    const double t = r.final_state.t;
    CHECK(r.final_state.v(0) == Approx(a * t).epsilon(1e-12));
    // (ODE's CFM lets the rows slip by ~1e-10 of their force: position to 1e-10.)
    CHECK(r.final_state.q(0) == Approx(a * t * (t + h) / 2.0).epsilon(1e-10));
  }
}

// Launched at v0 = 1 below the friction angle (the case's defaults): the semi-implicit step's
// position adds the step-end velocities v0 + k h a, (v0 − 0) h/2 less than the integral of the
// slide, so the block stops v0 h/2 + O(h²) short of x* = v0²/(2|a|), and stays there. At the step
// ends it lags the slide by |a| t h/2 ≤ v0 h/2, and between them the samples are the step's
// linear interpolation (|a| h²/8 more at most), each at its grid time: 2001 of them, although the
// horizon 2t* is no multiple of h.
[[maybe_unused]] void check_stop(const std::string& solver) {
  const double angle = 0.3, a = kG * (std::sin(angle) - kMu * std::cos(angle));
  const double stop = 1.0 / (2.0 * -a), t_stop = 1.0 / -a;
  for (const double h : {1e-3, 1e-2}) {
    INFO(solver << " at h = " << h);
    const auto model = crbench::make_model("block-on-incline", {});
    crbench::testing::SolveOptions o;
    o.solver = solver;
    o.solver_params = {{"h", crbench::format_number(h)}, {"preset", "engine-default"}};
    o.output_times = crbench::testing::grid(0.0, model->horizon(), 2001);
    std::vector<double> times;
    double lag = 0.0;
    o.on_sample = [&](const crbench::TrajectorySample& s) {
      times.push_back(s.x.t);
      const double t = std::min(s.x.t, t_stop);
      lag = std::max(lag, std::abs(t + 0.5 * a * t * t - s.x.q(0)));
    };
    const RunRecord r = crbench::testing::solve(*model, o);
    REQUIRE(r.status == crbench::Status::ok);
    CHECK(std::abs(stop - r.final_state.q(0) - h / 2.0) <= h * h);
    CHECK(std::abs(r.final_state.v(0)) < 1e-9);
    REQUIRE(times.size() == o.output_times.size());
    for (std::size_t i = 0; i < times.size(); ++i) {
      CHECK(std::abs(times[i] - o.output_times[i]) <= 1e-9 * h);
    }
    CHECK(lag <= h / 2.0 + h * h);
  }
}

// rolling-disk at its defaults (r = 0.5, mu = 0.3, launched at 2 with backspin 4): the contact
// point slides until t_r = 0.453, then the disk rolls at v_r = (vx0 − k r ω0)/(1 + k) = 2/3. A
// step's friction is μ times its normal force while the point slides, and the step in which the
// slip would change sign holds it at 0 by an impulse whose moment about the contact point is 0, so
// ẋ − (J/r)φ̇ is kept through it: the disk rolls at v_r to round-off. The positions add the
// step-end velocities, (start − end) h/2 short of the slide's integral: x by (vx0 − v_r) h/2, φ by
// (ω0 − ω_r) h/2, ω_r = −v_r/r, from t_r on.
[[maybe_unused]] void check_rolling(const std::string& solver) {
  const auto model = crbench::make_model("rolling-disk", {});
  crbench::testing::SolveOptions ideal;
  ideal.solver = "event-driven";
  const RunRecord classical = crbench::testing::solve(*model, ideal);
  const double vx0 = 2.0, omega0 = 4.0, r = 0.5, v_r = 2.0 / 3.0, omega_r = -v_r / r;
  for (const double h : {1e-3, 1e-2}) {
    INFO(solver << " at h = " << h);
    crbench::testing::SolveOptions o;
    o.solver = solver;
    o.solver_params = {{"h", crbench::format_number(h)}, {"preset", "engine-default"}};
    const RunRecord run = crbench::testing::solve(*model, o);
    REQUIRE(run.status == crbench::Status::ok);
    CHECK(run.final_state.v(0) == Approx(v_r).epsilon(1e-12));
    CHECK(run.final_state.v(2) == Approx(omega_r).epsilon(1e-12));
    const Eigen::VectorXd lag = classical.final_state.q - run.final_state.q;
    CHECK(std::abs(lag(0) - (vx0 - v_r) * h / 2.0) <= 5.0 * h * h);
    CHECK(std::abs(lag(2) - (omega0 - omega_r) * h / 2.0) <= 5.0 * h * h);
  }
}

}  // namespace

#ifdef CRBENCH_HAVE_ODE
TEST_CASE(
    "ode: a sliding block decelerates by mu g cos(angle), a resting one creeps at CFM, a disk "
    "rolls",
    "[engines][friction]") {
  check_slide("ode");
  check_stop("ode");
  check_rolling("ode");
  // At rest (angle 0.3 < atan 0.5): every row of ODE's step meets its velocity target up to CFM
  // times its force. The friction row carries F = g sin θ and the angular motor that keeps the
  // sphere from turning the moment ρ F (ρ = 0.1, the contact point below the centre), so the
  // centre creeps at CFM F + ρ · CFM ρ F = CFM g sin θ (1 + ρ²), the world's CFM 1e-10.
  const double creep = 1e-10 * kG * std::sin(0.3) * (1.0 + 0.1 * 0.1);
  for (const double h : {1e-3, 1e-2}) {
    INFO("h = " << h);
    const RunRecord r = block("ode", h, {{"v0", "0"}});
    CHECK(r.final_state.v(0) == Approx(creep).epsilon(1e-5));
    CHECK(r.final_state.q(0) == Approx(creep * 2.0).epsilon(1e-3));
  }
}
#endif

#ifdef CRBENCH_HAVE_BULLET
TEST_CASE(
    "bullet: a sliding block decelerates by mu g cos(angle), a resting one stays, a disk rolls",
    "[engines][friction]") {
  check_slide("bullet");
  check_stop("bullet");
  check_rolling("bullet");
  for (const double h : {1e-3, 1e-2}) {
    INFO("h = " << h);
    const RunRecord r = block("bullet", h, {{"v0", "0"}});
    CHECK(r.final_state.q(0) == 0.0);
    CHECK(r.final_state.v(0) == 0.0);
  }
}
#endif

#ifdef CRBENCH_HAVE_MUJOCO
TEST_CASE("mujoco: a resting block creeps at the speed its regularized friction rows give",
          "[engines][friction]") {
  // At rest on the incline (N = g cos 0.3, F = g sin 0.3 < mu N) the rows reach a steady creep u
  // with no acceleration, where each active row's reference acceleration equals R times its force
  // (MuJoCo's soft constraint with a = 0). b = 2/(dmax timeconst) = 2/(0.95 x 0.02); each row's R
  // = (1 - d)/d times its diagonal approximation, d the impedance at the resting depth r, solimp
  // (0.9, 0.95, 0.001, 0.5, 2): d = 0.9 + 0.05 x 2 (r/0.001)^2; c = 2/3, the sphere's inverse
  // weight on two slides; impratio divides the friction rows' diagonals. The ellipse: the
  // tangential row's reference is -b u alone and its diagonal is c/impratio, so u = R F/b. The
  // pyramid: four edges J_n +- mu J_t (diagonal c (1 + mu^2) 2 mu^2/impratio); the two across the
  // slope (J_t = 0 on two slides) carry f_y each, the one resisting the creep f_+ = F/mu, the
  // fourth none; N = 2 f_y + f_+, and the two active kinds differ in their references by b mu u:
  // b mu u = R (f_+ - f_y), u = R (3 F/mu - N)/(2 b mu).
  const double g = kG, angle = 0.3, N = g * std::cos(angle), F = g * std::sin(angle);
  const double b = 2.0 / (0.95 * 0.02), c = 2.0 / 3.0;
  for (const auto& [elliptic, impratio] : std::vector<std::pair<bool, double>>{
           {false, 1.0}, {false, 10.0}, {true, 1.0}, {true, 100.0}}) {
    INFO((elliptic ? "elliptic" : "pyramidal") << ", impratio " << impratio);
    const RunRecord r = block("mujoco", 1e-3, {{"v0", "0"}},
                              {{"cone", elliptic ? "elliptic" : "pyramidal"},
                               {"impratio", crbench::format_number(impratio)}});
    const double depth = -r.final_state.q(1);
    REQUIRE(depth > 0.0);
    REQUIRE(depth < 0.0005);
    // impratio divides the friction rows' diagonal approximation (every edge of the pyramid).
    const double x = depth / 0.001, d = 0.9 + 0.05 * 2.0 * x * x;
    const double u = elliptic ? (1.0 - d) / d * c / impratio * F / b
                              : (1.0 - d) / d * c * (1.0 + kMu * kMu) * 2.0 * kMu * kMu / impratio *
                                    (3.0 * F / kMu - N) / (2.0 * b * kMu);
    CHECK(r.final_state.v(0) == Approx(u).epsilon(1e-9));
  }
}

TEST_CASE("mujoco: a resting block creeps at a speed set by impratio, not by the step",
          "[engines][friction]") {
  // MuJoCo's friction rows have the reference acceleration −b u (no position term), so a block
  // creeping at a steady u with no acceleration has R_t F = b u: u = R_t F / b. With the elliptic
  // cone R_t is the normal row's R over impratio, and b = 2/(dmax timeconst) does not depend on h
  // while refsafe leaves timeconst 0.02 (h <= 1e-2): u impratio is one number at every h.
  const auto creep = [](double h, std::vector<Assignment> settings) {
    return block("mujoco", h, {{"v0", "0"}}, std::move(settings)).final_state.v(0);
  };
  const double elliptic = creep(1e-3, {{"cone", "elliptic"}});
  CHECK(elliptic > 1e-3);
  for (const double h : {1e-3, 1e-2}) {
    INFO("h = " << h);
    CHECK(creep(h, {{"cone", "elliptic"}}) == Approx(elliptic).epsilon(1e-9));
    CHECK(10.0 * creep(h, {{"cone", "elliptic"}, {"impratio", "10"}}) ==
          Approx(elliptic).epsilon(1e-9));
    CHECK(100.0 * creep(h, {{"cone", "elliptic"}, {"impratio", "100"}}) ==
          Approx(elliptic).epsilon(1e-9));
  }
  // The default pyramid creeps too, at the same speed at both steps.
  CHECK(creep(1e-2, {}) == Approx(creep(1e-3, {})).epsilon(1e-9));
  CHECK(creep(1e-3, {}) > elliptic);
  // A free joint would let the sphere roll where the block slides: refused, naming the remedy.
  const auto model = crbench::make_model("block-on-incline", {});
  crbench::testing::SolveOptions o;
  o.solver = "mujoco";
  o.solver_params = {{"joints", "free"}, {"preset", "engine-default"}};
  CHECK_THROWS_WITH(crbench::testing::solve(*model, o), Catch::Contains("--joints planar"));
  // The friction settings on a frictionless case would change nothing: refused, naming them.
  const auto plane = crbench::make_model("dk-plane", {});
  for (const crbench::Assignment& a :
       {crbench::Assignment{"impratio", "10"}, crbench::Assignment{"cone", "elliptic"}}) {
    o.solver_params = {a, {"preset", "engine-default"}};
    CHECK_THROWS_WITH(crbench::testing::solve(*plane, o),
                      Catch::Contains("--" + a.key) && Catch::Contains("frictionless"));
  }
}
#endif

}  // namespace engine_friction_tests
#endif
