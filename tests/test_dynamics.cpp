// Constrained accelerations and multipliers against hand-derived values; the LCP used at events.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <random>

#include "crbench/solvers/lcp.hpp"
#include "support.hpp"

namespace dynamics_tests {

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

TEST_CASE(
    "constrained_acceleration reuses its factorizations only while A and J_K are unchanged, with "
    "the same bits",
    "[dynamics]") {
  // A sequence of points through one workspace against a fresh workspace for each: A and J
  // change, return, turn singular and non-finite; every answer must be the fresh one, bit for bit.
  const auto point = [](double stretch, double slope, double force) {
    Point p;
    p.A = Eigen::Matrix2d{{1.0 + stretch, 0.3}, {0.3, 2.0}};
    p.c = p.grad_V = Eigen::Vector2d::Zero();
    p.Q = Eigen::Vector2d(0.1, -force);
    p.f = Eigen::VectorXd::Zero(2);
    p.J = Eigen::Matrix2d{{-slope, 1.0}, {1.0, 0.5}};
    p.f_t = Eigen::VectorXd::Zero(2);
    p.d = Eigen::Vector2d(0.2, -0.1);
    return p;
  };
  std::vector<Point> points{point(0.0, 0.4, 9.81), point(0.0, 0.4, 3.0), point(0.5, 0.4, 3.0),
                            point(0.5, 0.7, 3.0), point(0.0, 0.4, 9.81)};
  Point singular = point(0.0, 0.4, 1.0);
  singular.A = Eigen::Matrix2d{{1.0, 1.0}, {1.0, 1.0}};
  points.push_back(singular);
  points.push_back(point(0.0, 0.4, 9.81));
  Point not_finite = point(0.0, 0.4, 1.0);
  not_finite.A(0, 0) = std::numeric_limits<double>::quiet_NaN();
  points.push_back(not_finite);
  points.push_back(point(0.0, 0.4, 2.0));
  AccelerationWorkspace reused;
  for (const std::vector<int>& active :
       {std::vector<int>{0}, std::vector<int>{0, 1}, std::vector<int>{1}, std::vector<int>{}}) {
    for (std::size_t i = 0; i < points.size(); ++i) {
      ConstrainedAcceleration again, fresh_answer;
      constrained_acceleration(points[i], active, reused, again);
      AccelerationWorkspace fresh;
      constrained_acceleration(points[i], active, fresh, fresh_answer);
      INFO("point " << i << ", " << active.size() << " active rows");
      CHECK(again.ok == fresh_answer.ok);
      CHECK(again.status == fresh_answer.status);
      if (!fresh_answer.ok) continue;
      CHECK(again.qdd == fresh_answer.qdd);
      CHECK(again.lambda == fresh_answer.lambda);
      CHECK(again.mu == fresh_answer.mu);
      CHECK(again.rcond == fresh_answer.rcond);
    }
  }
}

TEST_CASE(
    "constrained_acceleration gives the bits of Eigen's products and solves, and "
    "constrained_multipliers its multipliers",
    "[dynamics]") {
  // Its small products are loops in the order Eigen 3.4 sums them: the result must be Eigen's,
  // (J_K A⁻¹ J_Kᵀ) λ = −(J_K A⁻¹ F + d_K), q̈ = A⁻¹F + A⁻¹J_Kᵀ λ, for metrics that are not
  // diagonal, several rows and sizes up to 7; the multipliers alone must be the same numbers.
  std::mt19937 random(20261127);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  const auto random_matrix = [&](Eigen::Index rows, Eigen::Index cols) {
    Eigen::MatrixXd m(rows, cols);
    for (Eigen::Index j = 0; j < cols; ++j) {
      for (Eigen::Index i = 0; i < rows; ++i) m(i, j) = uniform(random);
    }
    return m;
  };
  for (int n = 2; n <= 7; ++n) {
    for (int k = 1; k <= std::min(n - 1, 3); ++k) {
      const Eigen::MatrixXd B = random_matrix(n, n);
      Point p;
      p.A = B * B.transpose() + Eigen::MatrixXd::Identity(n, n);
      p.Q = random_matrix(n, 1);
      p.grad_V = random_matrix(n, 1);
      p.c = random_matrix(n, 1);
      p.J = random_matrix(k + 1, n);
      p.f = p.f_t = Eigen::VectorXd::Zero(k + 1);
      p.d = random_matrix(k + 1, 1);
      std::vector<int> active;
      for (int r = 0; r < k; ++r) active.push_back(r + 1);
      // The formula with Eigen's own operations.
      const Eigen::VectorXd F = p.Q - p.grad_V - p.c;
      const Eigen::MatrixXd Jk = p.J.bottomRows(k);
      const Eigen::LDLT<Eigen::MatrixXd> A_ldlt(p.A);
      const Eigen::VectorXd Ainv_F = A_ldlt.solve(F);
      const Eigen::MatrixXd Ainv_Jt = A_ldlt.solve(Eigen::MatrixXd(Jk.transpose()));
      const Eigen::MatrixXd W = Jk * Ainv_Jt;
      Eigen::VectorXd b = Jk * Ainv_F;
      b += p.d.tail(k);
      b = -b;
      const Eigen::VectorXd lambda = W.ldlt().solve(b);
      const Eigen::VectorXd reaction = Ainv_Jt * lambda;
      const Eigen::VectorXd qdd = Ainv_F + reaction;

      AccelerationWorkspace workspace;
      ConstrainedAcceleration full, multipliers;
      constrained_acceleration(p, active, workspace, full);
      constrained_multipliers(p, active, workspace, multipliers);
      INFO("n = " << n << ", " << k << " active rows");
      REQUIRE(full.ok);
      REQUIRE(multipliers.ok);
      CHECK(full.lambda == lambda);
      CHECK(full.qdd == qdd);
      CHECK(multipliers.lambda == full.lambda);
      CHECK(multipliers.mu == full.mu);
      CHECK(multipliers.rcond == full.rcond);
    }
  }
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

namespace {

// Deterministic pseudo-random numbers in [-1, 1) from the raw mt19937 stream (the standard
// distributions are not portable between library versions).
struct Uniform {
  std::mt19937 engine{20261123u};
  double operator()() { return static_cast<double>(engine()) / 2147483648.0 - 1.0; }
};

// A Delassus-like matrix G Gᵀ (G: m × (m + 2), full row rank almost surely) and b with both
// signs: some contacts separate, some are pushed.
std::pair<Eigen::MatrixXd, Eigen::VectorXd> random_problem(Uniform& u, int m) {
  Eigen::MatrixXd G(m, m + 2);
  for (Eigen::Index i = 0; i < G.size(); ++i) G.data()[i] = u();
  Eigen::VectorXd b(m);
  for (int i = 0; i < m; ++i) b(i) = u();
  return {G * G.transpose(), b};
}

}  // namespace

TEST_CASE("LCP: Lemke (Siconos numerics) agrees with the enumeration to 1e-12 for m <= 12",
          "[lcp]") {
  Uniform u;
  const LcpOptions enumeration{.method = LcpMethod::enumeration};
  const LcpOptions lemke{.method = LcpMethod::lemke};
  const LcpOptions pgs{.method = LcpMethod::pgs, .pgs_tolerance = 1e-12};
  for (int m = 1; m <= 12; ++m) {
    for (int trial = 0; trial < 20; ++trial) {
      const auto [M, b] = random_problem(u, m);
      const auto exact = solve_lcp(M, b, 1e-12, 1.0, enumeration);
      const auto pivoted = solve_lcp(M, b, 1e-12, 1.0, lemke);
      INFO("m = " << m << ", trial " << trial);
      REQUIRE(exact);
      REQUIRE(pivoted);
      const double x_scale = std::max(1.0, exact->x.lpNorm<Eigen::Infinity>());
      CHECK((pivoted->x - exact->x).lpNorm<Eigen::Infinity>() <= 1e-12 * x_scale);
      CHECK((pivoted->w - exact->w).lpNorm<Eigen::Infinity>() <= 1e-12);
      // Projected Gauss-Seidel converges on these (positive definite) problems, to its tolerance
      // times the conditioning.
      const auto iterated = solve_lcp(M, b, 1e-12, 1.0, pgs);
      REQUIRE(iterated);
      CHECK((iterated->w - exact->w).lpNorm<Eigen::Infinity>() <= 1e-6);
    }
  }
}

TEST_CASE(
    "LCP: Lemke and the banded method solve chains of 1000 contacts that the enumeration cannot",
    "[lcp]") {
  // The Delassus matrix of a row of unit balls in contact (tridiagonal 2, -1): a Newton's cradle
  // hit at one end, b = (-1, 0, ..., 0): only the first contact is pushed at first.
  for (const int m : {20, 200, 1000}) {
    Eigen::MatrixXd M = Eigen::MatrixXd::Zero(m, m);
    for (int i = 0; i < m; ++i) {
      M(i, i) = 2.0;
      if (i + 1 < m) M(i, i + 1) = M(i + 1, i) = -1.0;
    }
    Eigen::VectorXd b = Eigen::VectorXd::Zero(m);
    b(0) = -1.0;
    INFO("m = " << m);
    CHECK_FALSE(solve_lcp(M, b, 1e-12, 1.0, {.method = LcpMethod::enumeration}));
    // Lemke's method, the banded method on the dense matrix and on its band, and auto (which
    // takes the banded method: the band is 1).
    const auto banded = solve_banded_lcp(BandedSymmetric::from_dense(M), b);
    REQUIRE(banded);
    CHECK(banded->iterations == 1);  // from its start, x = −M⁻¹b, nothing changes side
    for (const LcpMethod method : {LcpMethod::lemke, LcpMethod::banded, LcpMethod::automatic}) {
      const auto s = solve_lcp(M, b, 1e-12, 1.0, {.method = method});
      REQUIRE(s);
      // Every contact is pushed: x_i = (m - i) / (m + 1) makes w = 0 (the chain moves as one).
      for (int i = 0; i < m; ++i) {
        CHECK(s->x(i) == Approx(static_cast<double>(m - i) / (m + 1)).margin(1e-12));
      }
      CHECK(s->w.lpNorm<Eigen::Infinity>() <= 1e-12);
      CHECK((s->x - banded->x).lpNorm<Eigen::Infinity>() <= 1e-10);
    }
  }
}

TEST_CASE("LCP: the banded method agrees with Lemke on banded problems up to m = 100", "[lcp]") {
  // M = B Bᵀ + I/10 with B lower triangular of band p: symmetric positive definite with band p;
  // b of both signs, so that the answer has contacts on both sides.
  Uniform u;
  const LcpOptions lemke{.method = LcpMethod::lemke};
  int checked = 0;
  long most_iterations = 0;
  for (const int m : {5, 8, 13, 30, 60, 100}) {
    for (const int p : {1, 2, 3, 5}) {
      for (int trial = 0; trial < 10; ++trial) {
        Eigen::MatrixXd B = Eigen::MatrixXd::Zero(m, m);
        for (int i = 0; i < m; ++i) {
          for (int j = std::max(0, i - p); j <= i; ++j) B(i, j) = u();
        }
        const Eigen::MatrixXd M = B * B.transpose() + 0.1 * Eigen::MatrixXd::Identity(m, m);
        Eigen::VectorXd b(m);
        for (int i = 0; i < m; ++i) b(i) = u();
        const BandedSymmetric band = BandedSymmetric::from_dense(M);
        INFO("m = " << m << ", p = " << p << ", trial " << trial);
        REQUIRE(band.bandwidth <= p);
        CHECK((band.dense() - M).lpNorm<Eigen::Infinity>() == 0.0);
        const auto reference = solve_lcp(M, b, 1e-12, 1.0, lemke);
        const auto banded = solve_banded_lcp(band, b);
        REQUIRE(reference);
        REQUIRE(banded);
        const double x_scale = std::max(1.0, reference->x.lpNorm<Eigen::Infinity>());
        CHECK((banded->x - reference->x).lpNorm<Eigen::Infinity>() <= 1e-10 * x_scale);
        CHECK((banded->w - reference->w).lpNorm<Eigen::Infinity>() <= 1e-10);
        // Complementarity of the banded answer itself.
        CHECK(banded->x.minCoeff() >= 0.0);
        CHECK(banded->w.minCoeff() >= -1e-12);
        CHECK(banded->x.cwiseProduct(banded->w).cwiseAbs().maxCoeff() <= 1e-12 * x_scale);
        most_iterations = std::max(most_iterations, banded->iterations);
        ++checked;
      }
    }
  }
  CHECK(checked == 240);
  INFO("most block pivots: " << most_iterations);
  CHECK(most_iterations <= 20);
}

TEST_CASE("LCP: the banded method refuses a matrix that is not positive definite", "[lcp]") {
  // [[1, 1], [1, 1]] ⊕ 1 ⊕ 1 ⊕ 1 (semidefinite): a principal subsystem with a zero pivot.
  Eigen::MatrixXd M = Eigen::MatrixXd::Identity(5, 5);
  M(0, 1) = M(1, 0) = 1.0;
  const Eigen::VectorXd b = -Eigen::VectorXd::Ones(5);
  CHECK_FALSE(solve_banded_lcp(BandedSymmetric::from_dense(M), b));
  // auto falls back on Lemke's method, which finds x = (x0, 1 − x0, 1, 1, 1).
  const auto s = solve_lcp(M, b);
  REQUIRE(s);
  CHECK(s->x(0) + s->x(1) == Approx(1.0).margin(1e-12));
  CHECK(s->w.cwiseAbs().maxCoeff() <= 1e-12);
}

}  // namespace dynamics_tests
