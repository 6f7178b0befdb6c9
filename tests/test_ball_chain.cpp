// ball-chain (Newton's cradle, cases/ball_chain.hpp) through every solver that takes it: the
// conservation laws, the binary-impact outcome with gaps, the simultaneous Newton law's outcome
// with touching balls, the penalty realization's own outcome (independent of N), and the sparse
// Moreau–Jean step against the dense one.
#include <catch2/catch.hpp>
#include <cmath>
#include <optional>
#include <string>

#include "crbench/cases/ball_chain.hpp"
#include "crbench/cases/sparse_terms.hpp"
#include "crbench/solvers/chain_model.hpp"
#include "crbench/solvers/realization_dynamics.hpp"
#include "support.hpp"

namespace ball_chain_tests {

using namespace crbench;

namespace {

std::unique_ptr<Model> chain(int n, double gap) {
  return make_model("ball-chain", {{"n", std::to_string(n)}, {"gap", format_number(gap)}});
}

using testing::final_velocity;

double energy(const Eigen::VectorXd& v) { return 0.5 * v.squaredNorm(); }

// The same model without its sparse form: Moreau–Jean takes the dense step.
using DenseView = testing::ModelView;

}  // namespace

TEST_CASE("ball-chain keeps momentum and, with e = 1, energy in every solver", "[ball-chain]") {
  for (const double gap : {0.0, 0.01}) {
    for (const int n : {3, 5}) {
      const auto model = chain(n, gap);
      const double momentum = *model->facts().value("momentum");
      const double kinetic = *model->facts().value("energy (e = 1)");
      for (const std::string solver : {"event-driven", "moreau-jean"}) {
        const Eigen::VectorXd v = final_velocity(*model, solver);
        INFO(solver << " n = " << n << " gap = " << gap << ": v = " << v.transpose());
        CHECK(std::abs(v.sum() - momentum) <= 1e-12);
        CHECK(std::abs(energy(v) - kinetic) <= 1e-12);
      }
      // The penalty realization: each contact a one-sided spring γN f²/2 (energy kept by the
      // exact motion; DOP853 at rtol 1e-12 keeps it to 1e-10).
      const Eigen::VectorXd v =
          final_velocity(*model, "realization", {{"preset", "penalty"}, {"N", "1e6"}});
      INFO("realization n = " << n << " gap = " << gap << ": v = " << v.transpose());
      CHECK(std::abs(v.sum() - momentum) <= 1e-12);
      CHECK(std::abs(energy(v) - kinetic) <= 1e-10);
    }
  }
}

TEST_CASE(
    "ball-chain with gaps: binary elastic impacts pass the striker's velocity to the last "
    "ball",
    "[ball-chain]") {
  for (const int n : {3, 5}) {
    const auto model = chain(n, 0.01);
    const double v0 = *model->facts().value("last ball's velocity (e = 1)");
    Eigen::VectorXd expected = Eigen::VectorXd::Zero(n);
    expected(n - 1) = v0;
    CHECK(testing::close(final_velocity(*model, "event-driven"), expected, 1e-12));
    CHECK(testing::close(final_velocity(*model, "moreau-jean"), expected, 1e-12));
    CHECK(
        testing::close(final_velocity(*model, "realization", {{"preset", "penalty"}, {"N", "1e6"}}),
                       expected, 1e-10));
  }
}

TEST_CASE("ball-chain touching: the simultaneous Newton law gives v0 (2/n - 1, 2/n, ..., 2/n)",
          "[ball-chain]") {
  // The LCP of event-driven's impact and of Moreau–Jean's step at e = 1: every contact pushes,
  // the first separates at the striker's speed and the others stay closed,
  // f0' = 1, fk' = 0 (k >= 1); with the momentum 1 that is v_0 = 2/n - 1, v_k = 2/n: not the
  // cradle's (0, ..., 0, 1), though momentum and energy are kept.
  for (const int n : {3, 5}) {
    const auto model = chain(n, 0.0);
    Eigen::VectorXd expected = Eigen::VectorXd::Constant(n, 2.0 / n);
    expected(0) = 2.0 / n - 1.0;
    CHECK(testing::close(final_velocity(*model, "event-driven"), expected, 1e-12));
    CHECK(testing::close(final_velocity(*model, "moreau-jean"), expected, 1e-12));
  }
}

TEST_CASE("ball-chain touching: the penalty realization's outcome does not depend on N",
          "[ball-chain]") {
  // With equal linear springs and zero gaps the only time scale is 1/sqrt(gamma N): rescaling
  // time leaves the outcome unchanged, so it is the N -> infinity limit itself, and it is neither
  // the cradle's nor the simultaneous Newton law's (n = 3: v = (-0.1303, 0.1502, 0.9800)).
  for (const int n : {3, 5}) {
    const auto model = chain(n, 0.0);
    const Eigen::VectorXd coarse =
        final_velocity(*model, "realization", {{"preset", "penalty"}, {"N", "1e4"}});
    const Eigen::VectorXd fine =
        final_velocity(*model, "realization", {{"preset", "penalty"}, {"N", "1e6"}});
    INFO("n = " << n << ": " << coarse.transpose() << " / " << fine.transpose());
    CHECK(testing::close(coarse, fine, 1e-8));
    if (n == 3) {
      CHECK(std::abs(fine(0) - (-0.1302617)) <= 1e-6);
      CHECK(std::abs(fine(2) - 0.9800321) <= 1e-6);
    }
  }
}

TEST_CASE("ball-chain: the sparse Moreau-Jean step is the dense one", "[ball-chain]") {
  for (const double gap : {0.0, 0.01}) {
    const auto model = chain(5, gap);
    SparseTerms terms;
    REQUIRE(model->sparse_terms(model->initial_state(), terms));
    const DenseView dense(*model);
    testing::SolveOptions o;
    o.solver = "moreau-jean";
    const RunRecord s = testing::solve(*model, o);
    const RunRecord d = testing::solve(dense, o);
    REQUIRE(s.status == Status::ok);
    REQUIRE(d.status == Status::ok);
    CHECK(s.diagnostics.value("sparse_step", false));
    CHECK_FALSE(d.diagnostics.contains("sparse_step"));
    INFO("gap " << gap << ": q difference " << (s.final_state.q - d.final_state.q).transpose()
                << ", v difference " << (s.final_state.v - d.final_state.v).transpose());
    CHECK(testing::close(s.final_state.q, d.final_state.q, 1e-14));
    CHECK(testing::close(s.final_state.v, d.final_state.v, 1e-14));
    CHECK(s.events.size() == d.events.size());
  }
}

TEST_CASE("ball-chain: Lemke agrees with the enumeration on up to 12 simultaneous contacts",
          "[ball-chain]") {
  for (const int n : {3, 5, 9, 13}) {
    const auto model = chain(n, 0.0);
    const Eigen::VectorXd lemke = final_velocity(*model, "moreau-jean", {{"lcp", "lemke"}});
    const Eigen::VectorXd exact = final_velocity(*model, "moreau-jean", {{"lcp", "enumeration"}});
    INFO("n = " << n);
    CHECK(testing::close(lemke, exact, 1e-12));
  }
}

TEST_CASE(
    "ball-chain: the sparse Moreau-Jean step's banded LCP agrees with Lemke on touching chains",
    "[ball-chain]") {
  // Every contact of a touching chain is active: the step's LCP has all n − 1 rows, and its
  // Delassus matrix is tridiagonal. auto takes the banded method; Lemke's on the dense matrix is
  // the reference.
  for (const int n : {13, 40, 101}) {
    const auto model = chain(n, 0.0);
    testing::SolveOptions o;
    o.solver = "moreau-jean";
    o.t_end = 0.05;
    o.solver_params = {{"h", "1e-3"}, {"restitution", "1"}};
    const RunRecord banded = testing::solve(*model, o);
    o.solver_params.push_back({"lcp", "lemke"});
    const RunRecord lemke = testing::solve(*model, o);
    INFO("n = " << n);
    REQUIRE(banded.status == Status::ok);
    REQUIRE(lemke.status == Status::ok);
    CHECK(banded.diagnostics.at("sparse_step") == true);
    CHECK(banded.diagnostics.at("banded_lcp_solves").get<long>() >= 1);
    CHECK_FALSE(lemke.diagnostics.contains("banded_lcp_solves"));
    CHECK(testing::close(banded.final_state.v, lemke.final_state.v, 1e-12));
    CHECK(testing::close(banded.final_state.q, lemke.final_state.q, 1e-12));
    // Momentum is kept exactly by either.
    CHECK(std::abs(banded.final_state.v.sum() - 1.0) <= 1e-12);
  }
}

TEST_CASE("ball-chain: a thousand balls by the sparse Moreau-Jean step", "[ball-chain]") {
  // 0.01 apart, to t = 2: the impulse has crossed 200 gaps, one binary impact at a time.
  const auto model = chain(1000, 0.01);
  testing::SolveOptions o;
  o.solver = "moreau-jean";
  o.t_end = 2.0;
  const RunRecord r = testing::solve(*model, o);
  REQUIRE(r.status == Status::ok);
  CHECK(std::abs(r.final_state.v.sum() - 1.0) <= 1e-12);
  CHECK(std::abs(energy(r.final_state.v) - 0.5) <= 1e-12);
  // Exactly one ball moves, about 200 down the chain.
  int moving = 0;
  for (Eigen::Index i = 0; i < r.final_state.v.size(); ++i) moving += r.final_state.v(i) > 0.5;
  CHECK(moving == 1);
  CHECK(r.final_state.v.head(150).cwiseAbs().maxCoeff() <= 1e-12);
}

TEST_CASE("ball-chain: the AD Jacobian of the chain model against finite differences",
          "[ball-chain]") {
  const auto model = chain(4, 0.0);
  State x = model->initial_state();
  x.q(1) -= 1e-3;  // every contact compressed a little
  x.q(2) -= 2e-3;
  x.v << 0.3, -0.2, 0.1, 0.5;
  const std::vector<int> modes;
  const std::vector<char> all(3, 1);
  testing::check_realization_jacobian(
      *model, x, modes, all, all,
      Medium{.mass = 0.0, .damping = 3.0, .stiffness = 50.0, .obstacle = false});
}

namespace {

// ball-chain with a curved contact, f = g + 0.3 g² (g = q_{k+1} − q_k − d): its Hessian is not 0,
// so the Jacobians' curvature terms are exercised.
struct CurvedChain : cases::BallChain {
  using BallChain::BallChain;
  template <class S>
  S contact(const S& left, const S& right) const {
    const S g = right - left - diameter;
    return g + 0.3 * g * g;
  }
};

ParamValues chain_params(int n, double gap) {
  ParamValues p;
  for (const ParamSpec& spec : cases::BallChain::info().params) p[spec.name] = spec.default_value;
  p["n"] = n;
  p["gap"] = gap;
  return p;
}

}  // namespace

TEST_CASE("ball-chain: the sparse realization Jacobian equals the AD one", "[ball-chain]") {
  // Compressed contacts, all pushing, in a medium with damping and stiffness; the AD Jacobian
  // (dual numbers through the dense Point) is checked against finite differences elsewhere.
  const Medium medium{.mass = 0.0, .damping = 3.0, .stiffness = 50.0, .obstacle = false};
  const ChainModel<CurvedChain> curved(chain_params(5, 0.0));
  const auto straight = chain(5, 0.0);
  const std::vector<const Model*> models{&curved, straight.get()};
  for (const Model* model : models) {
    State x = model->initial_state();
    x.q(1) -= 1e-3;
    x.q(2) -= 2.5e-3;
    x.q(3) -= 3e-3;
    x.q(4) -= 5e-3;
    x.v << 0.3, -0.2, 0.1, 0.5, -0.4;
    const std::vector<int> modes;
    std::vector<char> pushing(4, 1);
    pushing[2] = 0;  // one contact released: it adds nothing
    RealizationJacobianWork work;
    Eigen::MatrixXd ad, sparse;
    Eigen::VectorXd ad_dfdt, sparse_dfdt;
    const VelocityChart identity = VelocityChart::identity(5);
    realization_jacobian(*model, identity, x.t, identity.point(*model, x), modes, pushing, pushing,
                         medium, work, ad, ad_dfdt);
    SparseTerms terms;
    REQUIRE(model->sparse_terms(x, terms));
    REQUIRE(model->sparse_hessians(x, terms));
    sparse_realization_jacobian(terms, x.v, pushing, medium, sparse, sparse_dfdt);
    INFO(model->info().name << (model == &curved ? " (curved contact)" : "") << "\nAD\n"
                            << ad << "\nsparse\n"
                            << sparse);
    CHECK((sparse - ad).cwiseAbs().maxCoeff() <= 1e-13 * ad.cwiseAbs().maxCoeff());
    CHECK(sparse_dfdt.cwiseAbs().maxCoeff() == 0.0);
    CHECK(ad_dfdt.cwiseAbs().maxCoeff() == 0.0);
  }
  testing::check_realization_jacobian(
      curved,
      [&] {
        State x = curved.initial_state();
        x.q(1) -= 1e-3;
        x.q(3) -= 3e-3;
        x.v << 0.3, -0.2, 0.1, 0.5, -0.4;
        return x;
      }(),
      {}, std::vector<char>(4, 1), std::vector<char>(4, 1), medium);
}

TEST_CASE("ball-chain: the realization's sparse right-hand side gives the dense one's bits",
          "[ball-chain]") {
  // DenseView hides the sparse form: the same runs through the dense Point and its LU.
  for (const char* preset : {"penalty", "viscous"}) {
    for (const double gap : {0.0, 0.05}) {
      const auto model = chain(6, gap);
      const DenseView dense(*model);
      testing::SolveOptions o;
      o.solver = "realization";
      o.solver_params = {{"preset", preset}, {"N", "1e4"}};
      const RunRecord s = testing::solve(*model, o);
      const RunRecord d = testing::solve(dense, o);
      INFO(preset << ", gap " << gap);
      REQUIRE(s.status == Status::ok);
      REQUIRE(d.status == Status::ok);
      CHECK(s.diagnostics.at("sparse_right_hand_side") == true);
      CHECK(s.diagnostics.at("sparse_jacobian") == true);
      CHECK_FALSE(d.diagnostics.contains("sparse_right_hand_side"));
      CHECK(s.final_state.q == d.final_state.q);
      CHECK(s.final_state.v == d.final_state.v);
      CHECK(s.steps == d.steps);
      CHECK(s.rhs_evaluations == d.rhs_evaluations);
      CHECK(s.events.size() == d.events.size());
    }
  }
}

TEST_CASE("ball-chain: the penalty chain's outcome does not depend on N", "[ball-chain]") {
  // Linear contacts and no force: the motion at N is the motion at N = 1 with time scaled by
  // sqrt(N) (bench/chain_outcome.hpp), so the final velocities agree across N and the lift-off
  // time times sqrt(N) is constant. Neither ideal law is that outcome.
  for (const int n : {3, 10}) {
    const auto model = chain(n, 0.0);
    std::optional<Eigen::VectorXd> first;
    std::optional<double> first_scaled;
    for (const double N : {1e2, 1e4, 1e6}) {
      testing::SolveOptions o;
      o.solver = "realization";
      o.solver_params = {{"preset", "penalty"}, {"N", format_number(N)}};
      const RunRecord r = testing::solve(*model, o);
      INFO("n = " << n << ", N = " << N << ": " << r.status << " " << r.reason);
      REQUIRE(r.status == Status::ok);
      REQUIRE(r.lift_off_time);
      const double scaled = *r.lift_off_time * std::sqrt(N);
      if (!first) {
        first = r.final_state.v;
        first_scaled = scaled;
        continue;
      }
      CHECK((r.final_state.v - *first).lpNorm<Eigen::Infinity>() <= 1e-10);
      CHECK(std::abs(scaled - *first_scaled) <= 1e-9 * *first_scaled);
    }
    // Momentum and energy kept; the velocities do not decrease along the chain (final).
    CHECK(std::abs(first->sum() - 1.0) <= 1e-12);
    CHECK(std::abs(0.5 * first->squaredNorm() - 0.5) <= 1e-9);
    for (int i = 0; i + 1 < n; ++i) CHECK((*first)(i) <= (*first)(i + 1));
    // Newton's simultaneous law (event-driven, e = 1) and the sequential cradle are both far.
    testing::SolveOptions o;
    o.solver = "event-driven";
    o.solver_params = {{"restitution", "1"}};
    const RunRecord simultaneous = testing::solve(*model, o);
    REQUIRE(simultaneous.status == Status::ok);
    CHECK((*first - simultaneous.final_state.v).lpNorm<Eigen::Infinity>() >= 0.1);
    Eigen::VectorXd sequential = Eigen::VectorXd::Zero(n);
    sequential(n - 1) = 1.0;
    CHECK((*first - sequential).lpNorm<Eigen::Infinity>() >= 0.01);
  }
}

TEST_CASE("ball-chain: a stiff realization of 20 and 100 balls by the sparse Jacobian",
          "[ball-chain]") {
  // The AD Jacobian's dual numbers hold n <= 16 (Dual); the chain's sparse Jacobian has no bound.
  // The viscous medium makes every impact plastic: the touching chain ends moving as one, at 1/n
  // of the striker's velocity, with its momentum kept.
  for (const int n : {20, 100}) {
    const auto model = chain(n, 0.0);
    testing::SolveOptions o;
    o.solver = "realization";
    o.solver_params = {{"preset", "viscous"}, {"N", "1e4"}};
    const RunRecord r = testing::solve(*model, o);
    INFO("n = " << n << ": " << r.status << " " << r.reason);
    REQUIRE(r.status == Status::ok);
    CHECK(r.diagnostics.at("jacobian_evaluations").get<double>() > 0.0);
    CHECK(std::abs(r.final_state.v.sum() - 1.0) <= 1e-12);
    CHECK((r.final_state.v.array() - 1.0 / n).abs().maxCoeff() <= 1e-9);
  }
}

TEST_CASE(
    "ball-chain: Moreau-Jean's record is bounded (events_kept) and its lift-off is computed from "
    "every step",
    "[ball-chain]") {
  // Five hundred touching balls: 54 476 contact events in 1000 steps, 20 000 kept. The JSON
  // record stays below 10 MB (5.5 MB; all of them would take about 15 MB).
  const testing::CliResult big =
      testing::cli({"run", "--case", "ball-chain", "--set", "n=500", "--set", "gap=0", "--solver",
                    "moreau-jean", "--t-end", "1", "--json", "--omit-wall-time"});
  REQUIRE(big.status == 0);
  CHECK(big.out.size() <= 10u * 1024u * 1024u);
  const auto record = nlohmann::json::parse(big.out);
  CHECK(record["events"].size() == 20000);
  CHECK(record["diagnostics"]["events_not_kept"].get<double>() > 0.0);
  REQUIRE(record.contains("warnings"));
  // A chain whose episodes end: the lift-off from the kept prefix of the events and from every
  // step must agree with the run that keeps them all.
  const auto model = chain(12, 0.0);
  testing::SolveOptions o;
  o.solver = "moreau-jean";
  o.t_end = 3.0;
  o.solver_params = {{"restitution", "0.5"}, {"events_kept", "1e7"}};
  const RunRecord all = testing::solve(*model, o);
  REQUIRE(all.status == Status::ok);
  REQUIRE(all.events.size() > 20);
  REQUIRE(all.lift_off_time);
  o.solver_params = {{"restitution", "0.5"}, {"events_kept", "10"}};
  const RunRecord few = testing::solve(*model, o);
  REQUIRE(few.status == Status::ok);
  CHECK(few.events.size() == 10);
  CHECK(few.diagnostics.at("events_not_kept").get<double>() ==
        static_cast<double>(all.events.size() - 10));
  REQUIRE(few.lift_off_time);
  CHECK(*few.lift_off_time == *all.lift_off_time);
  CHECK(few.warnings.size() == 1);
}

TEST_CASE(
    "ball-chain: the penalty chain of 100 balls at N = 1e6 ends ok, with the outcome at N = 1e4, "
    "in steps that grow like sqrt(N)",
    "[ball-chain]") {
  // An undamped spring's normal velocity stays of order 1: with the viscous medium's velocity
  // tolerance atol/sqrt(N) the balls ahead of the compression wave held every step to the
  // round-off of the spring force, and N = 1e6 ran out of its 1e7 steps
  // (solvers/realization.cpp).
  const auto model = chain(100, 0.0);
  std::vector<RunRecord> runs;
  for (const double N : {1e4, 1e6}) {
    testing::SolveOptions o;
    o.solver = "realization";
    o.solver_params = {{"preset", "penalty"}, {"N", format_number(N)}};
    runs.push_back(testing::solve(*model, o));
    const RunRecord& r = runs.back();
    INFO("N = " << N << ": " << r.status << " " << r.reason << ", " << r.steps << " steps");
    REQUIRE(r.status == Status::ok);
    CHECK(r.tolerances.at("atol_positions") == Approx(1e-14 / N));
    CHECK(r.tolerances.at("atol_velocities_in_medium") == 1e-14);
  }
  CHECK((runs[1].final_state.v - runs[0].final_state.v).lpNorm<Eigen::Infinity>() <= 1e-8);
  // About sqrt(1e6 / 1e4) = 10 times the steps (17 measured), not 100.
  CHECK(runs[1].steps <= 30 * runs[0].steps);
}

namespace {

// Newton's cradle of three touching unit balls (v0 = 1) under the springs r^-k (-f_k)^eta at
// N = 1, integrated apart from the suite (testing::penalty_contacts_by_odeint).
Eigen::Vector3d cradle_by_odeint(double r, double eta) {
  Eigen::MatrixXd G(2, 3);
  G << -1.0, 1.0, 0.0, 0.0, -1.0, 1.0;
  return testing::penalty_contacts_by_odeint(
      G, Eigen::Vector2d(-1.0, -1.0), Eigen::Vector2d(1.0, 1.0 / r), eta,
      Eigen::Vector3d(0.0, 1.0, 2.0), Eigen::Vector3d(1.0, 0.0, 0.0));
}

}  // namespace

TEST_CASE("ball-chain touching: the outcome under stiffness ratios and Hertz's law is N's limit",
          "[ball-chain]") {
  // Touching balls, no forces: time and length scaled by N^(-1/(eta + 1)) carry one N into
  // another, so each outcome is the N -> infinity limit; it depends on r = k_01/k_12 and eta.
  // r -> 0: the stiff pair (1, 2) takes the blow as one body of mass 2, v -> (-1/3, 2/3, 2/3);
  // r -> infinity: two binary impacts in sequence, v -> (0, 0, 1).
  for (const double eta : {1.0, 1.5}) {
    for (const double r : {0.01, 0.1, 1.0, 10.0, 100.0}) {
      const auto model = make_model(
          "ball-chain",
          {{"n", "3"}, {"stiffness_ratio", format_number(r)}, {"exponent", format_number(eta)}});
      const Eigen::Vector3d reference = cradle_by_odeint(r, eta);
      const std::vector<Eigen::VectorXd> outcomes = testing::penalty_outcomes(*model);
      INFO("eta = " << eta << ", r = " << r << ": odeint " << reference.transpose()
                    << "\nN = 1e4, 1e6, 1e8: " << outcomes[0].transpose() << " / "
                    << outcomes[1].transpose() << " / " << outcomes[2].transpose());
      for (const Eigen::VectorXd& v : outcomes) {
        CHECK((v - reference).cwiseAbs().maxCoeff() <= 2e-9);
        CHECK(std::abs(v.sum() - 1.0) <= 1e-12);
        CHECK(std::abs(energy(v) - 0.5) <= 1e-9);
      }
      CHECK((outcomes[0] - outcomes[2]).cwiseAbs().maxCoeff() <= 1e-9);
    }
  }
}

TEST_CASE("ball-chain: the sparse realization Jacobian of scaled and Hertz springs is the AD one",
          "[ball-chain]") {
  Medium medium{.mass = 0.0, .damping = 3.0, .stiffness = 50.0, .obstacle = false};
  medium.laws = {{.scale = 1.0, .exponent = 1.5},
                 {.scale = 0.1, .exponent = 1.0},
                 {.scale = 10.0, .exponent = 1.5},
                 {.scale = 2.0, .exponent = 1.5}};
  const auto model = chain(5, 0.0);
  // Depths of order 0.1: the finite differences' error grows as |f|^(eta - 3) near f = 0.
  State x = model->initial_state();
  x.q(1) -= 0.1;
  x.q(2) -= 0.25;
  x.q(3) -= 0.3;
  x.q(4) -= 0.5;
  x.v << 0.3, -0.2, 0.1, 0.5, -0.4;
  const std::vector<char> pushing(4, 1);
  RealizationJacobianWork work;
  Eigen::MatrixXd ad, sparse;
  Eigen::VectorXd ad_dfdt, sparse_dfdt;
  const VelocityChart identity = VelocityChart::identity(5);
  realization_jacobian(*model, identity, x.t, identity.point(*model, x), {}, pushing, pushing,
                       medium, work, ad, ad_dfdt);
  SparseTerms terms;
  REQUIRE(model->sparse_terms(x, terms));
  REQUIRE(model->sparse_hessians(x, terms));
  sparse_realization_jacobian(terms, x.v, pushing, medium, sparse, sparse_dfdt);
  INFO("AD\n" << ad << "\nsparse\n" << sparse);
  CHECK((sparse - ad).cwiseAbs().maxCoeff() <= 1e-13 * ad.cwiseAbs().maxCoeff());
  testing::check_realization_jacobian(*model, x, {}, pushing, pushing, medium);
}

}  // namespace ball_chain_tests
