// The (α,β,γ) limit model (Deryabin & Kozlov 1995 Theorem 1) against closed forms: the classical
// and viscous lift-offs of dk-plane, the first zero of z for piecewise-constant λ solved
// independently, the paper's counterexample, a double zero.
#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>

#include "support.hpp"
#include "test_cases.hpp"

using namespace crbench;

namespace {

RunRecord limit(const Model& model, std::vector<Assignment> params,
                const std::function<void(const TrajectorySample&)>& on_sample = {},
                std::vector<double> grid = {}) {
  testing::SolveOptions o;
  o.solver = "limit";
  o.solver_params = std::move(params);
  o.on_sample = on_sample;
  o.output_times = std::move(grid);
  return testing::solve(model, o);
}

}  // namespace

TEST_CASE("limit on dk-plane: classical 1 and viscous 2 to 1e-12", "[limit]") {
  const auto model = make_model("dk-plane", {});
  const RunRecord classical = limit(*model, {{"preset", "penalty"}});
  REQUIRE(classical.lift_off_time);
  CHECK(std::abs(*classical.lift_off_time - 1.0) <= 1e-12);
  const RunRecord viscous = limit(*model, {});
  REQUIRE(viscous.lift_off_time);
  CHECK(std::abs(*viscous.lift_off_time - 2.0) <= 1e-12);
  CHECK(viscous.diagnostics.at("theorem_applies") == true);
  CHECK_THAT(viscous.diagnostics.at("proposition").get<std::string>(),
             Catch::Contains("Proposition 1"));
  CHECK(viscous.diagnostics.at("lambda_zero_time")[0] == Approx(1.0).margin(1e-12));
}

TEST_CASE("limit: alpha = gamma = 0 lifts off at the first zero of the integral of lambda",
          "[limit]") {
  // λ = 1 − t: ∫λ = t − t²/2 vanishes at 2 (Theorem 2); the classical model leaves at 1.
  const auto model = testing::model_of<test_cases::RampForce>();
  const RunRecord viscous = limit(*model, {});
  REQUIRE(viscous.lift_off_time);
  CHECK(std::abs(*viscous.lift_off_time - 2.0) <= 1e-11);
  const RunRecord classical = limit(*model, {{"preset", "penalty"}});
  REQUIRE(classical.lift_off_time);
  CHECK(std::abs(*classical.lift_off_time - 1.0) <= 1e-12);
}

TEST_CASE("limit with alpha > 0 matches the closed-form z for piecewise-constant lambda",
          "[limit]") {
  const auto model = make_model("dk-plane", {});
  for (const auto& [a, b, c] : std::vector<std::tuple<double, double, double>>{
           {1.0, 0.0, 1.0}, {1.0, 1.0, 1.0}, {0.2, 1.0, 0.5}}) {
    const RunRecord r = limit(
        *model,
        {{"alpha", format_number(a)}, {"beta", format_number(b)}, {"gamma", format_number(c)}});
    INFO("(alpha, beta, gamma) = (" << a << ", " << b << ", " << c << ")");
    REQUIRE(r.status == "ok");
    REQUIRE(r.lift_off_time);
    CHECK(std::abs(*r.lift_off_time - testing::dk_plane_lift_off(a, b, c)) <= 1e-12);
    CHECK(r.diagnostics.at("theorem_applies") == true);
  }
}

TEST_CASE("dk-counterexample: z vanishes in (3pi/2, 2pi) with lambda > 0 - z(2pi) = 1/2",
          "[limit]") {
  const auto model = make_model("dk-counterexample", {});
  const Facts facts = model->facts();
  double z_at_2pi = std::nan("");
  const RunRecord r = limit(*model, {{"alpha", "1"}, {"beta", "0"}, {"gamma", "1"}},
                            [&](const TrajectorySample& s) {
                              if (s.label.empty()) z_at_2pi = s.extra(0);
                            },
                            {2.0 * std::numbers::pi});
  REQUIRE(r.status == "ok");
  CHECK(std::abs(z_at_2pi - *facts.value("z(2 pi) in the (1,0,1) model")) <= 1e-12);
  const auto& zeros = r.diagnostics.at("z_zeros");
  REQUIRE(zeros.size() == 1);
  const double zero = zeros[0].at("t").get<double>();
  CHECK(zero > 1.5 * std::numbers::pi);
  CHECK(zero < 2.0 * std::numbers::pi);
  CHECK(std::abs(zero - *facts.value("first zero of z in the (1,0,1) model")) <= 1e-11);
  CHECK(zeros[0].at("lambda").get<double>() == Approx(0.5));
  // λ(τ) = 1/2 > 0: Theorem 1 predicts no lift-off at this zero (Deryabin & Kozlov 1995, Theorem
  // 1).
  CHECK(r.diagnostics.at("theorem_applies") == false);
  CHECK_THAT(r.diagnostics.at("why").get<std::string>(), Catch::Contains("lambda = 0.5 >= 0"));
  CHECK_FALSE(r.lift_off_time);
}

TEST_CASE("A double zero of z is reported: theorem_applies false with its reason", "[limit]") {
  // Constant λ = 1, model (1,0,1): z = −(1 − cos t) touches 0 at 2π.
  const auto model = testing::model_of<test_cases::PressedPoint>();
  const RunRecord r = limit(*model, {{"alpha", "1"}, {"beta", "0"}, {"gamma", "1"}});
  REQUIRE(r.status == "ok");
  CHECK(r.diagnostics.at("theorem_applies") == false);
  CHECK_THAT(r.diagnostics.at("why").get<std::string>(), Catch::Contains("double zero"));
  CHECK_FALSE(r.lift_off_time);
}

TEST_CASE("limit: no zero of z before the horizon is reported", "[limit]") {
  // Constant λ = 1 under the viscous model: z = −t never returns to 0.
  const auto model = testing::model_of<test_cases::PressedPoint>();
  const RunRecord r = limit(*model, {});
  CHECK(r.diagnostics.at("theorem_applies") == false);
  CHECK_THAT(r.diagnostics.at("why").get<std::string>(),
             Catch::Contains("no zero of z before the horizon"));
}
