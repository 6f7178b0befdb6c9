// One-sided kinematic constraints a(q,t)·q̇ + b(q,t) ≥ 0 (Berezinskaya, Sorokina & Kugushev 2003):
// the unilateral skate of §6 in every solver against its closed form, and the property of §8 (no
// velocity jumps with only one-sided kinematic constraints) over randomized systems, with a
// negative variant that the same detector must flag.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>
#include <random>

#include "crbench/cases/rough_disk.hpp"
#include "crbench/cases/skate_wall.hpp"
#include "crbench/cases/unilateral_skate.hpp"
#include "support.hpp"

namespace one_sided_kinematic_tests {

using namespace crbench;

namespace {

// Worst |q − closed form| on a grid over the horizon, the worst energy drift, and the record.
struct SkateRun {
  RunRecord record;
  double worst_q = 0.0;
  double worst_energy = 0.0;
  int samples = 0;
};

SkateRun run_skate(const Model& model, testing::SolveOptions o) {
  SkateRun out;
  const Facts facts = model.facts();
  const ClosedFormTrajectory* exact = facts.trajectory("classical");
  REQUIRE(exact != nullptr);
  const double energy0 = *facts.value("energy");
  o.output_times = testing::grid(0.0, model.horizon(), 251);
  o.on_sample = [&](const TrajectorySample& s) {
    out.worst_q =
        std::max(out.worst_q, (s.x.q - *exact->q(s.x.t, std::nan(""))).lpNorm<Eigen::Infinity>());
    out.worst_energy = std::max(out.worst_energy, std::abs(model.kinetic_energy(s.x) - energy0));
    if (s.label.empty()) ++out.samples;
  };
  out.record = testing::solve(model, o);
  REQUIRE(out.record.status == Status::ok);
  const Eigen::VectorXd end = *exact->q(out.record.final_state.t, std::nan(""));
  out.worst_q = std::max(out.worst_q, (out.record.final_state.q - end).lpNorm<Eigen::Infinity>());
  return out;
}

std::vector<const Event*> events_of(const RunRecord& r, const std::string& kind) {
  std::vector<const Event*> found;
  for (const auto& e : r.events) {
    if (to_string(e.kind) == kind) found.push_back(&e);
  }
  return found;
}

}  // namespace

TEST_CASE(
    "unilateral-skate: event-driven follows the line-then-circle motion (Berezinskaya, Sorokina & "
    "Kugushev 2003 section 6) to 1e-10 "
    "without an impact and keeps the energy to 1e-12",
    "[one-sided-kinematic][kinematic]") {
  // ω > 0 turns the blade forward into the velocity, ω < 0 backward (t* = (π − ψ)/|ω|).
  for (const auto& [psi, omega] :
       std::vector<std::pair<double, double>>{{1.0, 1.0}, {0.5, -2.0}, {2.5, 3.0}}) {
    const auto model =
        testing::model_of<cases::UnilateralSkate>({{"psi", psi}, {"omega", omega}, {"J", 0.7}});
    const SkateRun run = run_skate(*model, {});
    INFO("psi " << psi << ", omega " << omega << ": worst |q - closed form| " << run.worst_q
                << ", energy drift " << run.worst_energy);
    CHECK(run.samples == 251);
    CHECK(run.worst_q <= 1e-10);
    CHECK(run.worst_energy <= 1e-12);
    CHECK(events_of(run.record, "impact").empty());
    CHECK(events_of(run.record, "kinematic_release").empty());
    const auto contacts = events_of(run.record, "kinematic_contact");
    REQUIRE(contacts.size() == 1);
    CHECK(std::abs(contacts.front()->t - *model->facts().value("contact time")) <= 1e-12);
  }
}

TEST_CASE(
    "unilateral-skate: the limit solver gives the ideal motion, the one-sided friction "
    "converges to it at order 1 in N",
    "[one-sided-kinematic][kinematic][realization]") {
  const auto model = make_model("unilateral-skate", {});
  testing::SolveOptions limit;
  limit.solver = "limit";
  limit.solver_params = {{"preset", "viscous"}};
  CHECK(run_skate(*model, limit).worst_q <= 1e-10);

  std::vector<double> Ns, errors;
  for (const double N : {1e5, 1e6, 1e7, 1e8}) {
    testing::SolveOptions o;
    o.solver = "realization";
    o.solver_params = {{"preset", "viscous"}, {"N", format_number(N)}};
    const SkateRun run = run_skate(*model, o);
    Ns.push_back(N);
    errors.push_back(run.worst_q);
    // The friction dissipates: the energy lost is of order 1/N (4/N measured).
    CHECK(run.worst_energy <= 10.0 / N);
  }
  const double order = -testing::fitted_slope(Ns, errors);
  INFO("sup-norm errors " << errors[0] << " " << errors[1] << " " << errors[2] << " " << errors[3]
                          << ", fitted order " << order);
  CHECK(std::abs(order - 1.0) <= 0.05);
  CHECK(errors.back() <= 1e-7);
}

TEST_CASE("unilateral-skate: moreau-jean converges at order 1 in h",
          "[one-sided-kinematic][kinematic]") {
  const auto model = make_model("unilateral-skate", {});
  std::vector<double> hs, errors;
  for (const double h : {4e-3, 2e-3, 1e-3, 5e-4}) {
    testing::SolveOptions o;
    o.solver = "moreau-jean";
    o.solver_params = {{"h", format_number(h)}};
    const SkateRun run = run_skate(*model, o);
    hs.push_back(h);
    errors.push_back(run.worst_q);
    CHECK(events_of(run.record, "kinematic_contact").size() == 1);
  }
  const double order = testing::fitted_slope(hs, errors);
  INFO("sup-norm errors " << errors[0] << " " << errors[1] << " " << errors[2] << " " << errors[3]
                          << ", fitted order " << order);
  CHECK(std::abs(order - 1.0) <= 0.1);
}

TEST_CASE("moreau-jean computes two-sided kinematic rows at order 1 in h", "[kinematic]") {
  // Against event-driven's nonholonomic motion (itself checked against the closed form).
  for (const char* name : {"knife-edge-incline", "chaplygin-sled"}) {
    const auto model = make_model(name, {});
    const RunRecord ideal = testing::solve(*model);
    REQUIRE(ideal.status == Status::ok);
    std::vector<double> hs, errors;
    for (const double h : {4e-3, 2e-3, 1e-3}) {
      testing::SolveOptions o;
      o.solver = "moreau-jean";
      o.solver_params = {{"h", format_number(h)}};
      const RunRecord r = testing::solve(*model, o);
      REQUIRE(r.status == Status::ok);
      hs.push_back(h);
      errors.push_back((r.final_state.q - ideal.final_state.q).lpNorm<Eigen::Infinity>());
      CHECK(r.diagnostics["max_kinematic_drift"].get<double>() <= 5.0 * h);
    }
    const double order = testing::fitted_slope(hs, errors);
    INFO(name << ": errors " << errors[0] << " " << errors[1] << " " << errors[2] << ", order "
              << order);
    CHECK(std::abs(order - 1.0) <= 0.1);
  }
}

namespace {

// A skate started against its blade's one-sided constraint (g = −0.1 < 0).
struct SkateStartedViolating : cases::UnilateralSkate {
  using cases::UnilateralSkate::UnilateralSkate;
  static CaseInfo info() {
    CaseInfo i = cases::UnilateralSkate::info();
    i.name = "skate-started-violating";
    return i;
  }
  State initial_state() const {
    return {.t = 0.0, .q = Eigen::Vector3d::Zero(), .v = Eigen::Vector3d(1.0, -0.1, 1.0)};
  }
};

}  // namespace

TEST_CASE(
    "One-sided kinematic constraints: a violated start and a one-sided added mass are "
    "refused with the reason",
    "[one-sided-kinematic][kinematic]") {
  const auto model = testing::model_of<SkateStartedViolating>();
  for (const char* solver : {"event-driven", "limit"}) {
    testing::SolveOptions o;
    o.solver = solver;
    if (std::string(solver) == "limit") o.solver_params = {{"preset", "viscous"}};
    CHECK_THROWS_WITH(testing::solve(*model, o),
                      Catch::Contains("one-sided kinematic constraint 0 has g = a q' + b = -0.1"));
  }
  testing::check_refused({"run", "--case", "unilateral-skate", "--solver", "realization", "--alpha",
                          "1", "--beta", "1", "--gamma", "0"},
                         "one-sided friction -beta N min(g, 0) a^T only");
}

namespace {

// The systems of Berezinskaya, Sorokina & Kugushev 2003 §8: n = 3, T = q̇ᵀA q̇/2 with a constant
// A = I + L Lᵀ, V = k|q − c|²/2, and two one-sided kinematic rows whose components are
// non-negative functions of q, a_ri(q) = p_ri + s_ri (1 + sin(w_r·q)). Every number comes from
// the parameters, drawn at random by the test. With `wall`, a holonomic one-sided constraint
// f = q0 + 1/2 ≥ 0 is added: the negative variant, whose impacts do make velocity jumps.
template <bool wall>
struct RandomOneSided : NoForce<3> {
  static constexpr int n = 3;
  static constexpr int m = wall ? 1 : 0;
  static constexpr int kinematic = 2;
  static constexpr int unilateral_kinematic = 2;
  ParamValues p;
  explicit RandomOneSided(const ParamValues& values) : p(values) {}
  static CaseInfo info() {
    std::vector<ParamSpec> params;
    for (const char* name :
         {"L00", "L10", "L11", "L20", "L21", "L22", "k",   "c0",  "c1",  "c2",  "q0",  "q1",
          "q2",  "v0",  "v1",  "v2",  "p00", "p01", "p02", "p10", "p11", "p12", "s00", "s01",
          "s02", "s10", "s11", "s12", "w00", "w01", "w02", "w10", "w11", "w12"}) {
      params.push_back({.name = name, .default_value = 0.0, .min = -10.0, .max = 10.0});
    }
    return {.name = wall ? "random-one-sided-with-wall" : "random-one-sided",
            .description = "test case",
            .params = params,
            .dof = n,
            .constraints = m,
            .switches = switches};
  }
  double at(const std::string& name) const { return p.at(name); }
  template <class S>
  Mat<S, n, n> metric(const Vec<S, n>& /*q*/) const {
    Mat<double, n, n> L = Mat<double, n, n>::Zero();
    L << at("L00"), 0.0, 0.0, at("L10"), at("L11"), 0.0, at("L20"), at("L21"), at("L22");
    const Mat<double, n, n> A = Mat<double, n, n>::Identity() + L * L.transpose();
    return A.cast<S>();
  }
  template <class S>
  S potential(const Vec<S, n>& q, const S& /*t*/) const {
    const Vec<S, n> d = q - Vec<double, n>(at("c0"), at("c1"), at("c2")).cast<S>();
    return 0.5 * at("k") * d.squaredNorm();
  }
  template <class S>
  Vec<S, m> constraints(const Vec<S, n>& q, const S& /*t*/) const {
    Vec<S, m> f;
    if constexpr (wall) f(0) = q(0) + 0.5;
    return f;
  }
  template <class S>
  Mat<S, kinematic, n> kinematic_rows(const Vec<S, n>& q, const S& /*t*/) const {
    using std::sin;
    Mat<S, kinematic, n> a;
    for (int r = 0; r < kinematic; ++r) {
      const std::string row = std::to_string(r);
      S phase = S(0.0);
      for (int i = 0; i < n; ++i) phase += at("w" + row + std::to_string(i)) * q(i);
      for (int i = 0; i < n; ++i) {
        const std::string ri = row + std::to_string(i);
        a(r, i) = at("p" + ri) + at("s" + ri) * (1.0 + sin(phase));
      }
    }
    return a;
  }
  State initial_state() const {
    return {.t = 0.0,
            .q = Eigen::Vector3d(at("q0"), at("q1"), at("q2")),
            .v = Eigen::Vector3d(at("v0"), at("v1"), at("v2"))};
  }
  double horizon() const { return 3.0; }
  Facts facts() const { return {}; }
};

// One randomized system: a start with g > 0 on both rows (drawn again until it has), a spring
// centre that pulls against the rows, and, for the wall variant, a start at q0 ∈ (0, 1) with the
// centre beyond the wall.
template <bool wall>
std::unique_ptr<Model> random_system(std::mt19937& rng) {
  std::uniform_real_distribution<double> sym(-1.0, 1.0), unit(0.0, 1.0);
  ParamValues p;
  for (const char* name : {"L00", "L10", "L11", "L20", "L21", "L22"}) p[name] = 0.7 * sym(rng);
  p["k"] = 1.0 + 4.0 * unit(rng);
  for (int r = 0; r < 2; ++r) {
    for (int i = 0; i < 3; ++i) {
      const std::string ri = std::to_string(r) + std::to_string(i);
      p["p" + ri] = 0.2 * unit(rng) + (i == r ? 0.5 : 0.0);  // rows stay independent
      p["s" + ri] = unit(rng);
      p["w" + ri] = 2.0 * sym(rng);
    }
  }
  for (int i = 0; i < 3; ++i) {
    p["q" + std::to_string(i)] = wall && i == 0 ? unit(rng) : sym(rng);
    p["c" + std::to_string(i)] = wall && i == 0 ? -1.5 : 2.0 * sym(rng);
  }
  while (true) {
    for (int i = 0; i < 3; ++i) p["v" + std::to_string(i)] = 2.0 * sym(rng);
    auto model = testing::model_of<RandomOneSided<wall>>(p);
    Eigen::MatrixXd a;
    Eigen::VectorXd b;
    const State x = model->initial_state();
    model->kinematic_affine(x.t, x.q, a, b);
    if ((a * x.v + b).minCoeff() > 0.05) return model;
  }
}

// Velocity jumps seen by each solver:
// - event-driven: the largest |q̇⁺ − q̇⁻| between the rows just before and just after an event;
// - moreau-jean: the largest |q̇_{k+1} − q̇_k| of a step, at h and at h/10. A bounded
//   acceleration (no jump) makes it shrink tenfold; an impulse that does not vanish with h
//   (a jump) keeps it.
struct EventJumps {
  double largest = 0.0;
  long kinematic_contacts = 0;
  long impacts = 0;
};

EventJumps event_driven_jumps(const Model& model) {
  EventJumps out;
  testing::SolveOptions o;
  Eigen::VectorXd before;
  o.on_sample = [&](const TrajectorySample& s) {
    if (s.label.ends_with("-")) before = s.x.v;
    if (s.label.ends_with("+") && before.size() > 0) {
      out.largest = std::max(out.largest, (s.x.v - before).norm());
    }
  };
  const RunRecord r = testing::solve(model, o);
  REQUIRE(r.status == Status::ok);
  for (const auto& e : r.events) {
    out.kinematic_contacts += e.kind == EventKind::kinematic_contact;
    out.impacts += e.kind == EventKind::impact;
  }
  return out;
}

double largest_step_change(const Model& model, double h) {
  testing::SolveOptions o;
  o.solver = "moreau-jean";
  o.solver_params = {{"h", format_number(h)}};
  o.output_times = testing::grid(0.0, model.horizon(), static_cast<int>(model.horizon() / h) + 1);
  double largest = 0.0;
  Eigen::VectorXd previous;
  o.on_sample = [&](const TrajectorySample& s) {
    if (previous.size() > 0) largest = std::max(largest, (s.x.v - previous).norm());
    previous = s.x.v;
  };
  const RunRecord r = testing::solve(model, o);
  REQUIRE(r.status == Status::ok);
  return largest;
}

// max |Δq̇| of a step at h = 2e-3 over that at h = 2e-4: about 10 without jumps, about 1 with.
double moreau_jean_ratio(const Model& model) {
  return largest_step_change(model, 2e-3) / largest_step_change(model, 2e-4);
}

}  // namespace

TEST_CASE(
    "Berezinskaya, Sorokina & Kugushev 2003 section 8: with only one-sided kinematic constraints "
    "there are no velocity "
    "jumps (randomized), and the detector flags the jumps of a wall",
    "[one-sided-kinematic][kinematic][property]") {
  std::mt19937 rng(20031);
  // event-driven on 300 systems, moreau-jean (two step sizes, 16 500 steps) on the first 40.
  constexpr int systems = 300, stepped = 40;
  long contacts = 0, contact_systems = 0;
  double worst_event_jump = 0.0;
  double smallest_ratio = std::numeric_limits<double>::infinity(), largest_ratio = 0.0;
  for (int i = 0; i < systems; ++i) {
    const auto model = random_system<false>(rng);
    const EventJumps j = event_driven_jumps(*model);
    CHECK(j.impacts == 0);
    contacts += j.kinematic_contacts;
    contact_systems += j.kinematic_contacts > 0;
    worst_event_jump = std::max(worst_event_jump, j.largest);
    if (i < stepped) {
      const double ratio = moreau_jean_ratio(*model);
      smallest_ratio = std::min(smallest_ratio, ratio);
      largest_ratio = std::max(largest_ratio, ratio);
    }
  }
  INFO(systems << " systems, " << contact_systems << " with kinematic contacts (" << contacts
               << " in all); largest velocity change across an event " << worst_event_jump
               << "; moreau-jean largest step change at h = 2e-3 over that at 2e-4 in ["
               << smallest_ratio << ", " << largest_ratio << "]");
  CHECK(contact_systems >= systems / 2);  // the rows do act: the property is not vacuous
  CHECK(worst_event_jump <= 1e-12);
  CHECK(smallest_ratio >= 8.0);
  CHECK(largest_ratio <= 12.0);

  // Negative variant: the same detectors on systems that hit a wall (restitution 1).
  int hit = 0;
  double smallest_event_jump = std::numeric_limits<double>::infinity();
  double wall_ratio = 0.0;
  for (int i = 0; i < 20; ++i) {
    const auto model = random_system<true>(rng);
    const EventJumps j = event_driven_jumps(*model);
    if (j.impacts == 0) continue;
    ++hit;
    smallest_event_jump = std::min(smallest_event_jump, j.largest);
    wall_ratio = std::max(wall_ratio, moreau_jean_ratio(*model));
  }
  INFO("with a wall: " << hit << " of 20 systems hit it; smallest jump across an event "
                       << smallest_event_jump << ", largest moreau-jean ratio " << wall_ratio);
  CHECK(hit >= 10);
  CHECK(smallest_event_jump >= 1e-2);
  CHECK(wall_ratio <= 2.0);
}

namespace {

// The rows just before and just after the events of one kind (labels "<kind>-", "<kind>+"),
// in order.
struct EventRows {
  std::vector<State> before, after;
};

EventRows rows_at(const Model& model, testing::SolveOptions o, const std::string& label) {
  EventRows rows;
  o.on_sample = [&](const TrajectorySample& s) {
    if (s.label == label + "-") rows.before.push_back(s.x);
    if (s.label == label + "+") rows.after.push_back(s.x);
  };
  const RunRecord r = testing::solve(model, o);
  REQUIRE(r.status == Status::ok);
  return rows;
}

}  // namespace

TEST_CASE(
    "skate-wall: an impact reverses the centre's velocity and scales it by e (Berezinskaya, "
    "Sorokina & Kugushev 2003 "
    "section 7)",
    "[one-sided-kinematic][kinematic][impact]") {
  for (const double omega : {0.0, -0.5}) {
    const auto model = testing::model_of<cases::SkateWall>({{"omega", omega}});
    const Facts facts = model->facts();
    for (const double e : {1.0, 0.6}) {
      testing::SolveOptions o;
      o.solver_params = {{"restitution", format_number(e)}};
      const EventRows rows = rows_at(*model, o, "impact");
      INFO("omega " << omega << ", e " << e);
      REQUIRE(rows.before.size() == 1);
      REQUIRE(rows.after.size() == 1);
      const Eigen::Vector2d before = rows.before[0].v.head(2), after = rows.after[0].v.head(2);
      CHECK(std::abs(rows.before[0].t - *facts.value("impact time")) <= 1e-12);
      CHECK(std::abs(before(0) - *facts.value("x' before the impact")) <= 1e-12);
      CHECK(std::abs(before(1) - *facts.value("y' before the impact")) <= 1e-12);
      CHECK((after + e * before).lpNorm<Eigen::Infinity>() <= 1e-12);
      CHECK(rows.after[0].v(2) == rows.before[0].v(2));  // the spin does not take the impulse
    }
  }
  // moreau-jean: the same reversal, its time within a step.
  const auto model = make_model("skate-wall", {});
  testing::SolveOptions o;
  o.solver = "moreau-jean";
  const RunRecord r = testing::solve(*model, o);
  REQUIRE(r.status == Status::ok);
  const Eigen::Vector2d expected(-std::cos(cases::SkateWall::heading0),
                                 -std::sin(cases::SkateWall::heading0));
  CHECK((r.final_state.v.head(2) - expected).lpNorm<Eigen::Infinity>() <= 1e-12);
}

TEST_CASE(
    "rough-disk: one impact gives the closed-form (x', y', phi') for e_t = -1, 0, 1, the "
    "elastic rough ball keeps the energy and rebounds against its motion",
    "[one-sided-kinematic][kinematic][impact]") {
  for (const double slip_e : {-1.0, 0.0, 1.0}) {
    for (const double e : {1.0, 0.5}) {
      const auto model = testing::model_of<cases::RoughDisk>(
          {{"e_t", slip_e}, {"omega0", 3.0}, {"slope", 0.2}, {"vx0", 0.7}});
      const cases::RoughDisk exact(model->params());
      const cases::RoughDisk::Impact impact = exact.first_impact(e);
      for (const char* solver : {"event-driven", "moreau-jean"}) {
        testing::SolveOptions o;
        o.solver = solver;
        o.solver_params = {{"restitution", format_number(e)}};
        o.t_end = exact.first_impact_time() + 0.05;
        INFO(solver << ": e_t " << slip_e << ", e " << e);
        if (std::string(solver) == "event-driven") {
          const EventRows rows = rows_at(*model, o, "impact");
          REQUIRE(rows.after.size() == 1);
          CHECK((rows.before[0].v - impact.before).lpNorm<Eigen::Infinity>() <= 1e-12);
          CHECK((rows.after[0].v - impact.after).lpNorm<Eigen::Infinity>() <= 1e-12);
          if (slip_e == 1.0 && e == 1.0) {
            const State b{.t = 0.0, .q = rows.before[0].q, .v = rows.before[0].v};
            const State a{.t = 0.0, .q = rows.after[0].q, .v = rows.after[0].v};
            CHECK(std::abs(model->kinetic_energy(a) - model->kinetic_energy(b)) <= 1e-12);
          }
        } else {
          // First order: the step's slip law uses the slip at the step's start, and the impact
          // time is known to a step: ẋ and φ̇ after the impact (and 0.05 of flight along the
          // slope) within a few steps' worth.
          const RunRecord r = testing::solve(*model, o);
          REQUIRE(r.status == Status::ok);
          const double h = 1e-3, drift = 0.05 * std::sin(0.2);
          CHECK(std::abs(r.final_state.v(0) - (impact.after(0) + drift)) <= 10 * h);
          CHECK(std::abs(r.final_state.v(2) - impact.after(2)) <= 10 * h);
        }
      }
    }
  }
  // The superball: with enough backspin (r phi' > x'/2) the elastic rough ball comes back.
  const auto ball = testing::model_of<cases::RoughDisk>(
      {{"e_t", 1.0}, {"omega0", 3.0}, {"vx0", 1.0}, {"slope", 0.0}});
  const EventRows rows = rows_at(*ball, {}, "impact");
  REQUIRE(!rows.after.empty());
  CHECK(rows.before[0].v(0) > 0.0);
  CHECK(rows.after[0].v(0) < 0.0);
  CHECK(std::abs(rows.after[0].v(0) - (1.0 - 2.0 * 0.5 * 3.0) / 3.0) <= 1e-12);
}

TEST_CASE("rough-disk: once the bounces die out the disk rolls with x'' = (2/3) g sin(slope)",
          "[one-sided-kinematic][kinematic]") {
  const auto model =
      testing::model_of<cases::RoughDisk>({{"slope", 0.3}, {"omega0", 3.0}, {"e_t", 0.5}});
  const double expected = *model->facts().value("rolling acceleration");
  for (const char* solver : {"event-driven", "moreau-jean"}) {
    testing::SolveOptions o;
    o.solver = solver;
    o.solver_params = {{"restitution", "0.5"}};
    o.output_times = {5.0, 6.0};
    std::vector<State> late;
    o.on_sample = [&](const TrajectorySample& s) {
      if (s.label.empty() && s.x.t >= 5.0) late.push_back(s.x);
    };
    const RunRecord r = testing::solve(*model, o);
    REQUIRE(r.status == Status::ok);
    REQUIRE(late.size() == 2);
    const double acceleration = (late[1].v(0) - late[0].v(0)) / (late[1].t - late[0].t);
    INFO(solver << ": late acceleration " << acceleration << ", expected " << expected);
    // moreau-jean's θ-method is exact for this constant acceleration once rolling.
    CHECK(std::abs(acceleration - expected) <= 1e-10);
    CHECK(std::abs(late[1].v(0) + 0.5 * late[1].v(2)) <= 1e-7);  // rolling: u = 0
  }
}

TEST_CASE(
    "rough-disk realization: the Kozlov normal impact with slip friction beta_t N tends to "
    "e = exp(-pi k/omega) and e_t = 0",
    "[one-sided-kinematic][kinematic][realization]") {
  const auto model = testing::model_of<cases::RoughDisk>({{"omega0", 3.0}});
  const double kappa = 1.0, k = 0.1;
  const double expected = std::exp(-std::numbers::pi * k / std::sqrt(kappa - k * k));
  std::vector<double> Ns, normal_errors;
  for (const double N : {1e2, 1e3, 1e4, 1e5, 1e6}) {
    testing::SolveOptions o;
    o.solver = "realization";
    o.solver_params = {{"preset", "kozlov-impact"}, {"N", format_number(N)}};
    o.t_end = 2.0;
    State entry, exit;
    int entries = 0, exits = 0;
    o.on_sample = [&](const TrajectorySample& s) {
      if (s.label == "event-" && entries == 0) {
        entry = s.x;
        ++entries;
      } else if (s.label == "event+" && entries == 1 && exits == 0 && s.x.t > entry.t) {
        exit = s.x;
        ++exits;
      }
    };
    const RunRecord r = testing::solve(*model, o);
    REQUIRE(r.status == Status::ok);
    REQUIRE(exits == 1);
    const double e_eff = -exit.v(1) / entry.v(1);
    const double slip_before = entry.v(0) + 0.5 * entry.v(2);
    const double et_eff = -(exit.v(0) + 0.5 * exit.v(2)) / slip_before;
    INFO("N " << N << ": e " << e_eff << " (limit " << expected << "), e_t " << et_eff);
    CHECK(std::abs(et_eff) <= 1e-9);
    Ns.push_back(N);
    normal_errors.push_back(std::abs(e_eff - expected));
  }
  const double order = -testing::fitted_slope(Ns, normal_errors);
  INFO("|e_eff - e| " << normal_errors.front() << " ... " << normal_errors.back() << ", order "
                      << order);
  CHECK(normal_errors.back() <= 1e-2);
  CHECK(order >= 0.4);
}

}  // namespace one_sided_kinematic_tests
