// `crbench check`: the self-test of a case. The falling ladder written twice — with gap
// coordinates (the registered case) and with the centre's coordinates, where the wall's f is
// x − l cos θ, a difference of O(1) terms — gives a round-off floor of zero for the first and of
// order ε for the second, with the same dynamics; planted errors (a wrong fact, a wrong
// derivative, a metric that is not positive definite) make it fail.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <numbers>
#include <sstream>

#include "crbench/bench/check.hpp"
#include "crbench/bench/cli.hpp"
#include "crbench/cases/falling_ladder.hpp"
#include "crbench/cases/registry.hpp"
#include "support.hpp"

namespace check_tests {

using namespace crbench;

namespace {

// falling-ladder in the coordinates of its centre, q = (x, y, θ): A = diag(m, m, m l²/3), the
// wall's gap f = x − l cos θ and the floor's f = y − l sin θ. The same motion as the registered
// case (its centre is at (u + l cos θ, w + l sin θ)), the same classical release.
struct CentreLadder : NoForce<3> {
  static constexpr int n = 3, m = 2;
  cases::FallingLadder gaps;
  explicit CentreLadder(const ParamValues& p) : gaps(p) {}
  static CaseInfo info() {
    CaseInfo info = cases::FallingLadder::info();
    info.name = "test-centre-ladder";
    info.coordinates = {{"x", "length"}, {"y", "length"}, {"theta", "angle (rad)"}};
    return info;
  }
  template <class S>
  Mat<S, n, n> metric(const Vec<S, n>& /*q*/) const {
    Mat<S, n, n> A = Mat<S, n, n>::Zero();
    A(0, 0) = A(1, 1) = S(gaps.mass);
    A(2, 2) = S(gaps.mass * gaps.l * gaps.l / 3.0);
    return A;
  }
  template <class S>
  S potential(const Vec<S, n>& q, const S& /*t*/) const {
    return gaps.mass * gaps.g * q(1);
  }
  template <class S>
  Vec<S, m> constraints(const Vec<S, n>& q, const S& /*t*/) const {
    using std::cos;
    using std::sin;
    return Vec<S, m>(q(0) - gaps.l * cos(q(2)), q(1) - gaps.l * sin(q(2)));
  }
  State initial_state() const {
    const double l = gaps.l, theta0 = gaps.theta0;
    return {.t = 0.0,
            .q = Eigen::Vector3d(l * std::cos(theta0), l * std::sin(theta0), theta0),
            .v = Eigen::Vector3d::Zero()};
  }
  double horizon() const { return gaps.horizon(); }
  Facts facts() const { return gaps.facts(); }
};

const FloorCheck& floor_of(const CheckReport& r, const std::string& name) {
  for (const auto& c : r.floors) {
    if (c.constraint == name) return c;
  }
  FAIL("no floor of " << name);
  return r.floors.front();
}

// A model whose derivative by AD and whose fact are planted wrong, one at a time.
class Planted final : public testing::ModelView {
 public:
  enum class What { fact, gradient, metric };
  Planted(const Model& inner, What what) : ModelView(inner), what_(what) {}
  void evaluate(const State& x, Modes modes, Point& out) const override {
    inner_.evaluate(x, modes, out);
    if (what_ == What::gradient) out.J(0, 0) *= 1.0 + 1e-4;
  }
  Eigen::MatrixXd metric(const Eigen::VectorXd& q) const override {
    Eigen::MatrixXd A = inner_.metric(q);
    if (what_ == What::metric) A(0, 0) = -A(0, 0);
    return A;
  }
  Facts facts() const override {
    Facts f = inner_.facts();
    if (what_ == What::fact) f.lift_off.front().time += 1e-7;
    return f;
  }

 private:
  What what_;
};

}  // namespace

TEST_CASE("check: the falling ladder with gap coordinates has no round-off floor", "[check]") {
  const auto model = make_model("falling-ladder", {});
  const CheckReport r = check_model(*model, {});
  CHECK(r.passed());
  for (const auto& d : r.derivatives) {
    INFO(d.quantity);
    CHECK(d.error < 1e-10);
  }
  REQUIRE(r.facts.size() == 1);
  CHECK(r.facts.front().what == "lift-off of wall");
  CHECK(r.facts.front().difference < 1e-12);
  CHECK(r.metric.ok);
  CHECK(r.metric.states >= 501);
  for (const char* name : {"wall", "floor"}) {
    const FloorCheck& c = floor_of(r, name);
    INFO(name);
    CHECK(c.touching);
    CHECK(c.floor == 0.0);
    CHECK(c.largest_N == std::numeric_limits<double>::infinity());
    // The viscous medium at N = 1e6 under the rod's load at rest: λ·span/(βN).
    REQUIRE(c.terms.size() == 1);
    CHECK(std::string(c.terms.front().cause) == "load");
    CHECK(c.depth > 1e-7);
    CHECK(c.depth < 1e-4);
  }
}

TEST_CASE("check: the falling ladder in centre coordinates has a floor of order epsilon",
          "[check]") {
  const auto centre = testing::model_of<CentreLadder>();
  const CheckReport r = check_model(*centre, {});
  // The same physics: the classical release checked against event-driven as for the gap form.
  CHECK(r.passed());
  REQUIRE(r.facts.size() == 1);
  CHECK(r.facts.front().difference < 1e-9);
  // ε(|∂f/∂q|·|q|) at the initial state, by hand: the wall's J = (1, 0, l sin θ0) against
  // q = (l cos θ0, l sin θ0, θ0), the floor's J = (0, 1, −l cos θ0).
  const double eps = std::numeric_limits<double>::epsilon(), th = std::numbers::pi / 3.0;
  const FloorCheck& wall = floor_of(r, "wall");
  const FloorCheck& floor = floor_of(r, "floor");
  CHECK(wall.round_off == Approx(eps * (std::cos(th) + std::sin(th) * th)).epsilon(1e-12));
  CHECK(floor.round_off == Approx(eps * (std::sin(th) + std::cos(th) * th)).epsilon(1e-12));
  // The measured noise of the evaluation of l cos θ: of the order of its last bit, and no more
  // than the estimate.
  CHECK(wall.noise > 1e-18);
  CHECK(wall.noise <= wall.round_off);
  CHECK(wall.floor == wall.round_off);
  // The largest N: the load term's λ·span/(βN) falls to 100 floors there.
  for (const FloorCheck* c : {&wall, &floor}) {
    REQUIRE(c->terms.size() == 1);
    const double N = c->largest_N;
    CHECK(std::isfinite(N));
    CHECK(depth_at(c->terms, N) == Approx(kDepthResolution * c->floor).epsilon(1e-12));
    CHECK(N > 1e10);
    CHECK(N < 1e16);
  }
  // The gap form's loads are the same (the same reactions, the same medium).
  const CheckReport gaps = check_model(*make_model("falling-ladder", {}), {});
  CHECK(wall.depth == Approx(floor_of(gaps, "wall").depth).epsilon(1e-9));
  CHECK(floor.depth == Approx(floor_of(gaps, "floor").depth).epsilon(1e-9));
}

TEST_CASE("check: a realization past the largest N warns at its start", "[check]") {
  const auto centre = testing::model_of<CentreLadder>();
  const CheckReport r = check_model(*centre, {});
  const double N_max = floor_of(r, "wall").largest_N;
  const auto warned = [&](double N) {
    testing::SolveOptions o;
    o.solver = "realization";
    o.solver_params = {{"N", format_number(N)}};
    o.t_end = 0.01;
    const RunRecord rec = testing::solve(*centre, o);
    for (const auto& w : rec.warnings) {
      if (w.find("touches at the start") != std::string::npos) return true;
    }
    return false;
  };
  CHECK_FALSE(warned(1e6));
  // The horizon of 0.01 shortens the span of the load: the estimate falls by the same factor.
  CHECK(warned(N_max * 1.01 * 0.01 / centre->horizon()));
  CHECK_FALSE(warned(N_max * 0.99 * 0.01 / centre->horizon()));
  // The gap form never warns.
  testing::SolveOptions o;
  o.solver = "realization";
  o.solver_params = {{"N", "1e14"}};
  o.t_end = 0.01;
  CHECK(testing::solve(*make_model("falling-ladder", {}), o).warnings.empty());
}

TEST_CASE("check: a planted wrong fact, derivative or metric fails", "[check]") {
  const auto model = make_model("falling-ladder", {});
  {
    const CheckReport r = check_model(Planted(*model, Planted::What::fact), {});
    CHECK_FALSE(r.passed());
    CHECK_FALSE(r.facts.front().ok);
  }
  {
    const CheckReport r = check_model(Planted(*model, Planted::What::gradient), {});
    CHECK_FALSE(r.passed());
    bool failed = false;
    for (const auto& d : r.derivatives) failed |= d.quantity == "df/dq" && !d.ok;
    CHECK(failed);
  }
  {
    const CheckReport r = check_model(Planted(*model, Planted::What::metric), {});
    CHECK_FALSE(r.passed());
    CHECK_FALSE(r.metric.ok);
  }
}

TEST_CASE("check on the command line: exit 0 and every section, JSON, exit 2 on bad input",
          "[check][cli]") {
  const auto run = [](std::vector<const char*> args, std::string& out_text) {
    std::ostringstream out, err;
    args.insert(args.begin(), "crbench");
    const int code = run_cli(static_cast<int>(args.size()), args.data(), out, err);
    out_text = out.str() + err.str();
    return code;
  };
  std::string text;
  CHECK(run({"check", "--case", "falling-ladder"}, text) == 0);
  for (const char* part : {"Derivatives:", "lift-off of wall", "positive definite",
                           "wall: f = 0.00e+00, floor 0.00e+00", "PASSED"}) {
    CHECK_THAT(text, Catch::Contains(part));
  }
  CHECK(run({"check", "--case", "ball-chain", "--json", "--solver-set", "preset=penalty"}, text) ==
        0);
  const auto j = nlohmann::json::parse(text);
  CHECK(j["passed"] == true);
  CHECK(j["round_off_floors"]["medium"] == "alpha = 0, beta = 0, gamma = 1");
  CHECK(j["round_off_floors"]["constraints"][0]["depth_terms"][0]["cause"] == "approach");
  CHECK(run({"check", "--case", "falling-ladder", "--set", "theta0=2"}, text) == 2);
  CHECK_THAT(text, Catch::Contains("theta0"));
  CHECK(run({"check", "--case", "falling-ladder", "--solver-set", "N=-1"}, text) == 2);
  CHECK_THAT(text, Catch::Contains("N"));
}

TEST_CASE(
    "check: a classical model without a solution at the start (Painleve's paradox) is not a "
    "defect of the case, and the metric is checked along the realization's path",
    "[check][painleve]") {
  const auto model = make_model("painleve-rod", {{"mu", "2"}, {"theta0", "1.1071487177940904"}});
  const CheckReport r = check_model(*model, {});
  INFO(r.reference_status);
  CHECK(r.passed());
  CHECK(r.reference_ok);
  CHECK_THAT(r.reference_status, Catch::Contains("painleve_paradox"));
  CHECK_THAT(r.reference_status, Catch::Contains("not a defect of the case"));
  CHECK(r.metric.path == "realization");
  CHECK(r.metric.states > 0);
  CHECK(r.metric.ok);
}

TEST_CASE("check: every built-in case passes its self-test", "[check]") {
  for (const auto& entry : builtin_case_entries()) {
    INFO(entry.info.name);
    const auto model = make_model(entry.info.name, {});
    const CheckReport r = check_model(*model, {});
    CHECK(r.passed());
  }
}

}  // namespace check_tests
