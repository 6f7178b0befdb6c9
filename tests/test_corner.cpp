// corner (cases/corner.hpp): a point hitting two walls at once. Orthogonal walls give the same
// outcome for every stiffness ratio and law; at 60 degrees the outcome depends on the ratio, is
// the same for every N, and agrees with an integration apart from the suite.
#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "support.hpp"

namespace corner_tests {

using namespace crbench;

namespace {

std::unique_ptr<Model> corner(double angle, double r, double eta) {
  return make_model("corner", {{"angle", format_number(angle)},
                               {"stiffness_ratio", format_number(r)},
                               {"exponent", format_number(eta)}});
}

using testing::final_velocity;

// The corner's penalty motion at N = 1 (floor spring (-y)^eta, wall spring (-f_1)^eta / r),
// integrated apart from the suite (testing::penalty_contacts_by_odeint).
Eigen::Vector2d corner_by_odeint(double angle, double r, double eta) {
  Eigen::MatrixXd G(2, 2);
  G << 0.0, 1.0, std::sin(angle), -std::cos(angle);
  return testing::penalty_contacts_by_odeint(
      G, Eigen::Vector2d::Zero(), Eigen::Vector2d(1.0, 1.0 / r), eta, Eigen::Vector2d::Zero(),
      -Eigen::Vector2d(std::cos(angle / 2.0), std::sin(angle / 2.0)));
}

}  // namespace

TEST_CASE("corner: orthogonal walls return the velocity reversed for every ratio and law",
          "[corner]") {
  const double angle = std::numbers::pi / 2.0;
  const Facts facts = corner(angle, 1.0, 1.0)->facts();
  REQUIRE(facts.value("x velocity after the impact (orthogonal walls)"));
  REQUIRE(facts.value("y velocity after the impact (orthogonal walls)"));
  const Eigen::Vector2d reversed(*facts.value("x velocity after the impact (orthogonal walls)"),
                                 *facts.value("y velocity after the impact (orthogonal walls)"));
  CHECK(std::abs(reversed.norm() - *facts.value("speed after the impact (elastic)")) <= 1e-15);
  for (const double eta : {1.0, 1.5}) {
    for (const double r : {0.1, 1.0, 10.0}) {
      const auto model = corner(angle, r, eta);
      const Eigen::VectorXd v =
          final_velocity(*model, "realization", {{"preset", "penalty"}, {"N", "1e6"}});
      INFO("eta = " << eta << ", r = " << r << ": " << v.transpose());
      CHECK((v - reversed).cwiseAbs().maxCoeff() <= 1e-10);
    }
  }
  // The simultaneous Newton law at e = 1 (the case's restitution) agrees.
  const auto model = corner(angle, 1.0, 1.0);
  CHECK((final_velocity(*model, "event-driven") - reversed).cwiseAbs().maxCoeff() <= 1e-12);
}

TEST_CASE("corner: at 60 degrees the outcome depends on the stiffness ratio", "[corner]") {
  const double angle = std::numbers::pi / 3.0;
  const Eigen::Vector2d reversed(std::cos(angle / 2.0), std::sin(angle / 2.0));
  for (const double eta : {1.0, 1.5}) {
    for (const double r : {0.1, 1.0, 10.0}) {
      const auto model = corner(angle, r, eta);
      const Eigen::Vector2d reference = corner_by_odeint(angle, r, eta);
      const std::vector<Eigen::VectorXd> outcomes = testing::penalty_outcomes(*model);
      INFO("eta = " << eta << ", r = " << r << ": odeint " << reference.transpose()
                    << "\nN = 1e4, 1e6, 1e8: " << outcomes[0].transpose() << " / "
                    << outcomes[1].transpose() << " / " << outcomes[2].transpose());
      for (const Eigen::VectorXd& v : outcomes) {
        CHECK((v - reference).cwiseAbs().maxCoeff() <= 2e-9);
        CHECK(std::abs(v.norm() - 1.0) <= 1e-9);
      }
      CHECK((outcomes[0] - outcomes[2]).cwiseAbs().maxCoeff() <= 1e-9);
      // r = 1: symmetric about the bisector, so reversed; another ratio turns it off the bisector.
      if (r == 1.0) {
        CHECK((outcomes[1] - reversed).cwiseAbs().maxCoeff() <= 1e-10);
      } else {
        CHECK((outcomes[1] - reversed).norm() >= 1e-2);
      }
    }
  }
}

}  // namespace corner_tests
