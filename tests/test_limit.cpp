// The (α,β,γ) limit model (Deryabin & Kozlov 1995 Theorem 1) against closed forms: the classical
// and viscous lift-offs of dk-plane, the first zero of z for piecewise-constant λ solved
// independently, the paper's counterexample, a double zero.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numbers>

#include "crbench/bench/observables.hpp"
#include "crbench/bench/run_support.hpp"
#include "crbench/cases/dk_plane.hpp"
#include "support.hpp"
#include "test_cases.hpp"

namespace limit_tests {

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
    REQUIRE(r.status == Status::ok);
    REQUIRE(r.lift_off_time);
    CHECK(std::abs(*r.lift_off_time - testing::dk_plane_lift_off(a, b, c)) <= 1e-12);
    CHECK(r.diagnostics.at("theorem_applies") == true);
  }
}

TEST_CASE(
    "limit: dop853 and dopri5 both give the closed-form lift-off, and auto is dop853 where alpha > "
    "0 "
    "and takes a third of dopri5's steps or fewer there",
    "[limit]") {
  const auto model = make_model("dk-plane", {});
  for (const auto& [a, b, c] : std::vector<std::tuple<double, double, double>>{
           {1.0, 0.7, 2.0}, {1.0, 0.1, 400.0}, {0.5, 4.0, 0.5}, {1.0, 0.05, 50.0}}) {
    const std::vector<Assignment> model_params{
        {"alpha", format_number(a)}, {"beta", format_number(b)}, {"gamma", format_number(c)}};
    const auto with = [&](const char* integrator) {
      std::vector<Assignment> p = model_params;
      p.push_back({"integrator", integrator});
      return limit(*model, p);
    };
    const RunRecord high = with("dop853"), low = with("dopri5"),
                    automatic = limit(*model, model_params);
    INFO("(alpha, beta, gamma) = (" << a << ", " << b << ", " << c << "): steps " << high.steps
                                    << " (dop853), " << low.steps << " (dopri5)");
    REQUIRE(high.lift_off_time);
    REQUIRE(low.lift_off_time);
    REQUIRE(automatic.lift_off_time);
    const double exact = testing::dk_plane_lift_off(a, b, c);
    CHECK(std::abs(*high.lift_off_time - exact) <= 1e-12);
    CHECK(std::abs(*low.lift_off_time - exact) <= 1e-12);
    CHECK(*automatic.lift_off_time == *high.lift_off_time);
    CHECK(automatic.steps == high.steps);
    CHECK(3 * high.steps <= low.steps);
  }
  // α = 0 (the viscous preset): auto is dopri5.
  const RunRecord viscous = limit(*model, {});
  const RunRecord viscous_dopri5 = limit(*model, {{"integrator", "dopri5"}});
  CHECK(viscous.steps == viscous_dopri5.steps);
  CHECK(viscous.rhs_evaluations == viscous_dopri5.rhs_evaluations);
  CHECK(*viscous.lift_off_time == *viscous_dopri5.lift_off_time);
}

TEST_CASE("dk-counterexample: z vanishes in (3pi/2, 2pi) with lambda > 0 - z(2pi) = 1/2",
          "[limit]") {
  const auto model = make_model("dk-counterexample", {});
  const Facts facts = model->facts();
  // The paper's z = (-1 + sin t)/2 + cos t after 3 pi/2 (its z(2 pi) = 1/2 is the fact); the
  // limit follows it up to its first zero, where it is reflected (docs/theory.md section 3).
  const auto paper_z = [](double t) { return 0.5 * (-1.0 + std::sin(t)) + std::cos(t); };
  CHECK(std::abs(paper_z(2.0 * std::numbers::pi) - *facts.value("z(2 pi) in the (1,0,1) model")) <=
        1e-15);
  double z_at_5_5 = std::nan("");
  const RunRecord r = limit(*model, {{"alpha", "1"}, {"beta", "0"}, {"gamma", "1"}},
                            [&](const TrajectorySample& s) {
                              if (s.label.empty()) z_at_5_5 = s.extra(0);
                            },
                            {5.5});
  REQUIRE(r.status == Status::ok);
  CHECK(std::abs(z_at_5_5 - paper_z(5.5)) <= 1e-12);
  const auto& zeros = r.diagnostics.at("z_zeros");
  REQUIRE(zeros.size() >= 1);
  const double zero = zeros[0].at("t").get<double>();
  CHECK(zero > 1.5 * std::numbers::pi);
  CHECK(zero < 2.0 * std::numbers::pi);
  CHECK(std::abs(zero - *facts.value("first zero of z in the (1,0,1) model")) <= 1e-11);
  CHECK(zeros[0].at("lambda").get<double>() == Approx(0.5));
  // λ(τ) = 1/2 > 0: Theorem 1 predicts no lift-off at this zero (Deryabin & Kozlov 1995, Theorem
  // 1); its continuation reflects z there, and λ = 1/2 for ever after: no lift-off.
  CHECK(r.diagnostics.at("theorem_applies") == false);
  CHECK_THAT(r.diagnostics.at("why").get<std::string>(), Catch::Contains("lambda = 0.5 > 0"));
  CHECK(r.diagnostics.at("prediction_rule") == "continuation");
  REQUIRE(r.diagnostics.at("z_reflections").size() >= 1);
  CHECK(r.diagnostics.at("z_reflections")[0].at("t").get<double>() == Approx(zero).margin(1e-14));
  CHECK_FALSE(r.lift_off_time);
}

namespace {

// A unit point on f = y >= 0 pressed by (0, -mu(t)): mu = 1, then 1/2 after 3 pi/2, then -1/2
// after 7 (it pulls). On the constraint lambda = mu.
struct ThreeStepForce : UnitMetric<2> {
  static constexpr int n = 2, m = 1, switches = 2;
  explicit ThreeStepForce(const ParamValues&) {}
  static CaseInfo info() {
    return {.name = "test-three-step-force",
            .description = "test only",
            .dof = n,
            .constraints = m,
            .switches = switches};
  }
  template <class S>
  S potential(const Vec<S, n>&, const S&) const {
    return S(0.0);
  }
  template <class S>
  Vec<S, n> force(const Vec<S, n>&, const Vec<S, n>&, const S&, Modes modes) const {
    const double mu = modes[1] > 0 ? -0.5 : (modes[0] > 0 ? 0.5 : 1.0);
    return Vec<S, n>(S(0.0), S(-mu));
  }
  template <class S>
  Vec<S, m> constraints(const Vec<S, n>& q, const S&) const {
    return Vec<S, m>(q(1));
  }
  Vec<double, switches> switching(const Vec<double, n>&, const Vec<double, n>&, double t) const {
    return Vec<double, switches>(t - 1.5 * std::numbers::pi, t - 7.0);
  }
  State initial_state() const {
    return {.t = 0.0, .q = Eigen::Vector2d(0.0, 0.0), .v = Eigen::Vector2d(1.0, 0.0)};
  }
  double horizon() const { return 12.0; }
  Facts facts() const { return {}; }
};

// The first t > t0 where z(t) = c + A cos(t - t0) + B sin(t - t0) crosses 0 upward (z'' + z = c).
double upward_zero(double t0, double c, double A, double B) {
  const auto z = [&](double t) { return c + A * std::cos(t - t0) + B * std::sin(t - t0); };
  double a = t0 + 1e-9, b = a;
  while (!(z(b) >= 0.0 && z(b - 1e-3) < 0.0)) b += 1e-3;
  a = b - 1e-3;
  for (int i = 0; i < 200; ++i) (z(0.5 * (a + b)) < 0.0 ? a : b) = 0.5 * (a + b);
  return 0.5 * (a + b);
}

}  // namespace

TEST_CASE(
    "Proposition 2's window is the damped half-period: (0.1, 0, 0.1) with lambda = 1, 1/2, -1/2 "
    "is not labelled delayed, and its lift-off is the continuation's",
    "[limit]") {
  // The paper's printed window pi/sqrt(4 alpha gamma - beta^2) = 15.7 would call the first zero
  // of lambda (t = 7) inside it and guarantee a delay; but z vanishes at 5.6397 with lambda > 0.
  // The sharp window pi/omega_d, omega_d = sqrt(4 alpha gamma - beta^2)/(2 alpha) = 1, is pi < 7.
  const auto model = testing::model_of<ThreeStepForce>();
  const RunRecord r = limit(*model, {{"alpha", "0.1"}, {"beta", "0"}, {"gamma", "0.1"}});
  REQUIRE(r.status == Status::ok);
  const std::string proposition = r.diagnostics.at("proposition").get<std::string>();
  INFO(proposition);
  CHECK_THAT(proposition, Catch::StartsWith("neither Proposition 1 nor 2"));
  CHECK_THAT(proposition, Catch::Contains("pi/omega_d = 3.14159"));
  CHECK(r.diagnostics.at("prediction_rule") == "continuation");
  // Independently: z'' + z = -lambda (the model scaled by 10). Until 3 pi/2 z = cos t - 1; then
  // z = (-1 + sin t)/2 + cos t, zero at t1 = 2 pi + atan(1/2) - acos(1/sqrt 5) with z' = 1;
  // reflected: z = -1/2 + cos(t - t1)/2 - sin(t - t1); from t = 7 z'' + z = 1/2.
  const double t1 = 2.0 * std::numbers::pi + std::atan(0.5) - std::acos(1.0 / std::sqrt(5.0));
  const double rate1 = 0.5 * std::cos(t1) - std::sin(t1);
  CHECK(std::abs(rate1 - 1.0) <= 1e-12);
  const double u = 7.0 - t1;
  const double z7 = -0.5 + 0.5 * std::cos(u) - rate1 * std::sin(u);
  const double rate7 = -0.5 * std::sin(u) - rate1 * std::cos(u);
  const double expected = upward_zero(7.0, 0.5, z7 - 0.5, rate7);
  REQUIRE(r.lift_off_time);
  CHECK(std::abs(*r.lift_off_time - expected) <= 1e-10);
  // The model scaled by 10 gives the same.
  const RunRecord scaled = limit(*model, {{"alpha", "1"}, {"beta", "0"}, {"gamma", "1"}});
  REQUIRE(scaled.lift_off_time);
  CHECK(std::abs(*scaled.lift_off_time - *r.lift_off_time) <= 1e-10);
  CHECK(scaled.diagnostics.at("proposition") == r.diagnostics.at("proposition"));
  // The realization (0.1, 0, 0.1)N hops out at t1 and converges to the continuation at order 1.
  std::vector<double> Ns, errors;
  for (const double N : {1e3, 1e4, 1e5, 1e6}) {
    testing::SolveOptions o;
    o.solver = "realization";
    o.solver_params = {{"alpha", "0.1"}, {"beta", "0"}, {"gamma", "0.1"}, {"N", format_number(N)}};
    const RunRecord realized = testing::solve(*model, o);
    REQUIRE(realized.status == Status::ok);
    REQUIRE(realized.lift_off_time);
    INFO("N " << N << ": " << *realized.lift_off_time << " against " << expected);
    Ns.push_back(N);
    errors.push_back(std::abs(*realized.lift_off_time - expected));
  }
  INFO("errors " << errors[0] << " ... " << errors.back());
  CHECK(errors.back() <= 1e-4);
  CHECK(std::abs(-testing::fitted_slope(Ns, errors) - 1.0) <= 0.1);
}

TEST_CASE(
    "vibrating-table (1.21e-4, 0, 1): past Theorem 1 the limit predicts the realization's lift-off",
    "[limit][realization]") {
  // z vanishes at 0.0540 with lambda = +0.333: the realization hops out and back within O(1/N);
  // its lift-off converges to 0.0906264 (independent integration: 0.09142 at N = 1e6, 0.09063 at
  // 1e8), not to 0.11535 of z continued through its zero.
  const auto model = make_model("vibrating-table", {});
  const std::vector<Assignment> coefficients{{"alpha", "1.21e-4"}, {"beta", "0"}, {"gamma", "1"}};
  const RunRecord prediction = limit(*model, coefficients);
  REQUIRE(prediction.lift_off_time);
  CHECK(prediction.diagnostics.at("prediction_rule") == "continuation");
  CHECK(std::abs(*prediction.lift_off_time - 0.0906264) <= 1e-6);
  std::vector<double> Ns, errors;
  for (const double N : {1e6, 1e7, 1e8}) {
    testing::SolveOptions o;
    o.solver = "realization";
    o.solver_params = coefficients;
    o.solver_params.push_back({"N", format_number(N)});
    const RunRecord r = testing::solve(*model, o);
    REQUIRE(r.status == Status::ok);
    REQUIRE(r.lift_off_time);
    INFO("N " << N << ": " << *r.lift_off_time);
    Ns.push_back(N);
    errors.push_back(std::abs(*r.lift_off_time - *prediction.lift_off_time));
  }
  CHECK(errors.back() <= 1e-5);
  CHECK(-testing::fitted_slope(Ns, errors) >= 0.9);
}

TEST_CASE("A double zero of z is reported: theorem_applies false with its reason", "[limit]") {
  // Constant λ = 1, model (1,0,1): z = −(1 − cos t) touches 0 at 2π.
  const auto model = testing::model_of<test_cases::PressedPoint>();
  const RunRecord r = limit(*model, {{"alpha", "1"}, {"beta", "0"}, {"gamma", "1"}});
  REQUIRE(r.status == Status::ok);
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

TEST_CASE(
    "Proposition 3 (Deryabin & Kozlov 1995 section 5): tau(alpha) = tau2 + alpha/beta + "
    "c2 (alpha/beta)^2, c2 = -lambda'(tau2)/(2 lambda(tau2))",
    "[limit]") {
  // particle-on-circle at its defaults (R = g = 1, v0 = 0.5). The viscous limit (alpha = 0)
  // keeps the particle on the circle until tau2, where the integral of lambda first vanishes;
  // lambda = 3 g cos(theta) - 2 g - v0^2/R there, lambda' = -3 g sin(theta) theta'.
  const auto model = make_model("particle-on-circle", {});
  const RunRecord viscous = limit(*model, {{"alpha", "0"}, {"beta", "1"}, {"gamma", "0"}});
  REQUIRE(viscous.lift_off_time);
  const double tau2 = *viscous.lift_off_time;
  CHECK(tau2 == Approx(1.8656381221868).margin(1e-11));
  std::vector<TrajectorySample> at_tau2;
  limit(*model, {{"alpha", "0"}, {"beta", "1"}, {"gamma", "0"}},
        [&](const TrajectorySample& s) { at_tau2.push_back(s); }, {tau2});
  // The grid sample at tau2 (the record also samples its events).
  const auto sample =
      std::min_element(at_tau2.begin(), at_tau2.end(), [&](const auto& a, const auto& b) {
        return std::abs(a.x.t - tau2) < std::abs(b.x.t - tau2);
      });
  REQUIRE(sample != at_tau2.end());
  REQUIRE(std::abs(sample->x.t - tau2) < 1e-12);
  const double theta = sample->x.q(1), theta_rate = sample->x.v(1);
  const double g = 1.0, R = 1.0, v0 = 0.5;
  const double lambda = 3.0 * g * std::cos(theta) - 2.0 * g - v0 * v0 / R;
  const double lambda_rate = -3.0 * g * std::sin(theta) * theta_rate;
  const double c2 = -lambda_rate / (2.0 * lambda);
  CHECK(c2 == Approx(-1.0442653936).margin(1e-9));
  // The study's coefficients are this formula's (bench/studies/small-added-mass.json).
  std::ifstream file(std::string(CRBENCH_SOURCE_DIR) + "/bench/studies/small-added-mass.json");
  REQUIRE(file);
  const auto study = nlohmann::json::parse(file);
  for (const auto& m : study["models"]) {
    if (m.value("case", std::string()) != "particle-on-circle") {
      // dk-plane: the distance of z from -M/beta is g alpha/beta^2 at its largest (g = 1).
      const double beta = m["set"]["beta"].get<double>();
      CHECK(m["expected_coefficients"]["z_deviation"][0].get<double>() ==
            Approx(1.0 / (beta * beta)).margin(1e-15));
      continue;
    }
    const double beta = m["set"]["beta"].get<double>();
    const auto& a = m["expected_coefficients"]["lift_off_time"];
    CHECK(a[0].get<double>() == Approx(1.0 / beta).margin(1e-12));
    CHECK(a[1].get<double>() == Approx(c2 / (beta * beta)).margin(1e-9));
  }
  // The remainder is cubic: tau(alpha) - (tau2 + alpha + c2 alpha^2) falls 1000-fold from alpha =
  // 1e-2 to 1e-3 (measured 5.35e-7 and 5.2e-10); beta = 2 at 2 alpha is the same model.
  const auto remainder = [&](double alpha, double beta) {
    const RunRecord r = limit(
        *model, {{"alpha", format_number(alpha)}, {"beta", format_number(beta)}, {"gamma", "0"}});
    REQUIRE(r.lift_off_time);
    const double eps = alpha / beta;
    return *r.lift_off_time - (tau2 + eps + c2 * eps * eps);
  };
  const double coarse = remainder(1e-2, 1.0), fine = remainder(1e-3, 1.0);
  CHECK(std::abs(fine) < 2e-9);
  CHECK(coarse / fine == Approx(1000.0).epsilon(0.3));
  CHECK(remainder(2e-3, 2.0) == Approx(fine).margin(1e-11));
  // dk-plane: lambda' = 0 at tau2 = 2, so tau(alpha) = 2 + alpha/beta to exp(-beta/alpha).
  const auto plane = make_model("dk-plane", {});
  const RunRecord small = limit(*plane, {{"alpha", "1e-2"}, {"beta", "1"}, {"gamma", "0"}});
  REQUIRE(small.lift_off_time);
  CHECK(*small.lift_off_time == Approx(2.01).margin(1e-12));
}

namespace {

// vibrating-table under (nu^2, 0, 1): the exact solution of nu^2 z'' + z = -lambda, lambda = g - a
// omega^2 sin(omega t + p), z = z' = 0 at 0 (a particular solution and the free oscillation).
struct TableSpring {
  double a, omega, g, phase, nu;
  double z(double t) const {
    const double d = 1.0 - nu * nu * omega * omega;
    const double particular = -g + a * omega * omega * std::sin(omega * t + phase) / d;
    const double A = g - a * omega * omega * std::sin(phase) / d;
    const double B = -nu * a * omega * omega * omega * std::cos(phase) / d;
    return particular + A * std::cos(t / nu) + B * std::sin(t / nu);
  }
};

crbench::GridRun table_spring_run(const std::string& phase, double alpha, double t_end) {
  crbench::RunRequest r;
  r.case_name = "vibrating-table";
  r.solver_name = "limit";
  r.case_assignments = {{"a", "0.1"}, {"omega", "6"}, {"g", "1"}, {"phase", phase}};
  r.solver_assignments = {{"alpha", format_number(alpha)}, {"beta", "0"}, {"gamma", "1"}};
  r.t_end = t_end;
  r.samples = 200001;
  return crbench::solve_on_grid(r);
}

}  // namespace

TEST_CASE(
    "Spring with a small added mass (Deryabin & Kozlov 1995 section 4): the remainder of (4.2), "
    "the period average of (4.3) and the first zero of z against the exact solution",
    "[limit]") {
  const auto model = make_model("vibrating-table", {{"a", "0.1"}, {"omega", "6"}, {"g", "1"}});
  const double a = 0.1, omega = 6.0, g = 1.0, alpha = 1e-6, nu = std::sqrt(alpha);
  // Phase pi: lambda rises first, z < 0 until t = pi/omega. The remainder of (4.2) over that
  // window is a omega^3 nu/(1 - nu omega) at its largest; the period average of z misses -lambda
  // by a omega^2 |sinc(pi nu omega)/(1 - nu^2 omega^2) - 1| where |sin(omega t + p)| = 1.
  const crbench::GridRun rising = table_spring_run("3.141592653589793", alpha, 0.7);
  REQUIRE(rising.record.status == Status::ok);
  const auto remainder = crbench::measure("z_oscillation_remainder", rising, *model);
  REQUIRE(remainder);
  CHECK(*remainder / (a * std::pow(omega, 3) * nu / (1.0 - nu * omega)) ==
        Approx(1.0).margin(1e-5));
  const double x = std::numbers::pi * nu * omega;
  const double average_exact =
      a * omega * omega * std::abs(std::sin(x) / x / (1.0 - nu * nu * omega * omega) - 1.0);
  const auto average = crbench::measure("z_period_average_deviation", rising, *model);
  REQUIRE(average);
  CHECK(*average / average_exact == Approx(1.0).margin(1e-6));
  // The first zero of z comes after t* = pi/omega, within 2 pi nu; the lift-off (continued past
  // the zeros with lambda > 0) after the classical one, the first zero of lambda, within 2 pi nu.
  const auto first_zero = crbench::measure("z_first_zero", rising, *model);
  REQUIRE(first_zero);
  CHECK(*first_zero > std::numbers::pi / omega - 1e-9);
  CHECK(*first_zero < std::numbers::pi / omega + 2.0 * std::numbers::pi * nu);
  CHECK(rising.record.diagnostics.at("prediction_rule") == "continuation");
  const double classical = (std::numbers::pi + std::asin(g / (a * omega * omega))) / omega;
  REQUIRE(rising.record.lift_off_time);
  CHECK(*rising.record.lift_off_time > classical);
  CHECK(*rising.record.lift_off_time < classical + 2.0 * std::numbers::pi * nu);
  // Phase 0: z vanishes in the first fast period, at the root of the exact solution near
  // t = 2 pi nu (bisection on it), close to 2 pi nu - sqrt(4 pi a omega^3/g) nu^(3/2).
  for (const double small : {1e-6, 1e-8}) {
    const double n = std::sqrt(small);
    const crbench::GridRun falling = table_spring_run("0", small, 0.15);
    REQUIRE(falling.record.status == Status::ok);
    const TableSpring exact{a, omega, g, 0.0, n};
    double lo = std::numbers::pi * n, hi = 2.0 * std::numbers::pi * n;
    REQUIRE(exact.z(lo) < 0.0);
    REQUIRE(exact.z(hi) > 0.0);
    for (int i = 0; i < 200 && hi - lo > 1e-17; ++i) {
      const double mid = 0.5 * (lo + hi);
      (exact.z(mid) < 0.0 ? lo : hi) = mid;
    }
    const auto zero = crbench::measure("z_first_zero", falling, *model);
    REQUIRE(zero);
    CHECK(*zero / lo == Approx(1.0).margin(1e-9));
    const double two_terms =
        2.0 * std::numbers::pi * n -
        std::sqrt(4.0 * std::numbers::pi * a * std::pow(omega, 3) / g) * std::pow(n, 1.5);
    // The next term is of order nu^(5/2): measured 158 nu^(5/2) and 177 nu^(5/2).
    CHECK(std::abs(*zero - two_terms) < 300.0 * std::pow(n, 2.5));
    // The grid's z follows the exact solution before its first zero.
    const std::vector<double> z = crbench::first_contact_z(falling);
    REQUIRE(z.size() == falling.t.size());
    int compared = 0;
    for (std::size_t i = 0; i < z.size(); ++i) {
      if (std::isnan(z[i])) continue;
      CHECK(std::abs(z[i] - exact.z(falling.t[i])) < 1e-9);
      ++compared;
    }
    CHECK(compared > 10);
  }
}

TEST_CASE("The study elastic-realization states the coefficients of the exact solution",
          "[limit]") {
  // The expected coefficients are the formulas' (docs/theory.md section 3), at the study's
  // a = 0.1, omega = 6, g = 1.
  std::ifstream file(std::string(CRBENCH_SOURCE_DIR) + "/bench/studies/elastic-realization.json");
  REQUIRE(file);
  const auto study = nlohmann::json::parse(file);
  const double a = study["params"]["a"], omega = study["params"]["omega"], g = study["params"]["g"];
  const double pi = std::numbers::pi;
  int checked = 0;
  for (const auto& m : study["models"]) {
    const auto& c = m["expected_coefficients"];
    if (c.contains("z_oscillation_remainder")) {
      CHECK(c["z_oscillation_remainder"][0] == Approx(a * std::pow(omega, 3)).epsilon(1e-14));
      CHECK(c["z_oscillation_remainder"][1] == Approx(a * std::pow(omega, 4)).epsilon(1e-14));
      CHECK(c["z_period_average_deviation"][0] ==
            Approx(a * std::pow(omega, 4) * (pi * pi / 6.0 - 1.0)).epsilon(1e-14));
      CHECK(c["z_period_average_deviation"][1] ==
            Approx(-a * std::pow(omega, 6) * (1.0 - pi * pi / 6.0 + std::pow(pi, 4) / 120.0))
                .epsilon(1e-14));
      ++checked;
    }
    if (c.contains("z_first_zero")) {
      CHECK(c["z_first_zero"][0] == Approx(2.0 * pi).epsilon(1e-15));
      CHECK(c["z_first_zero"][1] ==
            Approx(-std::sqrt(4.0 * pi * a * std::pow(omega, 3) / g)).epsilon(1e-14));
      ++checked;
    }
  }
  CHECK(checked == 2);
}

TEST_CASE("The (alpha, beta, 0) z tends to -M/beta like alpha (Deryabin & Kozlov 1995 section 5)",
          "[limit]") {
  // dk-plane: z + M/beta integrates to (g eps/beta)(1 - exp(-t/eps)) before the switch at t = 1
  // and tends to -g eps/beta after it, eps = alpha/beta: z_deviation = g alpha/beta^2.
  const auto model = make_model("dk-plane", {});
  const auto run = [&](const std::string& alpha) {
    crbench::RunRequest r;
    r.case_name = "dk-plane";
    r.solver_name = "limit";
    r.solver_assignments = {{"alpha", alpha}, {"beta", "2"}, {"gamma", "0"}};
    r.samples = 2001;
    return crbench::solve_on_grid(r);
  };
  const crbench::GridRun viscous = run("0");
  for (const double alpha : {1e-2, 1e-3}) {
    const crbench::GridRun r = run(format_number(alpha));
    const auto d = crbench::z_deviation(r, crbench::first_contact_z(viscous));
    REQUIRE(d);
    CHECK(*d == Approx(alpha / 4.0).epsilon(1e-8));
  }
  // Against a reference on another grid there is none.
  CHECK_FALSE(crbench::z_deviation(viscous, {}));
}

namespace {

// dk-plane with its constraint's (alpha, beta, gamma) scaled by 4 (Model::contact_law).
struct ScaledDkPlane : cases::DkPlane {
  using DkPlane::DkPlane;
  ContactLaw contact_law(int /*k*/) const { return {.scale = 4.0}; }
};

}  // namespace

TEST_CASE("A constraint's scale s divides the limit's z and leaves its lift-off", "[limit]") {
  // s(beta z' + gamma z) = -lambda: z is the unscaled z over s, and its zero, the lift-off, stays
  // (dk-plane's viscous limit: t = 2). The realization with scale s at N is the unscaled one at
  // s N.
  const auto plain = make_model("dk-plane", {});
  const auto scaled = testing::model_of<ScaledDkPlane>();
  const auto z_at = [](const Model& model, double t) {
    testing::SolveOptions o;
    o.solver = "limit";
    o.solver_params = {{"preset", "viscous"}};
    o.output_times = {t};
    double z = std::nan("");
    o.on_sample = [&](const TrajectorySample& s) {
      if (s.label.empty() && s.x.t == t) z = s.extra(0);
    };
    const RunRecord r = testing::solve(model, o);
    REQUIRE(r.status == Status::ok);
    REQUIRE(r.lift_off_time);
    CHECK(std::abs(*r.lift_off_time - 2.0) <= 1e-12);
    return z;
  };
  const double z_plain = z_at(*plain, 1.5), z_scaled = z_at(*scaled, 1.5);
  INFO("z(1.5): " << z_plain << " unscaled, " << z_scaled << " scaled by 4");
  CHECK(z_plain < 0.0);
  CHECK(std::abs(z_scaled - z_plain / 4.0) <= 1e-12 * std::abs(z_plain));
  const auto lift_off = [](const Model& model, const char* N) {
    testing::SolveOptions o;
    o.solver = "realization";
    o.solver_params = {{"preset", "viscous"}, {"N", N}};
    const RunRecord r = testing::solve(model, o);
    REQUIRE(r.status == Status::ok);
    REQUIRE(r.lift_off_time);
    return *r.lift_off_time;
  };
  const double at_4e3 = lift_off(*plain, "4e3"), scaled_at_1e3 = lift_off(*scaled, "1e3");
  INFO("realization: " << at_4e3 << " unscaled at N = 4e3, " << scaled_at_1e3
                       << " scaled by 4 at N = 1e3");
  CHECK(std::abs(at_4e3 - scaled_at_1e3) <= 1e-9);
  CHECK(at_4e3 - 2.0 > 1e-5);
}

TEST_CASE("contact_scale gives a constraint the scale a case could give it", "[limit]") {
  // dk-plane with --contact-scale plane=4 is ScaledDkPlane: the same realization and limit.
  const auto plain = make_model("dk-plane", {});
  const auto scaled = testing::model_of<ScaledDkPlane>();
  const auto run = [](const Model& model, const char* solver, std::vector<Assignment> params) {
    testing::SolveOptions o;
    o.solver = solver;
    params.push_back({"preset", "viscous"});
    o.solver_params = std::move(params);
    const RunRecord r = testing::solve(model, o);
    REQUIRE(r.status == Status::ok);
    REQUIRE(r.lift_off_time);
    return r;
  };
  const RunRecord by_option =
      run(*plain, "realization", {{"N", "1e3"}, {"contact_scale", "plane=4"}});
  const RunRecord by_case = run(*scaled, "realization", {{"N", "1e3"}});
  CHECK(*by_option.lift_off_time == *by_case.lift_off_time);
  CHECK(by_option.final_state.q == by_case.final_state.q);
  CHECK(by_option.solver_choices.at("contact_scale") == "plane=4");
  CHECK(by_case.solver_choices.count("contact_scale") == 0);
  // By index, and in the limit (its lift-off stays at 2).
  const RunRecord limit = run(*plain, "limit", {{"contact_scale", "0=4"}});
  CHECK(std::abs(*limit.lift_off_time - 2.0) <= 1e-12);
  // Refused with the field named: not NAME=SCALE, no such constraint, named twice, out of range.
  for (const char* bad : {"plane", "floor=2", "plane=2,plane=3", "plane=0", "plane=1e13"}) {
    INFO(bad);
    testing::SolveOptions o;
    o.solver = "realization";
    o.solver_params = {{"N", "1e3"}, {"contact_scale", bad}};
    CHECK_THROWS_WITH(testing::solve(*plain, o), Catch::Contains("contact_scale"));
    // The classical limit, which has no use for the scales, still refuses them.
    o.solver = "limit";
    o.solver_params = {{"preset", "penalty"}, {"contact_scale", bad}};
    CHECK_THROWS_WITH(testing::solve(*plain, o), Catch::Contains("contact_scale"));
  }
}

TEST_CASE("The limit refuses a power-law spring where z is carried", "[limit]") {
  const auto model = make_model("ball-chain", {{"n", "3"}, {"gap", "0.1"}, {"exponent", "1.5"}});
  testing::SolveOptions o;
  o.solver = "limit";
  o.solver_params = {{"preset", "viscous"}};
  CHECK_THROWS_WITH(testing::solve(*model, o), Catch::Contains("power-law spring (exponent 1.5)") &&
                                                   Catch::Contains("accepted: alpha = beta = 0"));
  o.solver_params = {{"preset", "penalty"}};
  CHECK(testing::solve(*model, o).status == Status::ok);
}

}  // namespace limit_tests
