// The event-driven classical solver against closed forms: lift-off at a force switch and at a
// simple zero of λ, contact times of an oscillator, a bouncing sequence ending at rest.
#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>

#include "crbench/solvers/phase.hpp"
#include "support.hpp"
#include "test_cases.hpp"

namespace event_driven_tests {

using namespace crbench;
using testing::SolveOptions;

namespace {
std::vector<double> times_of(const RunRecord& r, const std::string& kind) {
  std::vector<double> t;
  for (const auto& e : r.events) {
    if (to_string(e.kind) == kind) t.push_back(e.t);
  }
  return t;
}
}  // namespace

TEST_CASE("dk-plane: classical lift-off at t = 1 and y = g(t-1)^2/2 after it - to 1e-12",
          "[event-driven]") {
  for (const double g : {1.0, 3.0}) {
    const auto model = make_model("dk-plane", {{"g", format_number(g)}});
    const Facts facts = model->facts();
    const ClosedFormTrajectory* exact = facts.trajectory("classical");
    REQUIRE(exact != nullptr);
    double max_error = 0.0;
    int rows = 0;
    SolveOptions o;
    o.output_times = testing::grid(0.0, 3.0, 301);
    o.on_sample = [&](const TrajectorySample& s) {
      const Eigen::VectorXd q = *exact->q(s.x.t, std::nan(""));
      max_error = std::max(max_error, (s.x.q - q).lpNorm<Eigen::Infinity>());
      ++rows;
    };
    const RunRecord r = testing::solve(*model, o);
    INFO("g = " << g);
    REQUIRE(r.status == Status::ok);
    REQUIRE(r.lift_off_time);
    CHECK(std::abs(*r.lift_off_time - *facts.lift_off_time("classical")) <= 1e-12);
    CHECK(rows >= 301);
    CHECK(max_error <= 1e-12);
    // Exactly one contact phase: contact at 0, then the switch and the lift-off at x = 0.
    CHECK(times_of(r, "contact") == std::vector<double>{0.0});
    REQUIRE(times_of(r, "switch").size() == 1);
    CHECK(times_of(r, "switch")[0] == *r.lift_off_time);
    CHECK(r.min_constraint.at(0) >= -1e-15);
    CHECK(r.diagnostics.at("max_event_bracket").get<double>() <= 1e-13);
  }
}

TEST_CASE("Lift-off at a simple zero of lambda: ramp force - y = (t-1)^3/6 after",
          "[event-driven]") {
  const auto model = testing::model_of<test_cases::RampForce>();
  double max_error = 0.0;
  SolveOptions o;
  o.output_times = testing::grid(0.0, 2.5, 251);
  o.on_sample = [&](const TrajectorySample& s) {
    const double t = s.x.t;
    const double y = t <= 1.0 ? 0.0 : std::pow(t - 1.0, 3) / 6.0;
    max_error = std::max({max_error, std::abs(s.x.q(1) - y), std::abs(s.x.q(0) - 0.5 * t)});
    if (s.label.empty() && t < 1.0) CHECK(s.lambda(0) == Approx(1.0 - t).margin(1e-12));
  };
  const RunRecord r = testing::solve(*model, o);
  REQUIRE(r.status == Status::ok);
  REQUIRE(r.lift_off_time);
  CHECK(std::abs(*r.lift_off_time - 1.0) <= 1e-12);
  CHECK(max_error <= 1e-12);
  CHECK(times_of(r, "switch").empty());
}

TEST_CASE("Contact times of an oscillator at a wall: t = (2k+1) arccos(-1/2)", "[event-driven]") {
  const auto model = testing::model_of<test_cases::SpringWall>();
  const double t1 = std::acos(-test_cases::SpringWall::wall);  // 2π/3
  const RunRecord r = testing::solve(*model);
  REQUIRE(r.status == Status::ok);
  const auto impacts = times_of(r, "impact");
  REQUIRE(impacts.size() == 2);  // 2π/3 and 2π before the horizon 10
  CHECK(impacts[0] == Approx(t1).margin(1e-11));
  CHECK(impacts[1] == Approx(3.0 * t1).margin(1e-11));
  // Elastic: the oscillator energy is kept through both impacts.
  const double energy =
      0.5 * r.final_state.v(0) * r.final_state.v(0) + 0.5 * r.final_state.q(0) * r.final_state.q(0);
  CHECK(energy == Approx(0.5).margin(1e-11));
}

TEST_CASE("Bouncing ball with e = 0.5: impact times - then rest at the accumulation point",
          "[event-driven]") {
  using Ball = test_cases::DroppedBall;
  const auto model = testing::model_of<Ball>();
  const double e = 0.5;
  SolveOptions o;
  o.solver_params = {{"restitution", "0.5"}};
  const RunRecord r = testing::solve(*model, o);
  REQUIRE(r.status == Status::ok);
  const auto impacts = times_of(r, "impact");
  const double v1 = std::sqrt(2.0 * Ball::gravity * Ball::h0);
  double t = std::sqrt(2.0 * Ball::h0 / Ball::gravity);
  REQUIRE(impacts.size() >= 20);
  for (std::size_t k = 0; k < 20; ++k) {
    INFO("impact " << k);
    CHECK(impacts[k] == Approx(t).margin(1e-11));
    t += 2.0 * std::pow(e, static_cast<double>(k + 1)) * v1 / Ball::gravity;
  }
  for (const auto& ev : r.events) {
    if (ev.kind == EventKind::impact)
      CHECK(*ev.rate_after == Approx(-e * *ev.rate_before).margin(1e-13));
  }
  // Below contact_velocity_tol the arrival is tangential: the ball comes to rest on the table at
  // t∞ = t1 + 2 v1 e / (g (1 − e)), up to the truncated tail (≈ 2·1e-8/(g(1 − e))).
  const double t_inf =
      std::sqrt(2.0 * Ball::h0 / Ball::gravity) + 2.0 * v1 * e / (Ball::gravity * (1.0 - e));
  const auto contacts = times_of(r, "contact");
  REQUIRE(contacts.size() == 1);
  CHECK(contacts[0] == Approx(t_inf).margin(1e-8));
  CHECK(std::abs(r.final_state.q(1)) <= 1e-10);
  CHECK(std::abs(r.final_state.v(1)) <= 1e-10);
  CHECK(r.final_state.q(0) == Approx(0.3 * 3.0).epsilon(1e-12));
}

TEST_CASE("An accumulation of impacts ends the run with a status - not a hang", "[event-driven]") {
  const auto model = testing::model_of<test_cases::DroppedBall>();
  SolveOptions o;
  o.solver_params = {{"restitution", "0.5"},
                     {"contact_velocity_tol", "1e-12"},
                     {"accumulation_count", "20"},
                     {"accumulation_window", "1e-3"}};
  const RunRecord r = testing::solve(*model, o);
  CHECK(r.status == Status::impact_accumulation);
  CHECK_THAT(r.reason, Catch::Contains("impacts within"));
  CHECK(r.final_state.t < 3.0);
}

TEST_CASE("e = 0: after the impact the system stays in contact since lambda > 0",
          "[event-driven]") {
  const auto model = testing::model_of<test_cases::DroppedBall>();
  SolveOptions o;
  o.solver_params = {{"restitution", "0"}};
  const RunRecord r = testing::solve(*model, o);
  REQUIRE(r.status == Status::ok);
  CHECK(times_of(r, "impact").size() == 1);
  REQUIRE(times_of(r, "contact").size() == 1);
  CHECK(times_of(r, "contact")[0] == times_of(r, "impact")[0]);
  CHECK(std::abs(r.final_state.q(1)) <= 1e-12);
  CHECK(r.final_state.v(1) == 0.0);
}

TEST_CASE("Several time-dependent constraints under a curved metric: runs - never penetrates",
          "[event-driven]") {
  const auto model = testing::model_of<test_cases::CurvedTimeDependent>();
  double min_f = 1.0;
  SolveOptions o;
  o.output_times = testing::grid(0.0, 1.0, 101);
  o.on_sample = [&](const TrajectorySample& s) { min_f = std::min(min_f, s.f.minCoeff()); };
  const RunRecord r = testing::solve(*model, o);
  CHECK(r.status == Status::ok);
  CHECK(min_f >= -1e-9);
}

TEST_CASE("Same input - same record", "[event-driven]") {
  const auto model = make_model("dk-plane", {});
  CHECK(to_json(testing::solve(*model), false).dump() ==
        to_json(testing::solve(*model), false).dump());
}

namespace {

// A dense output of steps of length 1 whose state carries g(t) in q: the event function of
// advance_to_event is q(0), sampled at four points per step.
template <class G>
struct UnitSteps {
  G g;
  double t = 0.0;
  std::pair<double, double> step() {
    t += 1.0;
    return {t - 1.0, t};
  }
  void at(double time, crbench::State& x) const {
    x.t = time;
    x.q = Eigen::VectorXd::Constant(1, g(time));
    x.v = Eigen::VectorXd::Zero(1);
  }
};

template <class G>
crbench::PhaseEnd advance_on(G g, crbench::PhaseCounters& counters) {
  UnitSteps<G> dense{g};
  crbench::State start;
  dense.at(0.0, start);
  const crbench::PhaseControl control{.t_end = 10.0};
  return crbench::advance_to_event(
      dense, start, [](const crbench::State& x, Eigen::VectorXd& v) { v = x.q; }, {0.0}, control,
      counters, [](const crbench::State&, const Eigen::VectorXd&, const std::vector<char>&) {},
      [](double, bool) {});
}

}  // namespace

TEST_CASE("An event function that dips below zero between samples is found, or counted",
          "[event-driven][events]") {
  SECTION("a dip inside the current step is located by the dense output") {
    // Samples at 2.75, 3, 3.25 are positive (0.0783, 0.0008, 0.0483); the parabola through them
    // is g itself, whose minimum -1e-4 at 3.03 lies inside the step [3, 4].
    crbench::PhaseCounters counters;
    const auto g = [](double t) { return (t - 3.03) * (t - 3.03) - 1e-4; };
    const crbench::PhaseEnd end = advance_on(g, counters);
    REQUIRE_FALSE(end.horizon);
    CHECK(std::abs(end.x.t - 3.02) < 1e-12);
    CHECK(counters.dips_found == 1);
    CHECK(counters.dips_unsearched == 0);
  }
  SECTION("a dip in a step already left is counted with the parabola's minimum") {
    // The minimum at 2.98 lies in the step [2, 3], behind the samples that reveal it.
    crbench::PhaseCounters counters;
    const auto g = [](double t) { return (t - 2.98) * (t - 2.98) - 1e-4; };
    const crbench::PhaseEnd end = advance_on(g, counters);
    CHECK(end.horizon);
    CHECK(counters.dips_unsearched == 1);
    CHECK(std::abs(counters.first_unsearched_time - 2.98) < 1e-12);
    CHECK(std::abs(counters.first_unsearched_value + 1e-4) < 1e-12);
    crbench::RunRecord record;
    crbench::record_dips(counters, "lambda of constraint 0", record);
    REQUIRE(record.warnings.size() == 1);
    CHECK_THAT(record.warnings[0], Catch::Contains("lambda of constraint 0") &&
                                       Catch::Contains("may have been missed"));
  }
  SECTION("a minimum that stays positive is not an event") {
    crbench::PhaseCounters counters;
    const auto g = [](double t) { return (t - 3.03) * (t - 3.03) + 1e-4; };
    CHECK(advance_on(g, counters).horizon);
    CHECK(counters.dips_found == 0);
    CHECK(counters.dips_unsearched == 0);
  }
}

}  // namespace event_driven_tests
