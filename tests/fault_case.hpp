// fault-injection: a test-only case (registered by the tests that use it, never by crbench) whose
// functions fail on purpose part-way through a run, to check that every solver ends such a run
// with a status and a reason in its record instead of an exception or a crash.
//
// Without a fault it is the motion of dk-plane (Deryabin & Kozlov 1995, section 6) with g = 1: a
// unit point, f1 = y >= 0, force (0, -+1) switching at x = 0, lift-off at t = 1, plus a second row
// f2 = 1 that never acts. It is written out here rather than derived from cases::DkPlane, so that
// an edit of that case recompiles no test (and cannot change what these tests inject into).
// With `fault` = k the run meets, at t = t_fault (x = t_fault - 1 before lift-off):
//   1 nan-force         the force is NaN;
//   2 inf-constraint    the constraint value f1 is +inf;
//   3 singular-metric   the kinetic metric is diag(1, 0) (nothing can factor it);
//   4 unsolvable-lcp    f2 = t_fault - t, a row no force can act on (∂f2/∂q = 0) reaching 0 with
//                       rate -1: no impulse P >= 0 gives f2' >= 0, the impact LCP has no solution;
//   5 exception         the force throws (a bug in a case's code): not a solver status but a
//                       fault of crbench's input code, which a study records as internal_error.
#pragma once

#include <cmath>
#include <limits>
#include <stdexcept>

#include "crbench/cases/case.hpp"

namespace crbench::test_cases {

struct FaultInjection {
  static constexpr int n = 2;
  static constexpr int m = 2;
  static constexpr int switches = 1;

  int fault;
  double t_fault;

  explicit FaultInjection(const ParamValues& p)
      : fault(static_cast<int>(p.at("fault"))), t_fault(p.at("t_fault")) {}

  static CaseInfo info() {
    return {
        .name = "fault-injection",
        .description =
            "Test only: dk-plane with an injected fault at t_fault (1 NaN force, 2 "
            "infinite constraint value, 3 singular metric, 4 an impact LCP without "
            "solution).",
        .params = {{.name = "fault",
                    .default_value = 0.0,
                    .min = 0.0,
                    .max = 5.0,
                    .description = "0 none, 1 nan-force, 2 inf-constraint, 3 singular-metric, 4 "
                                   "unsolvable-lcp, 5 exception",
                    .whole = true},
                   {.name = "t_fault",
                    .default_value = 0.5,
                    .min = 0.0,
                    .max = 3.0,
                    .min_inclusive = false,
                    .description = "when the fault begins"}},
        .dof = n,
        .constraints = m,
        .switches = switches,
        .switch_names = {"x"},
    };
  }

  template <class S>
  Mat<S, n, n> metric(const Vec<S, n>& q) const {
    Mat<S, n, n> A = Mat<S, n, n>::Identity();
    if (fault == 3 && q(0) > t_fault - 1.0) A(1, 1) = S(0.0);
    return A;
  }

  template <class S>
  S potential(const Vec<S, n>& /*q*/, const S& /*t*/) const {
    return S(0.0);
  }

  template <class S>
  Vec<S, n> force(const Vec<S, n>& /*q*/, const Vec<S, n>& /*v*/, const S& t, Modes modes) const {
    if (fault == 5 && t > t_fault) throw std::logic_error("fault-injection: fault 5");
    if (fault == 1 && t > t_fault) {
      const S nan(std::numeric_limits<double>::quiet_NaN());
      return Vec<S, n>(nan, nan);
    }
    return Vec<S, n>(S(0.0), S(modes[0] > 0 ? 1.0 : -1.0));
  }

  template <class S>
  Vec<S, m> constraints(const Vec<S, n>& q, const S& t) const {
    S f1 = q(1);
    if (fault == 2 && t > t_fault) f1 = S(std::numeric_limits<double>::infinity());
    S f2 = S(1.0);
    if (fault == 4) f2 = S(t_fault) - t;
    return Vec<S, m>(f1, f2);
  }

  Vec<double, switches> switching(const Vec<double, n>& q, const Vec<double, n>& /*v*/,
                                  double /*t*/) const {
    return Vec<double, switches>(q(0));
  }

  State initial_state() const {
    return {.t = 0.0, .q = Eigen::Vector2d(-1.0, 0.0), .v = Eigen::Vector2d(1.0, 0.0)};
  }

  double horizon() const { return 3.0; }

  Facts facts() const {
    // The fault-free motion's (the reference a study compares the faulty runs with).
    Facts facts;
    facts.lift_off = {{.model = "classical",
                       .time = 1.0,
                       .source = "dk-plane without the fault (Deryabin & Kozlov 1995, section 6)"}};
    return facts;
  }
};

}  // namespace crbench::test_cases
