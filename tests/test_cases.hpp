// Cases used only by the tests. They exercise what dk-plane does not: a configuration-dependent
// metric with cross terms, time-dependent constraints, several constraints, a smooth zero of λ,
// impacts on a sloped constraint under a non-identity metric.
#pragma once

#include <cmath>
#include <numbers>

#include "crbench/cases/case.hpp"

namespace crbench::test_cases {

// q = (r, θ); A(q) with a cross term, V depending on t, two time-dependent constraints.
struct CurvedTimeDependent {
  static constexpr int n = 2, m = 2, switches = 1;
  double g = 1.3;
  explicit CurvedTimeDependent(const ParamValues&) {}
  static CaseInfo info() {
    return {.name = "test-curved",
            .description = "test only",
            .dof = n,
            .constraints = m,
            .switches = switches,
            .switch_names = {"theta"}};
  }
  template <class S>
  Mat<S, n, n> metric(const Vec<S, n>& q) const {
    using std::sin;
    Mat<S, n, n> A;
    A << S(1.0) + 0.1 * sin(q(1)), 0.2 * q(0), 0.2 * q(0), q(0) * q(0) + 1.0;
    return A;
  }
  template <class S>
  S potential(const Vec<S, n>& q, const S& t) const {
    using std::cos;
    using std::sin;
    return g * q(0) * cos(q(1)) + 0.5 * q(0) * q(0) * sin(t);
  }
  template <class S>
  Vec<S, n> force(const Vec<S, n>& /*q*/, const Vec<S, n>& v, const S& t, Modes modes) const {
    using std::sin;
    return Vec<S, n>(-0.3 * v(0) + 0.1 * sin(t), S(modes[0] > 0 ? 0.2 : -0.2) - 0.1 * v(1));
  }
  template <class S>
  Vec<S, m> constraints(const Vec<S, n>& q, const S& t) const {
    using std::cos;
    using std::exp;
    using std::sin;
    return Vec<S, m>((q(0) - 0.5 - 0.1 * sin(2.0 * t)) * (1.0 + 0.2 * q(1) * q(1)),
                     2.0 - q(0) * cos(q(1)) + 0.05 * exp(0.3 * t) * q(1));
  }
  Vec<double, switches> switching(const Vec<double, n>& q, const Vec<double, n>&, double) const {
    return Vec<double, switches>(q(1));
  }
  State initial_state() const {
    return {.t = 0.0, .q = Eigen::Vector2d(1.0, 0.3), .v = Eigen::Vector2d(0.2, -0.4)};
  }
  double horizon() const { return 1.0; }
  Facts facts() const { return {}; }
};

// A point with mass matrix A = [[2, 0.3], [0.3, 1]] above the sloped line f = y − s·x ≥ 0,
// falling under gravity: impacts that are not along a coordinate and not in an identity metric.
struct SlopedImpact : NoForce<2> {
  static constexpr int n = 2, m = 1;
  double restitution_unused = 0.0;
  explicit SlopedImpact(const ParamValues&) {}
  static constexpr double slope = 0.5;
  static constexpr double gravity = 9.81;
  static CaseInfo info() {
    return {.name = "test-sloped", .description = "test only", .dof = n, .constraints = m};
  }
  template <class S>
  Mat<S, n, n> metric(const Vec<S, n>&) const {
    Mat<S, n, n> A;
    A << S(2.0), S(0.3), S(0.3), S(1.0);
    return A;
  }
  template <class S>
  S potential(const Vec<S, n>& q, const S&) const {
    // The mass of the vertical motion is A(1,1) = 1.
    return gravity * q(1);
  }
  template <class S>
  Vec<S, m> constraints(const Vec<S, n>& q, const S&) const {
    return Vec<S, m>(q(1) - slope * q(0));
  }
  State initial_state() const {
    return {.t = 0.0, .q = Eigen::Vector2d(0.0, 1.0), .v = Eigen::Vector2d(0.7, 0.0)};
  }
  double horizon() const { return 0.6; }
  Facts facts() const { return {}; }
};

// A unit point on the table f = y ≥ 0 pushed down by the force (0, t − 1): λ = 1 − t has a
// simple zero at t = 1 (a lift-off by λ crossing 0, not at a switch); then y = (t − 1)³/6.
struct RampForce {
  static constexpr int n = 2, m = 1, switches = 0;
  explicit RampForce(const ParamValues&) {}
  static CaseInfo info() {
    return {.name = "test-ramp", .description = "test only", .dof = n, .constraints = m};
  }
  template <class S>
  Mat<S, n, n> metric(const Vec<S, n>&) const {
    return Mat<S, n, n>::Identity();
  }
  template <class S>
  S potential(const Vec<S, n>&, const S&) const {
    return S(0.0);
  }
  template <class S>
  Vec<S, n> force(const Vec<S, n>&, const Vec<S, n>&, const S& t, Modes) const {
    return Vec<S, n>(S(0.0), t - 1.0);
  }
  template <class S>
  Vec<S, m> constraints(const Vec<S, n>& q, const S&) const {
    return Vec<S, m>(q(1));
  }
  Vec<double, switches> switching(const Vec<double, n>&, const Vec<double, n>&, double) const {
    return {};
  }
  State initial_state() const {
    return {.t = 0.0, .q = Eigen::Vector2d(0.0, 0.0), .v = Eigen::Vector2d(0.5, 0.0)};
  }
  double horizon() const { return 2.5; }
  Facts facts() const { return {}; }
};

// A unit mass on a spring, x'' = −x, with a wall at f = x + wall ≥ 0, released from x = 1:
// the first contact is at t = arccos(−wall); elastic bounces then alternate symmetrically.
struct SpringWall : NoForce<1> {
  static constexpr int n = 1, m = 1;
  static constexpr double wall = 0.5;
  explicit SpringWall(const ParamValues&) {}
  static CaseInfo info() {
    return {.name = "test-spring-wall", .description = "test only", .dof = n, .constraints = m};
  }
  template <class S>
  Mat<S, n, n> metric(const Vec<S, n>&) const {
    return Mat<S, n, n>::Identity();
  }
  template <class S>
  S potential(const Vec<S, n>& q, const S&) const {
    return 0.5 * q(0) * q(0);
  }
  template <class S>
  Vec<S, m> constraints(const Vec<S, n>& q, const S&) const {
    return Vec<S, m>(q(0) + wall);
  }
  State initial_state() const {
    return {.t = 0.0, .q = Vec<double, 1>(1.0), .v = Vec<double, 1>(0.0)};
  }
  double horizon() const { return 10.0; }
  Facts facts() const { return {}; }
};

// A unit point dropped from height h0 onto f = y ≥ 0 (a bouncing ball).
struct DroppedBall : NoForce<2> {
  static constexpr int n = 2, m = 1;
  static constexpr double h0 = 1.0;
  static constexpr double gravity = 9.81;
  explicit DroppedBall(const ParamValues&) {}
  static CaseInfo info() {
    return {.name = "test-dropped-ball", .description = "test only", .dof = n, .constraints = m};
  }
  template <class S>
  Mat<S, n, n> metric(const Vec<S, n>&) const {
    return Mat<S, n, n>::Identity();
  }
  template <class S>
  S potential(const Vec<S, n>& q, const S&) const {
    return gravity * q(1);
  }
  template <class S>
  Vec<S, m> constraints(const Vec<S, n>& q, const S&) const {
    return Vec<S, m>(q(1));
  }
  State initial_state() const {
    return {.t = 0.0, .q = Eigen::Vector2d(0.0, h0), .v = Eigen::Vector2d(0.3, 0.0)};
  }
  double horizon() const { return 3.0; }
  Facts facts() const { return {}; }
};

// A unit point moving straight down onto f = y ≥ 0 with speed 1 from height 0.1, no force: it
// enters at t = 0.1, and whatever leaves the constraint leaves with a constant velocity.
struct UniformApproach : NoForce<2> {
  static constexpr int n = 2, m = 1;
  explicit UniformApproach(const ParamValues&) {}
  static CaseInfo info() {
    return {
        .name = "test-uniform-approach", .description = "test only", .dof = n, .constraints = m};
  }
  template <class S>
  Mat<S, n, n> metric(const Vec<S, n>&) const {
    return Mat<S, n, n>::Identity();
  }
  template <class S>
  S potential(const Vec<S, n>&, const S&) const {
    return S(0.0);
  }
  template <class S>
  Vec<S, m> constraints(const Vec<S, n>& q, const S&) const {
    return Vec<S, m>(q(1));
  }
  State initial_state() const {
    return {.t = 0.0, .q = Eigen::Vector2d(0.0, 0.1), .v = Eigen::Vector2d(0.3, -1.0)};
  }
  double horizon() const { return 1.0; }
  Facts facts() const { return {}; }
};

// A unit point resting on f = y ≥ 0 under a constant pressing force (0, −1): λ = 1 forever. In
// the (1,0,1) model z = −(1 − cos t) touches 0 at t = 2π without crossing (a double zero).
struct PressedPoint : NoForce<2> {
  static constexpr int n = 2, m = 1;
  explicit PressedPoint(const ParamValues&) {}
  static CaseInfo info() {
    return {.name = "test-pressed-point", .description = "test only", .dof = n, .constraints = m};
  }
  template <class S>
  Mat<S, n, n> metric(const Vec<S, n>&) const {
    return Mat<S, n, n>::Identity();
  }
  template <class S>
  S potential(const Vec<S, n>& q, const S&) const {
    return q(1);
  }
  template <class S>
  Vec<S, m> constraints(const Vec<S, n>& q, const S&) const {
    return Vec<S, m>(q(1));
  }
  State initial_state() const {
    return {.t = 0.0, .q = Eigen::Vector2d(0.0, 0.0), .v = Eigen::Vector2d(1.0, 0.0)};
  }
  double horizon() const { return 8.0; }
  Facts facts() const { return {}; }
};

// A unit point in the corner x ≥ 0, y ≥ 0 (two constraints), no force, moving from (0.5, 0.5)
// with velocity (−1, −1): it reaches both walls at t = 0.5 at once.
struct Corner : NoForce<2> {
  static constexpr int n = 2, m = 2;
  explicit Corner(const ParamValues&) {}
  static CaseInfo info() {
    return {.name = "test-corner", .description = "test only", .dof = n, .constraints = m};
  }
  template <class S>
  Mat<S, n, n> metric(const Vec<S, n>&) const {
    return Mat<S, n, n>::Identity();
  }
  template <class S>
  S potential(const Vec<S, n>&, const S&) const {
    return S(0.0);
  }
  template <class S>
  Vec<S, m> constraints(const Vec<S, n>& q, const S&) const {
    return Vec<S, m>(q(0), q(1));
  }
  State initial_state() const {
    return {.t = 0.0, .q = Eigen::Vector2d(0.5, 0.5), .v = Eigen::Vector2d(-1.0, -1.0)};
  }
  double horizon() const { return 1.0; }
  Facts facts() const { return {}; }
};

// A row of K unit balls of diameter 1 on a line, gaps f_i = x_{i+1} − x_i − 1 ≥ 0: balls 1 … K−1
// rest in contact, ball 0 comes at them with speed 1 and touches at t = 0.5. At that step every
// gap is active at once (K − 1 LCP rows), the Newton's cradle of simultaneous impacts.
template <int K>
struct BallRow : NoForce<K>, UnitMetric<K> {
  static constexpr int n = K, m = K - 1;
  explicit BallRow(const ParamValues&) {}
  static CaseInfo info() {
    return {.name = "test-ball-row-" + std::to_string(K),
            .description = "test only",
            .dof = n,
            .constraints = m};
  }
  template <class S>
  S potential(const Vec<S, n>&, const S&) const {
    return S(0.0);
  }
  template <class S>
  Vec<S, m> constraints(const Vec<S, n>& q, const S&) const {
    Vec<S, m> gaps;
    for (int i = 0; i < m; ++i) gaps(i) = q(i + 1) - q(i) - S(1.0);
    return gaps;
  }
  State initial_state() const {
    // Filled in place: GCC 12 at -O1 takes the copies of {.q = q, .v = v} for reads of
    // uninitialized memory (-Wmaybe-uninitialized).
    State x;
    x.q.resize(n);
    x.v = Eigen::VectorXd::Zero(n);
    for (int i = 0; i < n; ++i) x.q(i) = i;
    x.q(0) = -0.5;
    x.v(0) = 1.0;
    return x;
  }
  double horizon() const { return 2.0; }
  Facts facts() const { return {}; }
};

}  // namespace crbench::test_cases
