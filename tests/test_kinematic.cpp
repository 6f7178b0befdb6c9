// Kinematic constraints a(q,t)·q̇ + b(q,t) = 0: the AD-derived quantities against finite
// differences, the ideal (nonholonomic) motion of event-driven against the knife edge's closed
// form, and the solvers that do not compute such constraints refusing the case.
#include <algorithm>
#include <array>
#include <boost/numeric/odeint.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "crbench/bench/cli.hpp"
#include "crbench/solvers/realization_dynamics.hpp"
#include "support.hpp"

namespace kinematic_tests {

using namespace crbench;

namespace {

// A test-only case whose kinematic row depends on q and t and has an offset b, so that every
// term of g_rate = ȧ q̇ + ḃ and of the curl is exercised: n = 2, no unilateral constraint,
// a = (cos t + q1, q0 q1), b = sin(q0 t).
struct TimeDependentRow : NoForce<2> {
  static constexpr int n = 2;
  static constexpr int m = 0;
  static constexpr int kinematic = 1;
  explicit TimeDependentRow(const ParamValues&) {}
  static CaseInfo info() {
    return {.name = "time-dependent-row",
            .description = "test case",
            .params = {},
            .dof = n,
            .constraints = m,
            .switches = switches};
  }
  template <class S>
  Mat<S, n, n> metric(const Vec<S, n>& q) const {
    Mat<S, n, n> A;
    A << S(2.0) + q(1) * q(1), S(0.3), S(0.3), S(1.0);
    return A;
  }
  template <class S>
  S potential(const Vec<S, n>& q, const S& /*t*/) const {
    return q(0) * q(1);
  }
  template <class S>
  Vec<S, m> constraints(const Vec<S, n>& /*q*/, const S& /*t*/) const {
    return Vec<S, m>();
  }
  template <class S>
  Mat<S, 1, n> kinematic_rows(const Vec<S, n>& q, const S& t) const {
    using std::cos;
    Mat<S, 1, n> a;
    a(0, 0) = cos(t) + q(1);
    a(0, 1) = q(0) * q(1);
    return a;
  }
  template <class S>
  Vec<S, 1> kinematic_offset(const Vec<S, n>& q, const S& t) const {
    using std::sin;
    return Vec<S, 1>(sin(q(0) * t));
  }
  State initial_state() const {
    return {.t = 0.3, .q = Eigen::Vector2d(0.7, -0.4), .v = Eigen::Vector2d(0.2, 1.1)};
  }
  double horizon() const { return 1.0; }
  Facts facts() const { return {}; }
};

// g = a q̇ + b at (q, q̇, t), from the case's functions at double precision.
Eigen::VectorXd g_of(const TimeDependentRow& c, const Eigen::Vector2d& q, const Eigen::Vector2d& v,
                     double t) {
  return c.kinematic_rows<double>(q, t) * v + c.kinematic_offset<double>(q, t);
}

}  // namespace

TEST_CASE("Kinematic rows: g, g_rate and the curl match finite differences", "[kinematic][ad]") {
  const auto model = testing::model_of<TimeDependentRow>();
  const TimeDependentRow c{ParamValues{}};
  const State x = model->initial_state();
  Point p;
  model->evaluate(x, {}, p);
  REQUIRE(model->kinematic_count() == 1);
  const Eigen::Vector2d q = x.q, v = x.v;
  CHECK(testing::close(p.g, g_of(c, q, v, x.t), 1e-14));
  // g_rate = d/ds g(q + s q̇, q̇, t + s) at s = 0 (ġ with q̈ = 0).
  const Eigen::VectorXd rate =
      testing::derivative([&](double s) { return g_of(c, q + s * v, v, x.t + s); });
  CHECK(testing::close(p.g_rate, rate, 1e-8));
  // Ω_i = ∂g/∂q_i (q̇ fixed) − (d/ds a(q + s q̇, t + s))_i: the Lagrangian derivative of g²/2
  // less its g ȧ part.
  Eigen::Vector2d curl;
  const Eigen::VectorXd along = testing::derivative([&](double s) {
    return Eigen::VectorXd(c.kinematic_rows<double>(q + s * v, x.t + s).transpose());
  });
  for (int i = 0; i < 2; ++i) {
    const Eigen::VectorXd grad = testing::derivative([&](double s) {
      Eigen::Vector2d qs = q;
      qs(i) += s;
      return g_of(c, qs, v, x.t);
    });
    curl(i) = grad(0) - along(i);
  }
  CHECK(testing::close(p.curl.row(0).transpose(), curl, 1e-8));
  // A wrong curl would be caught.
  CHECK_FALSE(testing::close(p.curl.row(0).transpose() * (1.0 + 1e-5), curl, 1e-8));
  // The dual evaluation carries the same values.
  PointT<Dual> dual;
  model->evaluate_dual(x, {}, dual);
  CHECK(dual.g(0).value() == Approx(p.g(0)).epsilon(1e-15));
  CHECK(dual.g_rate(0).value() == Approx(p.g_rate(0)).epsilon(1e-15));
}

TEST_CASE("Kinematic rows: the constrained acceleration keeps the constraint (a q̈ + g_rate = 0)",
          "[kinematic]") {
  const auto model = testing::model_of<TimeDependentRow>();
  Point p;
  model->evaluate(model->initial_state(), {}, p);
  const ConstrainedAcceleration acc = constrained_acceleration(p, {});
  REQUIRE(acc.ok);
  CHECK(std::abs(p.a.row(0).dot(acc.qdd) + p.g_rate(0)) <= 1e-13);
  // d'Alembert–Lagrange: A q̈ = F + aᵀν.
  CHECK(testing::close(p.A * acc.qdd, p.free_force() + p.a.transpose() * acc.kinematic_lambda,
                       1e-13));
}

TEST_CASE(
    "knife-edge-incline: event-driven gives the nonholonomic closed form to 1e-10, keeps "
    "T + V and a q̇ = 0 to 1e-10",
    "[kinematic]") {
  for (const auto& set :
       std::vector<std::vector<Assignment>>{{}, {{"a_g", "2.5"}, {"omega", "1.7"}, {"J", "0.3"}}}) {
    const auto model = make_model("knife-edge-incline", set);
    const Facts facts = model->facts();
    const ClosedFormTrajectory* exact = facts.trajectory("classical");
    REQUIRE(exact);
    const double energy0 = model->kinetic_energy(model->initial_state()) +
                           model->potential(0.0, model->initial_state().q);
    double worst_q = 0.0, worst_energy = 0.0;
    int samples = 0;
    testing::SolveOptions o;
    o.output_times = testing::grid(0.0, model->horizon(), 301);
    o.on_sample = [&](const TrajectorySample& s) {
      worst_q =
          std::max(worst_q, (s.x.q - *exact->q(s.x.t, std::nan(""))).lpNorm<Eigen::Infinity>());
      const double energy = model->kinetic_energy(s.x) + model->potential(s.x.t, s.x.q);
      worst_energy = std::max(worst_energy, std::abs(energy - energy0));
      ++samples;
    };
    const RunRecord r = testing::solve(*model, o);
    INFO("worst |q - closed form| " << worst_q << ", energy drift " << worst_energy);
    REQUIRE(r.status == Status::ok);
    CHECK(samples == 301);
    CHECK(worst_q <= 1e-10);
    CHECK(worst_energy <= 1e-10);
    CHECK(r.diagnostics["max_kinematic_drift"].get<double>() <= 1e-10);
    CHECK(!r.lift_off_time);  // no unilateral constraint, no contact episode
  }
}

TEST_CASE("Kinematic cases: what has no meaning is refused with one line (exit 2)",
          "[kinematic][cli]") {
  const std::vector<std::pair<std::vector<std::string>, std::string>> refused{
      {{"--solver", "realization", "--gamma", "1"}, "gamma = 1 has no meaning"},
      {{"--solver", "realization", "--preset", "penalty"}, "gamma = 1 has no meaning"},
      {{"--solver", "limit", "--preset", "kozlov-impact"}, "has no meaning"},
      {{"--solver", "realization", "--alpha", "0", "--beta", "0", "--gamma", "0"},
       "alpha, beta, gamma are all 0"},
      {{"--solver", "limit", "--interaction", "obstacle"}, "obstacle has no meaning"},
  };
  for (const auto& [flags, expected] : refused) {
    std::vector<std::string> args{"run", "--case", "knife-edge-incline"};
    args.insert(args.end(), flags.begin(), flags.end());
    testing::check_refused(args, expected);
  }
}

namespace {

// q at the horizon of knife-edge-incline for one solver and model.
Eigen::VectorXd final_q(const std::string& solver, std::vector<Assignment> params) {
  const auto model = make_model("knife-edge-incline", {});
  testing::SolveOptions o;
  o.solver = solver;
  o.solver_params = std::move(params);
  const RunRecord r = testing::solve(*model, o);
  REQUIRE(r.status == Status::ok);
  return r.final_state.q;
}

// The test-only row and the two skate cases, and a state away from their initial data (so that
// every term of the equations is non-zero).
std::vector<std::unique_ptr<Model>> models_with_rows() {
  std::vector<std::unique_ptr<Model>> models;
  models.push_back(testing::model_of<TimeDependentRow>());
  models.push_back(make_model("knife-edge-incline", {}));
  models.push_back(make_model("chaplygin-sled", {}));
  return models;
}
State off_the_start(const Model& model) {
  const int n = model.dof();
  State x = model.initial_state();
  x.t += 0.2;
  x.q += Eigen::VectorXd::LinSpaced(n, 0.1, 0.7);
  x.v += Eigen::VectorXd::LinSpaced(n, -0.3, 0.4);
  return x;
}

const std::vector<std::pair<std::string, std::string>> kMembers{
    {"0", "1"}, {"1", "0"}, {"1", "1"}, {"1", "10"}};  // (alpha, beta)

}  // namespace

TEST_CASE(
    "Every member of the mu = beta/alpha family keeps T + V and a q' = 0 to 1e-10 "
    "(knife-edge-incline, chaplygin-sled) - alpha = 0 is the nonholonomic closed form",
    "[kinematic][limit]") {
  for (const char* case_name : {"knife-edge-incline", "chaplygin-sled"}) {
    const auto model = make_model(case_name, {});
    const Facts facts = model->facts();
    const ClosedFormTrajectory* exact = facts.trajectory("classical");
    REQUIRE(exact);
    const double energy0 = model->kinetic_energy(model->initial_state()) +
                           model->potential(0.0, model->initial_state().q);
    for (const auto& [alpha, beta] : kMembers) {
      double worst_energy = 0.0, worst_q = 0.0;
      testing::SolveOptions o;
      o.solver = "limit";
      o.solver_params = {{"alpha", alpha}, {"beta", beta}, {"gamma", "0"}};
      o.output_times = testing::grid(0.0, model->horizon(), 101);
      o.on_sample = [&](const TrajectorySample& s) {
        worst_energy = std::max(worst_energy, std::abs(model->kinetic_energy(s.x) +
                                                       model->potential(s.x.t, s.x.q) - energy0));
        if (alpha != "0") return;  // the closed form is the nonholonomic member's
        worst_q =
            std::max(worst_q, (s.x.q - *exact->q(s.x.t, std::nan(""))).lpNorm<Eigen::Infinity>());
      };
      const RunRecord r = testing::solve(*model, o);
      INFO(case_name << ", alpha " << alpha << ", beta " << beta << ": energy drift "
                     << worst_energy << ", distance from the nonholonomic motion " << worst_q);
      REQUIRE(r.status == Status::ok);
      CHECK(worst_energy <= 1e-10);
      CHECK(r.diagnostics["max_kinematic_drift"].get<double>() <= 1e-10);
      if (alpha == "0") {
        CHECK(worst_q <= 1e-10);
      } else {
        // The added mass picks another motion (vakonomic for beta = 0).
        const double apart =
            (r.final_state.q - *exact->q(r.final_state.t, std::nan(""))).lpNorm<Eigen::Infinity>();
        CHECK(apart > 0.01);
      }
    }
  }
}

TEST_CASE("chaplygin-sled: the ideal sled's rotation dies out as omega0 cosh(s0)/cosh(k t + s0)",
          "[kinematic]") {
  const auto model = make_model("chaplygin-sled", {});
  const RunRecord r = testing::solve(*model);
  REQUIRE(r.status == Status::ok);
  const double expected = *model->facts().value("final turning rate");
  CHECK(r.final_state.v(2) == Approx(expected).epsilon(1e-9));
  CHECK(r.final_state.v(2) < 0.01 * model->initial_state().v(2));
}

TEST_CASE(
    "knife-edge-incline: N times the realization's distance from its member is constant to 1e-3 "
    "from N = 1e6 to 1e10, and the solve costs no more rhs evaluations at N = 1e12 than 3 times "
    "those at 1e2",
    "[kinematic][realization]") {
  // The velocity chart (solvers/velocity_chart.hpp) at work: without it the (0,1) solve took
  // 7.8e6 evaluations at N = 1e12 (57708 at 1e2) and the (1,0) one ended farther from its limit at
  // N = 1e8 than at 1e7.
  const auto model = make_model("knife-edge-incline", {});
  for (const auto& [alpha, beta] : kMembers) {
    const std::vector<Assignment> member{{"alpha", alpha}, {"beta", beta}, {"gamma", "0"}};
    const Eigen::VectorXd limit = final_q("limit", member);
    std::vector<double> scaled;
    for (const double N : {1e6, 1e8, 1e10}) {
      std::vector<Assignment> params = member;
      params.push_back({"N", format_number(N)});
      scaled.push_back(N * (final_q("realization", params) - limit).lpNorm<Eigen::Infinity>());
    }
    const auto evaluations = [&](const char* N) {
      testing::SolveOptions o;
      o.solver = "realization";
      o.solver_params = member;
      o.solver_params.push_back({"N", N});
      const RunRecord r = testing::solve(*model, o);
      REQUIRE(r.status == Status::ok);
      return r.rhs_evaluations;
    };
    const long at_1e2 = evaluations("1e2");
    const long at_1e12 = evaluations("1e12");
    INFO("alpha " << alpha << ", beta " << beta << ": N * distance at 1e6, 1e8, 1e10 "
                  << Catch::Detail::stringify(scaled) << "; rhs evaluations " << at_1e2
                  << " at N = 1e2, " << at_1e12 << " at 1e12");
    CHECK(scaled[1] == Approx(scaled[0]).epsilon(1e-3));
    CHECK(scaled[2] == Approx(scaled[0]).epsilon(1e-3));
    CHECK(at_1e12 <= 3 * at_1e2);
  }
}

TEST_CASE(
    "knife-edge-incline: the (alpha, beta)N realization tends to its family member with "
    "order 1 in N",
    "[kinematic][realization]") {
  for (const auto& [alpha, beta] :
       std::vector<std::pair<std::string, std::string>>{{"0", "1"}, {"1", "0"}, {"1", "1"}}) {
    const std::vector<Assignment> model{{"alpha", alpha}, {"beta", beta}, {"gamma", "0"}};
    const Eigen::VectorXd limit = final_q("limit", model);
    std::vector<double> Ns{1e2, 1e3, 1e4}, errors;
    for (const double N : Ns) {
      std::vector<Assignment> params = model;
      params.push_back({"N", format_number(N)});
      errors.push_back((final_q("realization", params) - limit).lpNorm<Eigen::Infinity>());
    }
    const double order = -testing::fitted_slope(Ns, errors);
    INFO("alpha " << alpha << ", beta " << beta << ": errors " << Catch::Detail::stringify(errors)
                  << ", order " << order);
    CHECK(order == Approx(1.0).margin(0.05));
  }
}

TEST_CASE(
    "Kinematic rows: the realization's well-conditioned form equals (A + alpha N a^T a) q'' = "
    "F - N a^T(alpha g_rate + beta g) + alpha N curl^T g",
    "[kinematic][realization]") {
  // Kozlov 1992 §3 (the equations before (6)): Lagrange's equations of L_N = T + alpha N g^2/2 - V
  // with the Rayleigh function beta N g^2/2, solved here directly at N = 10 (condition number small
  // enough).
  const double N = 10.0;
  for (const auto& model : models_with_rows()) {
    const State x = off_the_start(*model);
    Point p;
    model->evaluate(x, {}, p);
    for (const auto& [alpha, beta] :
         std::vector<std::pair<double, double>>{{0.0, 1.0}, {1.0, 0.0}, {1.0, 1.0}, {1.0, 10.0}}) {
      const Medium medium{
          .mass = alpha * N, .damping = beta * N, .stiffness = 0.0, .obstacle = false};
      Eigen::MatrixXd M = p.A + medium.mass * p.a.transpose() * p.a;
      const Eigen::VectorXd rhs =
          p.free_force() - p.a.transpose() * (medium.mass * p.g_rate + medium.damping * p.g) +
          medium.mass * p.curl.transpose() * p.g;
      const Eigen::VectorXd expected = M.partialPivLu().solve(rhs);
      Eigen::VectorXd qdd, nu_dot;
      kinematic_dynamics<double>(p, Eigen::VectorXd(N * p.g), N, medium, qdd, nu_dot);
      INFO(model->info().name << " (" << alpha << ", " << beta << ")");
      CHECK(testing::close(qdd, expected, 1e-13));
      CHECK(testing::close(nu_dot, N * (p.a * expected + p.g_rate), 1e-13));
    }
  }
}

TEST_CASE(
    "Kinematic rows: in every velocity chart the realization's AD Jacobian matches finite "
    "differences, and the chart maps velocities both ways",
    "[kinematic][realization][ad]") {
  const Medium medium{.mass = 0.0, .damping = 300.0, .stiffness = 0.0, .obstacle = false};
  for (const auto& model : models_with_rows()) {
    const int n = model->dof();
    const State x = off_the_start(*model);
    Eigen::MatrixXd a;
    Eigen::VectorXd b;
    model->kinematic_affine(x.t, x.q, a, b);
    // Every choice of constrained columns whose a_C is invertible (the knife edge's blade row has
    // two: x and y).
    for (int column = 0; column < n; ++column) {
      Eigen::MatrixXd a_pick = Eigen::MatrixXd::Zero(1, n);
      a_pick(0, column) = 1.0;
      if (model->kinematic_count() != 1 || std::abs(a(0, column)) < 0.1) continue;
      const double scale = 7.0;
      const VelocityChart chart = VelocityChart::best_for(a_pick, scale);
      INFO(model->info().name << ", constrained column " << column);
      REQUIRE(chart.constrained_columns() == std::vector<int>{column});
      const Eigen::VectorXd y = chart.point(*model, x);
      CHECK(y(n) == Approx(scale * (a * x.v + b)(0)).margin(1e-14));
      Eigen::MatrixXd a_out;
      Eigen::VectorXd b_out;
      CHECK(testing::close(chart.state(*model, x.t, y, a_out, b_out).v, x.v, 1e-14));
      const auto rhs = [&](double t, const Eigen::VectorXd& yy) {
        const State s = chart.state(*model, t, yy, a_out, b_out);
        Point p;
        model->evaluate(s, {}, p);
        Eigen::VectorXd qdd, nu_dot;
        kinematic_dynamics<double>(p, Eigen::VectorXd(yy.segment(n, 1)), scale, medium, qdd,
                                   nu_dot);
        Eigen::VectorXd dy(2 * n);
        dy << s.v, chart.rate<double>(nu_dot, qdd);
        return dy;
      };
      RealizationJacobianWork work;
      Eigen::MatrixXd jac;
      Eigen::VectorXd dfdt;
      realization_jacobian(*model, chart, x.t, y, {}, {}, {}, medium, work, jac, dfdt);
      testing::check_jacobian_columns(
          jac, [&](const Eigen::VectorXd& yy) { return rhs(x.t, yy); }, y, 1e-7);
      const Eigen::VectorXd time_fd =
          testing::derivative([&](double h) { return rhs(x.t + h, y); });
      CHECK(testing::close(dfdt, time_fd, 1e-7));
    }
  }
}

TEST_CASE(
    "parabola-integrable: every member of the family and the ideal motion equal the "
    "holonomic bead on the parabola to 1e-10",
    "[kinematic]") {
  const auto model = make_model("parabola-integrable", {{"x0", "1.2"}, {"u0", "0.3"}});
  const State x0 = model->initial_state();
  // The reference: (1 + x^2) x'' + x x'^2 + g x = 0 (g = 1), integrated here independently at a
  // tight tolerance, y = x^2/2.
  const auto grid = testing::grid(0.0, model->horizon(), 101);
  std::vector<Eigen::Vector2d> holonomic;
  {
    using Y = std::array<double, 2>;
    Y y{x0.q(0), x0.v(0)};
    auto stepper = boost::numeric::odeint::make_dense_output(
        1e-15, 1e-14, boost::numeric::odeint::runge_kutta_dopri5<Y>());
    boost::numeric::odeint::integrate_times(
        stepper,
        [](const Y& s, Y& ds, double) {
          ds[0] = s[1];
          ds[1] = -(s[0] * s[1] * s[1] + s[0]) / (1.0 + s[0] * s[0]);
        },
        y, grid.begin(), grid.end(), 1e-3,
        [&](const Y& s, double) { holonomic.emplace_back(s[0], 0.5 * s[0] * s[0]); });
  }
  REQUIRE(holonomic.size() == grid.size());
  std::vector<std::pair<std::string, std::vector<Assignment>>> runs{{"event-driven", {}}};
  for (const auto& [alpha, beta] : kMembers) {
    runs.push_back({"limit", {{"alpha", alpha}, {"beta", beta}, {"gamma", "0"}}});
  }
  for (const auto& [solver, params] : runs) {
    double worst = 0.0;
    std::size_t k = 0;
    testing::SolveOptions o;
    o.solver = solver;
    o.solver_params = params;
    o.output_times = grid;
    o.on_sample = [&](const TrajectorySample& s) {
      if (k < holonomic.size())
        worst = std::max(worst, (s.x.q - holonomic[k++]).lpNorm<Eigen::Infinity>());
    };
    const RunRecord r = testing::solve(*model, o);
    INFO(solver << " " << Catch::Detail::stringify(params.size()) << " params: worst " << worst);
    REQUIRE(r.status == Status::ok);
    CHECK(k == grid.size());
    CHECK(worst <= 1e-10);
  }
}

TEST_CASE(
    "verify on a kinematic case: the ladder's max_q_deviation from the limit member falls "
    "at order 1",
    "[kinematic][verify]") {
  const char* argv[] = {"crbench", "verify", "--case",   "knife-edge-incline",
                        "--alpha", "1",      "--beta",   "1",
                        "--gamma", "0",      "--N-from", "10",
                        "--N-to",  "1e4",    "--json"};
  std::ostringstream out, err;
  const int status = run_cli(static_cast<int>(std::size(argv)), argv, out, err);
  INFO(err.str() << out.str());
  CHECK(status == 0);
  const auto j = nlohmann::json::parse(out.str());
  CHECK(j["confirmed"] == true);
  CHECK(j["least_squares_order"].get<double>() == Approx(1.0).margin(0.05));
  CHECK(j["points"].size() == 4);
}

TEST_CASE(
    "kirgetov-bicycle: the controlled nonholonomic motion of event-driven and of the limit "
    "against the reduced (Chaplygin) equation integrated independently",
    "[kinematic]") {
  // The facts integrate the reduced equation in sigma = phi1' (cases/kirgetov_bicycle.hpp) by
  // Runge-Kutta-Fehlberg 7(8); event-driven integrates the five coordinates with the four
  // time-dependent rows (6.2), (6.3) and their multipliers, the limit solver the (0, 1) member.
  const auto check = [](const std::vector<Assignment>& set, const char* solver,
                        std::vector<Assignment> params, double tolerance) {
    const auto model = make_model("kirgetov-bicycle", set);
    const Facts facts = model->facts();
    const ClosedFormTrajectory* exact = facts.trajectory("classical");
    REQUIRE(exact);
    double worst = 0.0;
    testing::SolveOptions o;
    o.solver = solver;
    o.solver_params = std::move(params);
    o.output_times = testing::grid(0.0, model->horizon(), 101);
    o.on_sample = [&](const TrajectorySample& s) {
      worst = std::max(worst, (s.x.q - *exact->q(s.x.t, std::nan(""))).lpNorm<Eigen::Infinity>());
    };
    const RunRecord r = testing::solve(*model, o);
    INFO(solver << ": distance from the reduced motion " << worst);
    REQUIRE(r.status == Status::ok);
    CHECK(worst <= tolerance);
    return r.final_state;
  };
  const State ideal = check({}, "event-driven", {}, 1e-9);
  check({}, "limit", {{"alpha", "0"}, {"beta", "1"}, {"gamma", "0"}}, 1e-9);
  // The bicycle turns: the heading moves by more than 0.5 rad over the horizon.
  CHECK(std::abs(ideal.q(2)) > 0.5);
  // The centre of mass's offset c enters the motion only through J + m c^2: c = 0 with J = 0.26
  // rolls the same way as the defaults (c = 0.4, J = 0.1).
  const State moved = check({{"c", "0"}, {"J", "0.26"}}, "event-driven", {}, 1e-9);
  CHECK((moved.q - ideal.q).lpNorm<Eigen::Infinity>() < 1e-9);
  // The front wheel's rate is not constant (the steering works on the wheels): from 3 to 3.0111.
  CHECK(std::abs(ideal.v(4) - 3.0) > 0.005);
}

TEST_CASE(
    "kirgetov-bicycle: the viscous realization tends to the nonholonomic motion like 1/N, "
    "the added mass picks another motion",
    "[kinematic][realization]") {
  const auto model = make_model("kirgetov-bicycle", {});
  const Facts facts = model->facts();
  const ClosedFormTrajectory* exact = facts.trajectory("viscous");
  REQUIRE(exact);
  const auto distance = [&](std::vector<Assignment> params) {
    testing::SolveOptions o;
    o.solver = "realization";
    o.solver_params = std::move(params);
    const RunRecord r = testing::solve(*model, o);
    REQUIRE(r.status == Status::ok);
    return (r.final_state.q - *exact->q(r.final_state.t, std::nan(""))).lpNorm<Eigen::Infinity>();
  };
  const double at_1e4 = distance({{"alpha", "0"}, {"beta", "1"}, {"gamma", "0"}, {"N", "1e4"}});
  const double at_1e6 = distance({{"alpha", "0"}, {"beta", "1"}, {"gamma", "0"}, {"N", "1e6"}});
  INFO("distance at N = 1e4: " << at_1e4 << ", at 1e6: " << at_1e6);
  CHECK(at_1e4 / at_1e6 == Approx(100.0).epsilon(0.05));
  CHECK(distance({{"alpha", "1"}, {"beta", "0"}, {"gamma", "0"}, {"N", "1e6"}}) > 0.01);
}

}  // namespace kinematic_tests
