// Bilateral holonomic constraints f(q,t) = 0 and their penalty realization (Kozlov 1992 §4): the
// Rubin–Ungar limit on rubin-ungar-rail against its closed form, the realizations against their
// limits, the stiff pendulum whose Rubin–Ungar potential is constant, and the refusals.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <sstream>

#include "crbench/bench/cli.hpp"
#include "support.hpp"

namespace bilateral_tests {

namespace {

using namespace crbench;

RunRecord solve(const std::string& case_name, const std::vector<Assignment>& case_params,
                const std::string& solver, const std::vector<Assignment>& solver_params,
                const std::function<void(const TrajectorySample&)>& on_sample = {}) {
  const auto model = make_model(case_name, case_params);
  testing::SolveOptions o;
  o.solver = solver;
  o.solver_params = solver_params;
  if (on_sample) {
    o.output_times = testing::grid(0.0, model->horizon(), 201);
    o.on_sample = on_sample;
  }
  const RunRecord r = testing::solve(*model, o);
  INFO(case_name << " / " << solver << ": " << r.reason);
  REQUIRE(r.status == Status::ok);
  return r;
}

double angle(const Eigen::VectorXd& q) { return std::atan2(q(0), -q(1)); }

}  // namespace

TEST_CASE("Bilateral rows are the last rows of f, and the ideal solvers hold them", "[bilateral]") {
  const auto model = make_model("stiff-pendulum", {{"vr", "0"}});
  CHECK(model->constraint_count() == 1);
  CHECK(model->bilateral_count() == 1);
  CHECK(model->is_bilateral(0));
  // The rigid pendulum: energy kept, f and f' held by the acceleration-level equations and the
  // projection at phase starts.
  const RunRecord r = solve("stiff-pendulum", {{"vr", "0"}}, "event-driven", {});
  const double energy = 0.5 * r.final_state.v.squaredNorm() + r.final_state.q(1);
  CHECK(energy == Approx(0.5 - 1.0).margin(1e-10));
  CHECK(r.diagnostics["max_bilateral_drift"].get<double>() <= 1e-10);
  CHECK(r.diagnostics["max_bilateral_rate_drift"].get<double>() <= 1e-10);
  CHECK(r.events.empty());
}

TEST_CASE(
    "rubin-ungar-rail, vn = 1: the penalty limit is the Rubin-Ungar oscillation to 1e-10, and "
    "the realization at N = 1e6 ends within 1e-7 of it",
    "[bilateral][realization]") {
  const auto model = make_model("rubin-ungar-rail", {});
  const Facts facts = model->facts();
  const ClosedFormTrajectory* exact = facts.trajectory("rubin-ungar");
  REQUIRE(exact);
  double worst = 0.0;
  const RunRecord limit = solve(
      "rubin-ungar-rail", {}, "limit", {{"preset", "penalty"}}, [&](const TrajectorySample& s) {
        worst = std::max(worst, (s.x.q - *exact->q(s.x.t, std::nan(""))).lpNorm<Eigen::Infinity>());
      });
  CHECK(limit.diagnostics["limit_kind"] == "rubin-ungar");
  CHECK(limit.diagnostics["normal_energy"].get<double>() == Approx(0.5).epsilon(1e-14));
  CHECK(worst <= 1e-10);
  // The holonomic motion x = x0 + vx0 t is far away: the trap this case shows.
  CHECK(std::abs(limit.final_state.q(0) - (0.5 + 0.2 * 5.0)) > 1.0);

  const RunRecord realization =
      solve("rubin-ungar-rail", {}, "realization", {{"preset", "penalty"}, {"N", "1e6"}});
  const double distance = std::abs(realization.final_state.q(0) - limit.final_state.q(0));
  INFO("|x(5) - x_limit(5)| at N = 1e6: " << distance);
  CHECK(distance <= 1e-7);
}

TEST_CASE(
    "rubin-ungar-rail: with vn = 0 the penalty realization is the holonomic motion, and with "
    "damping it tends to it at order 1",
    "[bilateral][realization]") {
  const auto model = make_model("rubin-ungar-rail", {});
  const auto holonomic = [](double t) { return Eigen::Vector2d(0.5 + 0.2 * t, 0.0); };
  // vn = 0 satisfies Kozlov 1992 (10): no force acts across the rail, so y stays 0 exactly.
  const RunRecord still = solve("rubin-ungar-rail", {{"vn", "0"}}, "realization",
                                {{"preset", "penalty"}, {"N", "1e4"}});
  CHECK((still.final_state.q - holonomic(5.0)).lpNorm<Eigen::Infinity>() <= 1e-10);
  const RunRecord limit_still =
      solve("rubin-ungar-rail", {{"vn", "0"}}, "limit", {{"preset", "penalty"}});
  CHECK(limit_still.diagnostics["limit_kind"] == "holonomic");

  // vn = 1 with damping (0,1,1): the normal energy is dissipated; x(5) − 1.5 ≈ −0.128/N.
  const RunRecord limit =
      solve("rubin-ungar-rail", {}, "limit", {{"alpha", "0"}, {"beta", "1"}, {"gamma", "1"}});
  CHECK(limit.diagnostics["limit_kind"] == "holonomic");
  CHECK((limit.final_state.q - holonomic(5.0)).lpNorm<Eigen::Infinity>() <= 1e-10);
  std::vector<double> Ns{1e3, 1e4, 1e5}, errors;
  for (const double N : Ns) {
    const RunRecord r =
        solve("rubin-ungar-rail", {}, "realization",
              {{"alpha", "0"}, {"beta", "1"}, {"gamma", "1"}, {"N", format_number(N)}});
    errors.push_back((r.final_state.q - holonomic(5.0)).lpNorm<Eigen::Infinity>());
  }
  const double order = -testing::fitted_slope(Ns, errors);
  INFO("errors " << Catch::Detail::stringify(errors) << ", order " << order);
  CHECK(order == Approx(1.0).margin(0.05));
}

TEST_CASE(
    "stiff-pendulum, vr = 0.5: the penalty realization at N = 1e6 keeps the rigid pendulum's "
    "angle to 1e-5, and its radius carries the fast oscillation of amplitude vr/sqrt(N)",
    "[bilateral][realization]") {
  // |grad f| = 1 on the circle: the Rubin-Ungar potential has no tangential gradient, so the limit
  // (computed as such) is the rigid pendulum from the tangential speed, i.e. event-driven's motion
  // with vr = 0.
  const RunRecord rigid = solve("stiff-pendulum", {{"vr", "0"}}, "event-driven", {});
  const RunRecord limit = solve("stiff-pendulum", {}, "limit", {{"preset", "penalty"}});
  CHECK(limit.diagnostics["limit_kind"] == "rubin-ungar");
  CHECK((limit.final_state.q - rigid.final_state.q).lpNorm<Eigen::Infinity>() <= 1e-10);
  const RunRecord r =
      solve("stiff-pendulum", {}, "realization", {{"preset", "penalty"}, {"N", "1e6"}});
  const double angle_error = std::abs(angle(r.final_state.q) - angle(rigid.final_state.q));
  const double radius_error = std::abs(r.final_state.q.norm() - 1.0);
  INFO("angle error " << angle_error << ", radius - L " << radius_error);
  CHECK(angle_error <= 1e-5);
  CHECK(radius_error <= 1.01 * 0.5 / std::sqrt(1e6));
}

TEST_CASE("Bilateral cases: what cannot be computed is refused with one line (exit 2)",
          "[bilateral][cli]") {
  const std::vector<std::pair<std::vector<std::string>, std::string>> refused{
      {{"--case", "rubin-ungar-rail", "--solver", "event-driven"}, "condition (10)"},
      {{"--case", "stiff-pendulum", "--solver", "event-driven"}, "condition (10)"},
      {{"--case", "rubin-ungar-rail", "--solver", "moreau-jean"},
       "does not compute bilateral constraints"},
      {{"--case", "rubin-ungar-rail", "--solver", "limit", "--alpha", "1", "--beta", "0", "--gamma",
        "1"},
       "--alpha"},
  };
  for (const auto& [flags, expected] : refused) {
    std::vector<std::string> args{"run"};
    args.insert(args.end(), flags.begin(), flags.end());
    testing::check_refused(args, expected);
  }
}

}  // namespace bilateral_tests
