// Every AD-derived quantity of the dynamics layer against Richardson-extrapolated central finite
// differences of the case's own functions, relative 1e-7, on every registered case and on the
// test cases.
#include <catch2/catch.hpp>
#include <random>

#include "crbench/bench/check.hpp"
#include "crbench/cases/dk_plane.hpp"
#include "crbench/cases/unilateral_skate.hpp"
#include "support.hpp"
#include "test_cases.hpp"

namespace autodiff_tests {

using namespace crbench;
using crbench::testing::close;

namespace {

void check_against_finite_differences(const Model& model, std::mt19937& rng) {
  const int n = model.dof();
  std::uniform_real_distribution<double> jitter(-0.3, 0.3);
  const State x0 = model.initial_state();
  for (int trial = 0; trial < 5; ++trial) {
    State x = x0;
    for (int i = 0; i < n; ++i) {
      x.q(i) += jitter(rng);
      x.v(i) += jitter(rng) + 0.5;
    }
    x.t += 0.5 + jitter(rng);
    std::vector<int> modes(static_cast<std::size_t>(model.switch_count()), trial % 2 ? 1 : -1);
    Point p;
    model.evaluate(x, modes, p);
    INFO("case " << model.info().name << ", trial " << trial);

    CHECK(close(p.A, model.metric(x.q), 1e-15));
    CHECK(close(p.Q, model.force(x, modes), 1e-15));
    CHECK(close(p.f, model.constraint_values(x.t, x.q), 1e-15));
    // ∂V/∂q, J, f_t, c, d and ∂F/∂q, ∂F/∂q̇ of F = Q − ∂V/∂q − c (bench/check.hpp).
    for (const auto& [quantity, difference] : derivative_differences(model, x, modes)) {
      INFO(quantity);
      CHECK(difference <= 1e-7);
    }
  }
}

}  // namespace

TEST_CASE("AD quantities match finite differences on every registered case", "[ad]") {
  std::mt19937 rng(12345);
  for (const auto& entry : case_registry()) {
    const auto model = make_model(entry.info.name, {});
    check_against_finite_differences(*model, rng);
  }
}

TEST_CASE("AD quantities match finite differences on the test cases", "[ad]") {
  std::mt19937 rng(54321);
  check_against_finite_differences(*testing::model_of<test_cases::CurvedTimeDependent>(), rng);
  check_against_finite_differences(*testing::model_of<test_cases::SlopedImpact>(), rng);
  check_against_finite_differences(*testing::model_of<test_cases::RampForce>(), rng);
  check_against_finite_differences(*testing::model_of<test_cases::SpringWall>(), rng);
}

TEST_CASE("The finite-difference check can fail: a wrong d is detected", "[ad]") {
  // Guard against a check that passes whatever it is given.
  const auto model = testing::model_of<test_cases::CurvedTimeDependent>();
  State x = model->initial_state();
  x.t = 0.4;
  const std::vector<int> modes{1};
  Point p;
  model->evaluate(x, modes, p);
  const Eigen::VectorXd d = testing::second_derivative(
      [&](double h) { return model->constraint_values(x.t + h, x.q + h * x.v); });
  CHECK(close(p.d, d, 1e-7));
  CHECK_FALSE(close(p.d * (1.0 + 1e-5), d, 1e-7));
}

namespace {

void check_dual(const Model& model) {
  State x = model.initial_state();
  x.t += 0.37;
  x.v.array() += 0.3;
  const std::vector<int> modes(static_cast<std::size_t>(model.switch_count()), 1);
  PointT<Dual> dual;
  model.evaluate_dual(x, modes, dual);
  Point plain;
  model.evaluate(x, modes, plain);
  const auto values = point_entries(dual);
  const Eigen::VectorXd reference = point_entries(plain);
  INFO("case " << model.info().name);
  for (Eigen::Index i = 0; i < values.size(); ++i) CHECK(values(i).value() == reference(i));
  CHECK(dual_difference(model, x, modes) <= 1e-7);
  for (Eigen::Index r = 0; r < dual.d.size(); ++r) {
    CHECK(dual.d(r).value() == Approx(plain.d(r)).epsilon(1e-15));
    CHECK(std::isnan(dual.d(r).derivatives()(0)));
  }
}

}  // namespace

TEST_CASE("evaluate_dual: derivatives over (q - v - t) match finite differences", "[ad]") {
  for (const auto& entry : case_registry()) check_dual(*make_model(entry.info.name, {}));
  check_dual(*testing::model_of<test_cases::CurvedTimeDependent>());
  check_dual(*testing::model_of<test_cases::SpringWall>());
}

namespace {

// The case with a metric of its own that returns its base's: the same A, but not a constant
// metric of cases/case.hpp, so its Coriolis terms come from the AD sums.
template <class Base>
struct OwnMetric : Base {
  using Base::Base;
  template <class S>
  Mat<S, Base::n, Base::n> metric(const Vec<S, Base::n>& q) const {
    return Base::template metric<S>(q);
  }
};

static_assert(has_constant_metric<cases::DkPlane>());
static_assert(has_constant_metric<cases::UnilateralSkate>());
static_assert(!has_constant_metric<OwnMetric<cases::DkPlane>>());
static_assert(!has_constant_metric<OwnMetric<cases::UnilateralSkate>>());
static_assert(!has_constant_metric<test_cases::CurvedTimeDependent>());

template <class C>
void check_constant_metric_shortcut() {
  const auto shortcut = testing::model_of<C>();
  const auto summed = testing::model_of<OwnMetric<C>>();
  std::mt19937 rng(2024);
  std::normal_distribution<double> normal;
  for (int trial = 0; trial < 20; ++trial) {
    State x = shortcut->initial_state();
    for (Eigen::Index i = 0; i < x.q.size(); ++i) {
      x.q(i) += normal(rng);
      x.v(i) += normal(rng);
    }
    const std::vector<int> modes(static_cast<std::size_t>(shortcut->switch_count()), 1);
    Point a, b;
    shortcut->evaluate(x, modes, a);
    summed->evaluate(x, modes, b);
    CHECK((a.A.array() == b.A.array()).all());
    CHECK((a.c.array() == b.c.array()).all());
    CHECK((a.free_force().array() == b.free_force().array()).all());
    Eigen::MatrixXd dq_a, dv_a, dq_b, dv_b;
    shortcut->force_jacobians(x, modes, dq_a, dv_a);
    summed->force_jacobians(x, modes, dq_b, dv_b);
    CHECK((dq_a.array() == dq_b.array()).all());
    CHECK((dv_a.array() == dv_b.array()).all());
    PointT<Dual> dual_a, dual_b;
    shortcut->evaluate_dual(x, modes, dual_a);
    summed->evaluate_dual(x, modes, dual_b);
    for (Eigen::Index i = 0; i < dual_a.c.size(); ++i) {
      CHECK(dual_a.c(i).value() == dual_b.c(i).value());
      CHECK((dual_a.c(i).derivatives().array() == dual_b.c(i).derivatives().array()).all());
    }
  }
}

}  // namespace

TEST_CASE("A constant metric skips the Coriolis sums and gives their bits", "[ad]") {
  check_constant_metric_shortcut<cases::DkPlane>();
  check_constant_metric_shortcut<cases::UnilateralSkate>();
}

}  // namespace autodiff_tests
