// Constrained accelerations and multipliers against hand-derived values; the LCP used at events.
#include <catch2/catch.hpp>
#include <cmath>

#include "solvers/lcp.hpp"
#include "support.hpp"

using namespace crbench;

TEST_CASE("dk-plane: lambda = g for x <= 0 and -g for x > 0 (Deryabin & Kozlov 1995 - section 6)",
          "[dynamics]") {
  for (const double g : {1.0, 2.5}) {
    const auto model = make_model("dk-plane", {{"g", std::to_string(g)}});
    State x = model->initial_state();
    Point p;
    for (const int mode : {-1, 1}) {
      const std::vector<int> modes{mode};
      model->evaluate(x, modes, p);
      const ConstrainedAcceleration acc = constrained_acceleration(p, {0});
      REQUIRE(acc.ok);
      CHECK(acc.lambda(0) == Approx(mode < 0 ? g : -g).margin(1e-15));
      CHECK(acc.mu(0) == Approx(acc.lambda(0)).margin(1e-15));  // |∇f|_{A⁻¹} = 1
      CHECK(acc.qdd.norm() < 1e-15);  // on the constraint: no acceleration
      const ConstrainedAcceleration free = constrained_acceleration(p, {});
      CHECK(free.qdd(1) == Approx(mode < 0 ? -g : g));
    }
  }
}

TEST_CASE("Inclined plane: lambda = g cos^2(a) for f = y - x tan(a) - mu = g cos(a)",
          "[dynamics]") {
  // Unit point, A = I, force (0, −g), f = y − x tan a: J = (−tan a, 1), W = sec² a, d = 0, so
  // λ = −(J A⁻¹F)/W = g cos² a and μ = λ |J| = g cos a, the normal force on an incline.
  const double a = 0.4;
  const double g = 9.81;
  Point p;
  p.A = Eigen::Matrix2d::Identity();
  p.c = p.grad_V = Eigen::Vector2d::Zero();
  p.Q = Eigen::Vector2d(0.0, -g);
  p.f = Eigen::VectorXd::Zero(1);
  p.J = Eigen::RowVector2d(-std::tan(a), 1.0);
  p.f_t = p.d = Eigen::VectorXd::Zero(1);
  const ConstrainedAcceleration acc = constrained_acceleration(p, {0});
  REQUIRE(acc.ok);
  CHECK(acc.lambda(0) == Approx(g * std::cos(a) * std::cos(a)).epsilon(1e-14));
  CHECK(acc.mu(0) == Approx(g * std::cos(a)).epsilon(1e-14));
  // Sliding down the incline with acceleration g sin a.
  CHECK(acc.qdd.norm() == Approx(g * std::sin(a)).epsilon(1e-14));
  CHECK((p.J * acc.qdd)(0) == Approx(0.0).margin(1e-14));
}

TEST_CASE("A singular active set is reported - not ignored", "[dynamics]") {
  Point p;
  p.A = Eigen::Matrix2d::Identity();
  p.c = p.grad_V = Eigen::Vector2d::Zero();
  p.Q = Eigen::Vector2d(0.0, -1.0);
  p.f = p.f_t = p.d = Eigen::VectorXd::Zero(2);
  p.J.resize(2, 2);
  p.J << 0.0, 1.0, 0.0, 2.0;  // the same surface twice
  const ConstrainedAcceleration acc = constrained_acceleration(p, {0, 1});
  CHECK_FALSE(acc.ok);
  CHECK_THAT(acc.reason, Catch::Contains("singular or ill-conditioned"));
  CHECK(constrained_acceleration(p, {0}).ok);
}

TEST_CASE("LCP: exact solutions of small complementarity problems", "[lcp]") {
  Eigen::Matrix2d M;
  M << 2.0, 1.0, 1.0, 2.0;
  SECTION("both active") {
    const auto s = solve_lcp(M, Eigen::Vector2d(-3.0, -3.0));
    REQUIRE(s);
    CHECK(s->x(0) == Approx(1.0));
    CHECK(s->x(1) == Approx(1.0));
    CHECK(s->w.norm() == Approx(0.0).margin(1e-14));
  }
  SECTION("one active") {
    const auto s = solve_lcp(M, Eigen::Vector2d(-2.0, 3.0));
    REQUIRE(s);
    CHECK(s->x(0) == Approx(1.0));
    CHECK(s->x(1) == 0.0);
    CHECK(s->w(1) == Approx(4.0));
  }
  SECTION("none active") {
    const auto s = solve_lcp(M, Eigen::Vector2d(1.0, 0.5));
    REQUIRE(s);
    CHECK(s->x.norm() == 0.0);
  }
  SECTION("no solution when M is not a P-matrix") {
    Eigen::Matrix2d bad;
    bad << -1.0, 0.0, 0.0, -1.0;
    CHECK_FALSE(solve_lcp(bad, Eigen::Vector2d(1.0, -1.0)));
  }
}
